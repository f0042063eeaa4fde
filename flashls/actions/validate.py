"""Is a rewrite acceptable? Non-empty, different from the input, and no new syntax errors.

The parse check splices the replacement into the whole document and counts tree-sitter
ERROR / MISSING nodes against the original document, so code that was already broken
elsewhere (or inside the selection, for "Fix") does not block an edit, and a selection
that is only part of a construct is judged in its real context. Given the document's
current tree, the spliced document is reparsed incrementally.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node, Parser, Tree

from ..context.document import parse_bytes
from ..context.languages import LanguageSpec
from .selection import same_code


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str = ""  # why not, phrased for the user and for the model's retry
    checked_syntax: bool = False


@dataclass(frozen=True)
class SyntaxProblem:
    count: int  # error nodes in the tree
    first_row: int = -1  # row of the first error node starting at or after `from_row`
    first_text: str = ""


def syntax_problems(root: Node, source: bytes, from_byte: int = 0) -> SyntaxProblem:
    """Count ERROR and MISSING nodes; locate the first one at or after `from_byte`."""
    if not root.has_error:
        return SyntaxProblem(0)
    count = 0
    first: Node | None = None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
            if node.start_byte >= from_byte and (first is None or
                                                 node.start_byte < first.start_byte):
                first = node
        # children in reverse so the walk goes in document order
        stack.extend(child for child in reversed(node.children) if child.has_error
                     or child.is_missing)
    if first is None:
        return SyntaxProblem(count)
    snippet = source[first.start_byte:first.start_byte + 40].decode("utf-8", "replace")
    snippet = snippet.split("\n", 1)[0].strip()
    return SyntaxProblem(count, first.start_point[0], snippet)


def _point(text: str) -> tuple[int, int]:
    """tree-sitter (row, byte column) at the end of `text`."""
    data = parse_bytes(text)  # (a lone "\r" ends a row, as the parser reads it)
    return data.count(b"\n"), len(data) - data.rfind(b"\n") - 1


def _parse_both(text: str, start: int, end: int, replacement: str, spec: LanguageSpec,
                tree: Tree | None) -> tuple[Tree, Tree, bytes, bytes]:
    """Trees of the document before and after the replacement. With the current tree
    of `text`, the second is an incremental reparse (~10x cheaper than a full one)."""
    parser: Parser = spec.parser()
    old_source = parse_bytes(text)
    new_source = parse_bytes(text[:start] + replacement + text[end:])
    if tree is None:
        return parser.parse(old_source), parser.parse(new_source), old_source, new_source
    head = text[:start]
    start_byte = len(head.encode("utf-8", "surrogatepass"))
    old_end_byte = start_byte + len(text[start:end].encode("utf-8", "surrogatepass"))
    new_end_byte = start_byte + len(replacement.encode("utf-8", "surrogatepass"))
    start_point = _point(head)
    old_end = _point(text[start:end])
    new_end = _point(replacement)

    def shifted(delta: tuple[int, int]) -> tuple[int, int]:
        return (start_point[0] + delta[0],
                delta[1] if delta[0] else start_point[1] + delta[1])

    edited = tree.copy()
    edited.edit(start_byte, old_end_byte, new_end_byte, start_point, shifted(old_end),
                shifted(new_end))
    return tree, parser.parse(new_source, edited), old_source, new_source


def check_rewrite(text: str, start: int, end: int, replacement: str,
                  spec: LanguageSpec | None, tree: Tree | None = None) -> Verdict:
    """Judge `replacement` for `text[start:end]`; `tree`, when given, is the current
    tree of `text` (it is not modified)."""
    if not replacement.strip():
        return Verdict(False, "the answer contained no code")
    if same_code(replacement, text[start:end]):
        return Verdict(False, "the answer repeats the selection unchanged")
    if spec is None:
        return Verdict(True)
    old_tree, new_tree, old_source, new_source = _parse_both(text, start, end, replacement,
                                                             spec, tree)
    start_byte = len(text[:start].encode("utf-8", "surrogatepass"))
    before = syntax_problems(old_tree.root_node, old_source)
    after = syntax_problems(new_tree.root_node, new_source, start_byte)
    if after.count > before.count:
        new = after.count - before.count
        where = ""
        if after.first_row >= 0:
            sel_row = text.count("\n", 0, start)
            line = after.first_row - sel_row + 1
            where = f", first near line {line} of the rewrite" if line >= 1 else ""
            if after.first_text:
                where += f" (`{after.first_text}`)"
        return Verdict(False, f"the rewritten code does not parse: {new} new syntax "
                              f"error{'s' if new > 1 else ''}{where}", True)
    return Verdict(True, checked_syntax=True)
