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
from typing import Generator, Sequence

from tree_sitter import Node, Query, QueryCursor, Tree

from .evidence_c import definition_start_depth
from .languages import LanguageSpec

_NEWLINE = re.compile(r"\r\n|\r|\n")
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_GENERICS = re.compile(r"<[^<>]*>")
_REFERENCE = re.compile(r"^\s*(?:[&*]\s*(?:'\w+\s*)?(?:mut\s+|const\s+)?)*(?:dyn\s+)?")
MAX_DEPTH = 8  # nesting below this is never needed for headers or outlines
# Deepest tree level a definition / import pattern may start at. Outlines and neighbor
# signatures need top-level and class-level definitions only (a method inside a class
# inside a namespace sits at depth 5 in C++); not descending further makes the query
# ~10x cheaper on large files.
DEFINITION_START_DEPTH = 5
IMPORT_START_DEPTH = 4


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
    if "\r" not in text:
        return text.split("\n")
    return _NEWLINE.split(text)


_QUERIES: dict[tuple[str, str], Query | None] = {}


def compiled(spec: LanguageSpec, kind: str) -> Query | None:
    """The compiled query `kind` for a language, or None when it has none (cached)."""
    key = (spec.name, kind)
    if key not in _QUERIES:
        source = spec.query_source(kind)
        _QUERIES[key] = Query(spec.grammar, source) if source else None
    return _QUERIES[key]


@dataclass(frozen=True)
class NodeQueries:
    """A query split so that one top-level node can be matched on its own.

    A pattern rooted at the file's root node (`(module (expression_statement ...))`:
    top-level only) is not narrowed by a byte range: tree-sitter walks every child of
    the root for it, so matching per top-level node that way costs the whole file each
    time (quadratic over a file). Such patterns are unwrapped into `top`, matched on
    the top-level node itself; the others (`nested`) are matched inside it. Root
    patterns that cannot be unwrapped stay in `rooted` (byte range on the root)."""

    nested: Query | None
    top: Query | None
    rooted: Query | None
    kinds: dict[tuple[str, int], str]  # (role, pattern index) -> its @definition.* capture


_SPLIT: dict[tuple[str, str], NodeQueries | None] = {}


def _units(source: str) -> list[tuple[int, int]]:
    """(start, end) of each depth-0 unit of a query source: a parenthesized or
    bracketed pattern, a string, or a bare token (captures, quantifiers, fields, `.`);
    comments are skipped."""
    out: list[tuple[int, int]] = []
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        if ch.isspace():
            i += 1
        elif ch == ";":
            while i < n and source[i] != "\n":
                i += 1
        elif ch in "([":
            start, depth = i, 0
            while i < n:
                c = source[i]
                if c == '"':
                    i = _string_end(source, i)
                    continue
                if c == ";":
                    while i < n and source[i] != "\n":
                        i += 1
                    continue
                if c in "([":
                    depth += 1
                elif c in ")]":
                    depth -= 1
                    if depth == 0:
                        i += 1
                        break
                i += 1
            out.append((start, i))
        elif ch == '"':
            end = _string_end(source, i)
            out.append((i, end))
            i = end
        else:
            start = i
            while i < n and not source[i].isspace() and source[i] not in '()[];"':
                i += 1
            out.append((start, i))
    return out


def _string_end(source: str, i: int) -> int:
    i += 1
    while i < len(source) and source[i] != '"':
        i += 2 if source[i] == "\\" else 1
    return i + 1


def _patterns(source: str) -> list[str]:
    """Top-level patterns: each node / alternation unit with the captures and
    quantifiers that follow it."""
    out: list[str] = []
    for start, end in _units(source):
        text = source[start:end]
        if out and not text.startswith(("(", "[", '"')) and text[0] in "@*+?":
            out[-1] += " " + text
        else:
            out.append(text)
    return out


def _unwrap(pattern: str, root_type: str) -> str | None:
    """`(ROOT (child ...) @cap)` -> `((child ...) @cap)`; None when `pattern` is not
    rooted at `root_type`, "" when it is but cannot be unwrapped safely."""
    if not pattern.startswith("(") or pattern.startswith("(#"):
        return None
    head = pattern[1:].lstrip()
    name_end = 0
    while name_end < len(head) and (head[name_end].isalnum() or head[name_end] in "_"):
        name_end += 1
    if head[:name_end] != root_type or not pattern.endswith(")"):
        return None
    inner = head[name_end:-1]
    units = [inner[s:e] for s, e in _units(inner)]
    nodes = [u for u in units if u[0] in "([" and not u.startswith("(#")]
    others = [u for u in units if not (u[0] in "([")]
    if len(nodes) != 1 or any(not u.startswith("@") for u in others):
        return ""
    return "(" + inner.strip() + ")"


def node_queries(spec: LanguageSpec, kind: str) -> NodeQueries | None:
    """The query `kind` split for per-node matching (cached; None when it has none)."""
    steps = node_queries_steps(spec, kind)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def node_queries_steps(spec: LanguageSpec, kind: str
                       ) -> Generator[None, None, NodeQueries | None]:
    """`node_queries`, yielding between the compilations of its (up to three) parts:
    each is one call holding the GIL, up to 50 ms (TypeScript's definitions), that a
    big document's background preparation runs as a step of its own."""
    key = (spec.name, kind)
    if key in _SPLIT:
        return _SPLIT[key]
    source = spec.query_source(kind)
    if not source:
        _SPLIT[key] = None
        return None
    root_type = spec.parser().parse(b"").root_node.type
    nested, top, rooted = [], [], []
    for pattern in _patterns(source):
        unwrapped = _unwrap(pattern, root_type)
        if unwrapped is None:
            nested.append(pattern)
        elif unwrapped:
            top.append(unwrapped)
        else:
            rooted.append(pattern)
    queries: dict[str, Query | None] = {}
    for role, parts in (("nested", nested), ("top", top), ("rooted", rooted)):
        queries[role] = Query(spec.grammar, "\n".join(parts)) if parts else None
        if parts:
            yield
    kinds: dict[tuple[str, int], str] = {}
    for role, query in queries.items():
        if query is None:
            continue
        names = [query.capture_name(i) for i in range(query.capture_count)]
        for pattern in range(query.pattern_count):
            for index, name in enumerate(names):
                if name.startswith("definition.") and _has_capture(query, pattern, index):
                    kinds[(role, pattern)] = name
                    break
    split = NodeQueries(queries["nested"], queries["top"], queries["rooted"], kinds)
    _SPLIT[key] = split
    return split


def _node_matches(split: NodeQueries, tree: Tree, node: Node, max_depth: int):
    """(role, pattern, captures) of every match whose pattern starts inside `node` (a
    child of the root) or, unwrapped, at `node` itself: root-anchored patterns first."""
    if split.top is not None:
        cursor = QueryCursor(split.top)
        cursor.set_max_start_depth(0)
        for pattern, caps in cursor.matches(node):
            yield "top", pattern, caps
    if split.rooted is not None:
        cursor = QueryCursor(split.rooted)
        cursor.set_max_start_depth(max_depth)
        cursor.set_byte_range(node.start_byte, node.end_byte)
        for pattern, caps in cursor.matches(tree.root_node):
            yield "rooted", pattern, caps
    if split.nested is not None and max_depth >= 1:
        cursor = QueryCursor(split.nested)
        cursor.set_max_start_depth(max_depth - 1)
        for pattern, caps in cursor.matches(node):
            yield "nested", pattern, caps


def symbol_name(text: str) -> str:
    """The plain name of a definition: `Circle::area` -> area, `Point<T>` -> Point."""
    prev = None
    while prev != text:
        prev, text = text, _GENERICS.sub("", text)
    text = _REFERENCE.sub("", text)  # `&'a mut Groups` is Groups
    last = re.split(r"::|\.", text.strip())[-1]
    found = _IDENT.search(last)
    return found.group() if found else last.strip()


def _end_line(node: Node) -> int:
    row, col = node.end_point
    return row - 1 if col == 0 and row > node.start_point[0] else row


def _header_end(node: Node, body: Node, source: bytes) -> int:
    """The last line of the signature: the body's opening line when the body starts
    with a bracket, else the line of the last character before the body (Python's
    colon). Scans bytes only: node.parent / prev_sibling re-walk the tree."""
    start_row = node.start_point[0]
    body_row = body.start_point[0]
    if body_row <= start_row:
        return start_row
    i = body.start_byte
    if source[i:i + 1] in (b"{", b"(", b"["):
        return body_row
    row = body_row
    i -= 1
    while i > node.start_byte and source[i] in b" \t\r\n":
        if source[i] == 10:
            row -= 1
        i -= 1
    return max(start_row, row)


_COMMENT_STARTS = ("//", "#", "--", ";")


def _is_comment_line(stripped: str, spec: LanguageSpec) -> bool:
    if stripped.startswith("#[") or stripped.startswith("#!"):
        return False
    if stripped.startswith(spec.line_comment) or stripped.startswith(_COMMENT_STARTS[:1]):
        return True
    return stripped.startswith("/*") and stripped.endswith("*/")  # one-line block comment


def _attached_start(spec: LanguageSpec, start: int, lines: Sequence[str]) -> int:
    """Extend a definition's first line over attribute lines right above (`#[derive]`)."""
    while start > 0 and spec.attribute_prefixes and \
            lines[start - 1].lstrip().startswith(spec.attribute_prefixes):
        start -= 1
    return start


def _doc(spec: LanguageSpec, start: int, body: Node | None,
         lines: Sequence[str]) -> tuple[str | None, int]:
    """First docstring line (Python-style body string) or the comment run just above."""
    if spec.body_docstrings:
        if body is None or not body.named_child_count:
            return None, -1
        first = body.named_child(0)
        if first.type == "expression_statement" and first.named_child_count and \
                first.named_child(0).type == "string":
            row = first.start_point[0]
            text = lines[row] if row < len(lines) else ""
            if first.end_point[0] != row:  # close a multi-line docstring on its first line
                quote = '"""' if '"""' in text else "'''" if "'''" in text else ""
                text = text.rstrip() + quote
            return text, row
        return None, -1
    row = start - 1
    if row < 0 or not _is_comment_line(lines[row].strip(), spec):
        return None, -1
    limit = max(0, row - 20)
    while row > limit and _is_comment_line(lines[row - 1].strip(), spec):
        row -= 1
    return lines[row], row


def _top_nodes(tree: Tree, byte_range: tuple[int, int] | None) -> list[Node]:
    """The root's children, or those intersecting `byte_range`."""
    children = tree.root_node.children
    if byte_range is None:
        return children
    lo, hi = byte_range
    return [c for c in children if c.end_byte > lo and c.start_byte < hi or
            c.start_byte == lo]


def _extract_definitions(spec: LanguageSpec, tree: Tree, source: bytes,
                         lines: Sequence[str], nodes: Sequence[Node]) -> list[Definition]:
    """Definitions inside `nodes` (children of the root): one query run per node, so
    analyzing a file costs its size, and re-analyzing one node costs that node's."""
    split = node_queries(spec, "definitions")
    if split is None:
        return []
    found: dict[int, tuple[Node, Node, Node | None, str]] = {}  # name start -> match
    kinds = split.kinds
    for top in nodes:
        for role, pattern, caps in _node_matches(split, tree, top, definition_start_depth(
                spec, DEFINITION_START_DEPTH)):
            name_nodes = caps.get("name")
            def_kind = kinds.get((role, pattern))
            if not name_nodes or not def_kind or def_kind not in caps:
                continue
            node = caps[def_kind][0]
            if not top.start_byte <= node.start_byte < top.end_byte and node != top:
                continue
            body = caps["body"][0] if "body" in caps else None
            key = name_nodes[0].start_byte
            old = found.get(key)
            # the same name matched twice (decorated, exported, templated, or a constant
            # that is a function): keep the match with a body, then the larger node
            if old is not None and (old[2] is not None, old[0].end_byte - old[0].start_byte
                                    ) >= (body is not None, node.end_byte - node.start_byte):
                continue
            found[key] = (node, name_nodes[0], body, def_kind[11:])
    return _definitions(spec, source, lines, found)


def _definitions(spec: LanguageSpec, source: bytes, lines: Sequence[str],
                 found: dict[int, tuple[Node, Node, Node | None, str]]) -> list[Definition]:
    """Matched definitions in file order, each with its parent and depth."""
    raw = []
    n_lines = len(lines)
    for node, name_node, body, kind in found.values():
        start = _attached_start(spec, node.start_point[0], lines)
        end = min(_end_line(node), n_lines - 1)
        header_end = min(_header_end(node, body, source), end) if body is not None else end
        doc, doc_line = _doc(spec, start, body, lines)
        if doc_line != -1 and start <= doc_line <= header_end:
            doc, doc_line = None, -1
        name = name_node.text.decode("utf-8", "replace")
        if not name.isidentifier():
            name = symbol_name(name)
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


def _extract_imports(spec: LanguageSpec, tree: Tree, nodes: Sequence[Node]
                     ) -> tuple[list[ImportRef], str | None]:
    """Imports (and a Go / Java package) inside `nodes`, one query run per node."""
    split = node_queries(spec, "imports")
    if split is None:
        return [], None
    by_stmt: dict[tuple[int, str], tuple[Node, list[str]]] = {}
    package = None
    for top in nodes:
        for _, _, caps in _node_matches(split, tree, top, IMPORT_START_DEPTH):
            if "package" in caps:
                package = caps["package"][0].text.decode("utf-8", "replace")
                continue
            if "import" not in caps or "path" not in caps:
                continue
            stmt = caps["import"][0]
            if not top.start_byte <= stmt.start_byte < top.end_byte and stmt != top:
                continue
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


def extract(spec: LanguageSpec, tree: Tree, source: bytes, text: str,
            lines: Sequence[str] | None = None,
            byte_range: tuple[int, int] | None = None) -> FileSymbols:
    """Definitions and imports of one parsed file (or of the top-level nodes that
    intersect `byte_range`, with absolute line numbers)."""
    if lines is None:
        lines = split_lines(text)
    nodes = _top_nodes(tree, byte_range)
    defs = _extract_definitions(spec, tree, source, lines, nodes)
    imports, package = _extract_imports(spec, tree, nodes)
    return FileSymbols(spec.name, tuple(lines), tuple(defs), tuple(imports), package)


_BODY_QUERIES: dict[tuple[str, str], Query | None] = {}


def _has_capture(query: Query, pattern: int, capture: int) -> bool:
    try:
        quantifier = query.capture_quantifier(pattern, capture)
    except SystemError:  # py-tree-sitter 0.26 raises for "not in this pattern"
        return False
    return quantifier in ("", "?", "*", "+")


def _with_body(spec: LanguageSpec, kind: str) -> Query | None:
    """The query `kind` with only its patterns that capture a @body (the others, such
    as Python's module-level assignments, match all over the file and never hold the
    cursor). A separate compilation: disabling patterns is per Query object."""
    key = (spec.name, kind)
    if key not in _BODY_QUERIES:
        source = spec.query_source(kind)
        query = Query(spec.grammar, source) if source else None
        if query is not None:
            body = [i for i in range(query.capture_count) if query.capture_name(i) == "body"]
            for pattern in range(query.pattern_count):
                if not any(_has_capture(query, pattern, b) for b in body):
                    query.disable_pattern(pattern)
        _BODY_QUERIES[key] = query
    return _BODY_QUERIES[key]


def enclosing_scopes(spec: LanguageSpec, tree: Tree, source: bytes,
                     byte: int, cursor_row: int, lines: list[str] | None = None
                     ) -> list[tuple[int, int]]:
    """(start_line, header_end_line) of every definition or scope whose body holds the
    cursor, outermost first. Runs the queries on the cursor's ancestors only.

    Indentation languages: a cursor on a fresh line after a block's last statement is
    outside the block's bytes, so the probe is the last non-blank byte before it and a
    scope counts when the cursor line is indented deeper than the scope's header."""
    probe = byte
    indent = None
    if spec.indent_blocks and lines is not None:
        probe = byte - 1
        while probe > 0 and source[probe] in b" \t\r\n":
            probe -= 1
        line = lines[cursor_row] if cursor_row < len(lines) else ""
        indent = len(line) - len(line.lstrip()) if line.strip() else None
    out: dict[int, int] = {}
    lo = max(0, probe - 1)
    hi = min(len(source), probe + 1)
    for kind in ("definitions", "scopes"):
        query = _with_body(spec, kind)
        if query is None:
            continue
        cursor = QueryCursor(query)
        cursor.set_byte_range(lo, hi)
        for _, caps in cursor.matches(tree.root_node):
            node_key = next((k for k in caps if k.startswith("definition.") or k == "scope"),
                            None)
            if node_key is None or "body" not in caps:
                continue
            node = caps[node_key][0]
            body = caps["body"][0]
            if not (body.start_byte <= probe < body.end_byte or
                    body.start_byte < byte < body.end_byte):
                continue
            start = node.start_point[0]
            header_end = _header_end(node, body, source)
            if cursor_row <= header_end:
                continue
            if spec.indent_blocks and lines is not None and not \
                    body.start_byte < byte < body.end_byte:
                head = lines[start]
                head_indent = len(head) - len(head.lstrip())
                col_indent = indent if indent is not None else \
                    len(lines[cursor_row]) - len(lines[cursor_row].lstrip()) \
                    if cursor_row < len(lines) else 0
                if col_indent <= head_indent:
                    continue
            out[start] = max(out.get(start, header_end), header_end)
    # a decorated definition matches twice (from the decorator and from `def`): merge
    merged: list[tuple[int, int]] = []
    for start, end in sorted(out.items()):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
