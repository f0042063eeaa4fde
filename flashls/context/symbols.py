"""What a file defines and imports, from its tree and the language's `.scm` queries.

The queries (`queries/<lang>/definitions.scm`, `imports.scm`, `scopes.scm`) carry all
grammar knowledge; this module only interprets their captures:

* definitions: `@definition.<kind>` node, `@name`, optional `@body` (elided in outlines);
* imports: `@import` statement, `@path` as written, optional `@name`s, and for Go/Java a
  `@package_clause` with its `@package`;
* scopes: `@scope` nodes with a `@body` (closures, loops...) whose header lines the
  cursor window keeps, besides the definitions themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node, Query, QueryCursor, Tree

from .languages import LanguageSpec

_NEWLINE = re.compile(r"\r\n|\r|\n")
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_GENERICS = re.compile(r"<[^<>]*>")
MAX_DEPTH = 8  # nesting below this is never needed for headers or outlines


@dataclass(frozen=True)
class Definition:
    """One definition, by line numbers (0-based, inclusive)."""

    name: str
    kind: str
    start: int  # first line, including decorators / attributes / templates
    header_end: int  # last line of the signature
    end: int  # last line of the definition
    has_body: bool
    doc: str | None  # first line of its docstring / doc comment, as written
    doc_line: int  # where `doc` sits (-1 when none)
    parent: int  # index of the enclosing definition in FileSymbols.definitions, -1 if none
    depth: int


@dataclass(frozen=True)
class ImportRef:
    kind: str  # node type of the statement
    path: str  # the module as written
    names: tuple[str, ...]
    start: int
    end: int


@dataclass(frozen=True)
class FileSymbols:
    language: str
    lines: tuple[str, ...]
    definitions: tuple[Definition, ...]
    imports: tuple[ImportRef, ...]
    package: str | None  # Go package name / Java package

    @property
    def import_lines(self) -> frozenset[int]:
        return frozenset(i for imp in self.imports for i in range(imp.start, imp.end + 1))


def split_lines(text: str) -> list[str]:
    """Lines as the LSP counts them (\\n, \\r\\n or \\r), without their breaks."""
    return _NEWLINE.split(text)


_QUERIES: dict[tuple[str, str], Query | None] = {}


def compiled(spec: LanguageSpec, kind: str) -> Query | None:
    """The compiled query `kind` for a language, or None when it has none (cached)."""
    key = (spec.name, kind)
    if key not in _QUERIES:
        source = spec.query_source(kind)
        _QUERIES[key] = Query(spec.grammar, source) if source else None
    return _QUERIES[key]


def symbol_name(text: str) -> str:
    """The plain name of a definition: `Circle::area` -> area, `Point<T>` -> Point."""
    prev = None
    while prev != text:
        prev, text = text, _GENERICS.sub("", text)
    last = re.split(r"::|\.", text.strip())[-1]
    found = _IDENT.search(last)
    return found.group() if found else last.strip()


def _end_line(node: Node) -> int:
    row, col = node.end_point
    return row - 1 if col == 0 and row > node.start_point[0] else row


def _header_end(node: Node, body: Node, source: bytes) -> int:
    """The last line of the signature: the body's opening line when the body starts
    with a bracket, else the line of the last character before the body."""
    start_row = node.start_point[0]
    if body.start_point[0] <= start_row:
        return start_row
    first = source[body.start_byte:body.start_byte + 1]
    if first in (b"{", b"(", b"["):
        return body.start_point[0]
    prev = body.prev_sibling
    while prev is not None and "comment" in prev.type and prev.start_point[0] > start_row:
        prev = prev.prev_sibling
    return _end_line(prev) if prev is not None else start_row


def _doc(spec: LanguageSpec, node: Node, outer: Node, body: Node | None,
         lines: list[str]) -> tuple[str | None, int]:
    """First docstring line (Python-style body string) or the doc comment just above."""
    if spec.body_docstrings and body is not None and body.named_child_count:
        first = body.named_children[0]
        if first.type == "expression_statement" and first.named_child_count and \
                first.named_children[0].type == "string":
            row = first.start_point[0]
            text = lines[row] if row < len(lines) else ""
            if first.end_point[0] != row:  # close a multi-line docstring on its first line
                quote = '"""' if '"""' in text else "'''" if "'''" in text else ""
                text = text.rstrip() + quote
            return text, row
        return None, -1
    prev = outer.prev_named_sibling
    if prev is None or "comment" not in prev.type or \
            _end_line(prev) != outer.start_point[0] - 1 or \
            prev.start_point[0] != _end_line(prev):
        return None, -1
    # a run of one-line comments right above: its first line is the summary
    while True:
        before = prev.prev_named_sibling
        if before is None or "comment" not in before.type or \
                _end_line(before) != prev.start_point[0] - 1 or \
                before.start_point[0] != _end_line(before):
            break
        prev = before
    row = prev.start_point[0]
    return (lines[row] if row < len(lines) else None), row


def _extract_definitions(spec: LanguageSpec, tree: Tree, source: bytes,
                         lines: list[str]) -> list[Definition]:
    query = compiled(spec, "definitions")
    if query is None:
        return []
    found: dict[int, tuple[Node, Node, Node | None, str]] = {}  # name node id -> match
    for _, caps in QueryCursor(query).matches(tree.root_node):
        name_nodes = caps.get("name")
        def_kind = next((k for k in caps if k.startswith("definition.")), None)
        if not name_nodes or def_kind is None:
            continue
        node = caps[def_kind][0]
        body = caps["body"][0] if "body" in caps else None
        key = name_nodes[0].start_byte
        old = found.get(key)
        # the same name matched twice: keep the match with a body, then the larger node
        if old is not None and (old[2] is not None, old[0].end_byte - old[0].start_byte) >= \
                (body is not None, node.end_byte - node.start_byte):
            continue
        found[key] = (node, name_nodes[0], body, def_kind.split(".", 1)[1])
    raw = []
    for node, name_node, body, kind in found.values():
        outer = node
        while outer.parent is not None and outer.parent.type in spec.wrapper_types:
            outer = outer.parent
        start = outer.start_point[0]
        sib = outer.prev_named_sibling
        while sib is not None and sib.type in spec.attribute_types and \
                _end_line(sib) >= start - 1:
            start = sib.start_point[0]
            outer_attr = sib
            sib = outer_attr.prev_named_sibling
        end = _end_line(node)
        header_end = _header_end(node, body, source) if body is not None else end
        doc, doc_line = _doc(spec, node, outer, body, lines)
        if doc_line != -1 and start <= doc_line <= header_end:
            doc, doc_line = None, -1
        name = symbol_name(name_node.text.decode("utf-8", "replace"))
        raw.append((node.start_byte, -node.end_byte, start, header_end, end, name, kind,
                    body is not None, doc, doc_line, node.end_byte))
    raw.sort()
    defs: list[Definition] = []
    stack: list[tuple[int, int]] = []  # (index, end_byte) of open definitions
    for (start_byte, _neg_end, start, header_end, end, name, kind, has_body, doc, doc_line,
         end_byte) in raw:
        while stack and stack[-1][1] <= start_byte:
            stack.pop()
        parent = stack[-1][0] if stack else -1
        depth = len(stack)
        if depth > MAX_DEPTH:
            continue
        defs.append(Definition(name, kind, start, header_end, end, has_body, doc, doc_line,
                               parent, depth))
        stack.append((len(defs) - 1, end_byte))
    return defs


def _extract_imports(spec: LanguageSpec, tree: Tree) -> tuple[list[ImportRef], str | None]:
    query = compiled(spec, "imports")
    if query is None:
        return [], None
    by_stmt: dict[tuple[int, str], tuple[Node, list[str]]] = {}
    package = None
    for _, caps in QueryCursor(query).matches(tree.root_node):
        if "package" in caps:
            package = caps["package"][0].text.decode("utf-8", "replace")
            continue
        if "import" not in caps or "path" not in caps:
            continue
        stmt = caps["import"][0]
        path = caps["path"][0].text.decode("utf-8", "replace")
        key = (stmt.start_byte, path)
        entry = by_stmt.setdefault(key, (stmt, []))
        for n in caps.get("name", []):
            name = n.text.decode("utf-8", "replace")
            if name not in entry[1]:
                entry[1].append(name)
    refs = [ImportRef(stmt.type, path, tuple(names), stmt.start_point[0], _end_line(stmt))
            for (_, path), (stmt, names) in sorted(by_stmt.items())]
    return refs, package


def extract(spec: LanguageSpec, tree: Tree, source: bytes, text: str) -> FileSymbols:
    """Definitions and imports of one parsed file."""
    lines = split_lines(text)
    defs = _extract_definitions(spec, tree, source, lines)
    imports, package = _extract_imports(spec, tree)
    return FileSymbols(spec.name, tuple(lines), tuple(defs), tuple(imports), package)


def enclosing_scopes(spec: LanguageSpec, tree: Tree, source: bytes,
                     byte: int, cursor_row: int) -> list[tuple[int, int]]:
    """(start_line, header_end_line) of every definition or scope whose body contains
    `byte`, outermost first. Runs the queries on the cursor's ancestors only."""
    out: dict[int, int] = {}
    lo = max(0, byte - 1)
    hi = min(len(source), byte + 1)
    for kind in ("definitions", "scopes"):
        query = compiled(spec, kind)
        if query is None:
            continue
        cursor = QueryCursor(query)
        cursor.set_byte_range(lo, hi)
        for _, caps in cursor.matches(tree.root_node):
            node_key = next((k for k in caps if k.startswith("definition.") or k == "scope"),
                            None)
            if node_key is None:
                continue
            node = caps[node_key][0]
            body = caps["body"][0] if "body" in caps else None
            if body is None:
                continue
            if not (body.start_byte < byte <= body.end_byte) or byte >= node.end_byte:
                continue
            outer = node
            while outer.parent is not None and outer.parent.type in spec.wrapper_types:
                outer = outer.parent
            start = outer.start_point[0]
            header_end = _header_end(node, body, source)
            if cursor_row <= header_end:
                continue
            out[start] = max(out.get(start, header_end), header_end)
    return sorted(out.items())
