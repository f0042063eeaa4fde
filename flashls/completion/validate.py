"""Parse validation: a multi-line suggestion must not break the file's syntax.

The candidate is spliced into the document and re-parsed with tree-sitter (incrementally,
from a copy of the document's tree). If it adds syntax errors (ERROR or MISSING nodes) in
the edited lines, or in the file as a whole, it is shortened line by line until it does
not, or dropped. Languages without a grammar fall back to a bracket-balance check.
"""

from __future__ import annotations

from typing import Iterator

from tree_sitter import Node, Parser, Tree

from flashls.context.document import parse_bytes
from flashls.context.languages import LanguageSpec
from flashls.context.syntax import ParsedDocument

from .cursor import CursorContext, cursor_context
from .indent import columns, leading
from .postprocess import Cleaned, finish, normalise_newlines
from .scan import Lexicon, final_state

MAX_ATTEMPTS = 6  # shortened candidates tried (one parse each) before giving up
REGION_MAX_BYTES = 64_000  # larger top-level regions are checked by re-parsing the file


def count_errors(root: Node, lo: int = 0, hi: int | None = None) -> int:
    """ERROR and MISSING nodes overlapping bytes [lo, hi] (everything when hi is None)."""
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if not node.has_error and not node.is_missing:
            continue
        if hi is not None and (node.end_byte < lo or node.start_byte > hi):
            continue
        if node.is_error or node.is_missing:
            count += 1
        stack.extend(node.children)
    return count


def _imbalance(text: str, lex: Lexicon) -> int:
    state = final_state(text, lex)
    return state.closed_outside + len(state.stack) + (state.quote is not None)


def introduces_errors(pdoc: ParsedDocument, offset: int, replace_end: int, text: str) -> bool:
    """Would replacing [offset, replace_end) with `text` add syntax errors?"""
    return _first_bad_line(pdoc, offset, replace_end, text) is not None


def _first_bad_line(pdoc: ParsedDocument, offset: int, replace_end: int,
                    text: str) -> int | None:
    """None if the edit adds no syntax error; else the first line of `text` that may be to
    blame (its line count when it cannot tell), which is where shortening starts."""
    doc = pdoc.doc
    old_text = doc.text
    unknown = text.count("\n") + 1
    line_start = old_text.rfind("\n", 0, offset) + 1
    line_end = old_text.find("\n", replace_end)
    line_end = len(old_text) if line_end < 0 else line_end
    old_lines = old_text[line_start:line_end]
    new_lines = old_text[line_start:offset] + text + old_text[replace_end:line_end]
    spec = pdoc.spec
    start_byte = doc.byte_at(offset)
    old_end_byte = start_byte + len(old_text[offset:replace_end].encode("utf-8", "surrogatepass"))
    region = _region_from_request(pdoc, start_byte, old_end_byte) if spec is not None else None
    tree = None if spec is None or region is not None else pdoc.tree()
    if tree is None and region is None:
        lex = Lexicon.for_spec(spec)
        return unknown if _imbalance(new_lines, lex) > _imbalance(old_lines, lex) else None
    if spec.indent_blocks:
        window = new_lines + old_text[line_end:line_end + 4000]
        empty = _empty_block_line(window, offset - line_start, text, spec)
        if empty is not None:
            return empty
    inserted = parse_bytes(text)
    if region is None:
        region = _top_level_region(tree, start_byte, old_end_byte)
    if region is not None:
        return _region_bad_line(pdoc, region, start_byte, old_end_byte, inserted)
    new_text = old_text[:offset] + text + old_text[replace_end:]
    new_tree = _reparse(pdoc, tree, offset, replace_end, text, new_text)
    lo = start_byte - len(old_text[line_start:offset].encode("utf-8", "surrogatepass"))
    tail = len(old_text[replace_end:line_end].encode("utf-8", "surrogatepass"))
    old_local = count_errors(tree.root_node, lo, old_end_byte + tail)
    new_local = count_errors(new_tree.root_node, lo, start_byte + len(inserted) + tail)
    if new_local <= old_local and count_errors(new_tree.root_node) <= count_errors(tree.root_node):
        return None
    first = _first_error_byte(new_tree.root_node, start_byte, start_byte + len(inserted))
    if first is None:
        return unknown
    return inserted[: max(0, first - start_byte)].count(b"\n")


def _top_level_region(tree: Tree, start: int, end: int) -> tuple[int, int] | None:
    """Bytes of the top-level nodes around an edit.

    Parsed on its own before and after the edit, that region tells the same story as the
    whole file at a fraction of the cost (a function instead of a 1 MB file): errors
    elsewhere are the same in both, and a brace the edit leaves open shows up as a
    MISSING node at the region's end. None (too large): re-parse the whole file.
    """
    root = tree.root_node
    if root.child_count == 0:
        return None
    first = _child_for_byte(root, start)
    if first.start_byte >= start and first.prev_sibling is not None:
        first = first.prev_sibling  # the cursor sits between two nodes: take both
    last = _child_for_byte(root, end)
    lo, hi = first.start_byte, max(last.end_byte, end)
    if hi - lo > REGION_MAX_BYTES:
        return None
    return lo, hi


def _region_from_request(pdoc: ParsedDocument, start: int, end: int
                         ) -> tuple[int, int] | None:
    """`_top_level_region` of the whole tree, read from the request's parse of its
    edited region (`context.local_parse`) while the whole tree is stale: its top-level
    nodes are the whole tree's there (its sentinels were checked), so the whole tree is
    not reparsed for the check (10-70 ms on a big file, after every answer). None when
    the nodes around the edit are not all inside that parse."""
    syntax = pdoc.syntax
    local = syntax.region if syntax is not None else None
    if local is None or not local.checked or not syntax.dirty or \
            local.source is not pdoc.doc.source_bytes:
        return None
    root = local.tree.root_node
    if root.child_count < 2 or not local.start < start <= end < local.end:
        return None
    last = root.child(root.child_count - 1)
    if end >= last.end_byte:  # the whole tree's next node may be the one
        return None
    first = _child_for_byte(root, start)
    if first.start_byte >= start and first.prev_sibling is None:
        return None  # the whole tree's node before it is not in this parse
    return _top_level_region(local.tree, start, end)


def _child_for_byte(root: Node, byte: int) -> Node:
    """The first child ending after `byte`, else the last child.

    (py-tree-sitter's `first_child_for_byte` crashes when no child qualifies.)
    """
    last = root.child(root.child_count - 1)
    if byte >= last.end_byte:
        return last
    return root.first_child_for_byte(byte) or last


def _region_bad_line(pdoc: ParsedDocument, region: tuple[int, int], start: int, old_end: int,
                     inserted: bytes) -> int | None:
    lo, hi = region
    source = pdoc.doc.source_bytes
    parser = Parser(pdoc.spec.grammar)
    old_tree = parser.parse(source[lo:hi])  # keep the trees alive while their nodes are used
    new_tree = parser.parse(source[lo:start] + inserted + source[old_end:hi])
    old, new = old_tree.root_node, new_tree.root_node
    if count_errors(new) <= count_errors(old):
        return None
    first = _first_error_byte(new, start - lo, start - lo + len(inserted))
    if first is None:
        return inserted.count(b"\n") + 1
    return inserted[: max(0, first - (start - lo))].count(b"\n")


def _first_error_byte(root: Node, lo: int, hi: int) -> int | None:
    """Start of the earliest ERROR / MISSING node overlapping bytes [lo, hi]."""
    best: int | None = None
    stack = [root]
    while stack:
        node = stack.pop()
        if not node.has_error and not node.is_missing:
            continue
        if node.end_byte < lo or node.start_byte > hi:
            continue
        if node.is_error or node.is_missing:
            start = max(node.start_byte, lo)
            best = start if best is None else min(best, start)
        stack.extend(node.children)
    return best


def _empty_block_line(new_text: str, offset: int, text: str, spec: LanguageSpec) -> int | None:
    """A suggested line ends with a block opener (`if x:`) but nothing indented follows:
    its index in `text`. tree-sitter-python accepts an empty block, Python does not."""
    lex = Lexicon.for_spec(spec)
    line_start = new_text.rfind("\n", 0, offset) + 1
    lines = new_text[line_start:].split("\n")
    suggested = text.count("\n") + 1
    first = 0 if text.split("\n", 1)[0].strip() else 1
    for i in range(first, min(suggested, len(lines))):
        line = lines[i].rstrip("\r")
        if not line.strip() or not line.rstrip().endswith(spec.block_openers):
            continue
        head = line.rstrip()[:-1]
        state = final_state(head, lex)
        if not state.in_code or state.stack:
            continue
        below = next((nxt for nxt in lines[i + 1:] if nxt.strip()), None)
        if below is None or columns(leading(below)) <= columns(leading(line)):
            return i
    return None


def _reparse(pdoc: ParsedDocument, tree: Tree, offset: int, replace_end: int, text: str,
             new_text: str) -> Tree:
    doc = pdoc.doc
    start_byte, start_point = doc.byte_at(offset), doc.point_at(offset)
    old_end_byte, old_end_point = doc.byte_at(replace_end), doc.point_at(replace_end)
    inserted = parse_bytes(text)  # (a lone "\r" is a row, as in the document's tree)
    rows = inserted.count(b"\n")
    last = inserted[inserted.rfind(b"\n") + 1:]
    new_end_point = ((start_point[0] + rows, len(last)) if rows
                     else (start_point[0], start_point[1] + len(inserted)))
    edited = tree.copy()
    edited.edit(start_byte, old_end_byte, start_byte + len(inserted),
                start_point, old_end_point, new_end_point)
    parser = Parser(pdoc.spec.grammar)  # our own: the document's parser may be busy
    return parser.parse(parse_bytes(new_text), edited)


def _shorter(cleaned: Cleaned, ctx: CursorContext, bad_line: int) -> Iterator[Cleaned]:
    """Candidates with the last lines dropped, re-finished (closers, balance); longest first,
    starting just after the first line the parser blamed."""
    lines = normalise_newlines(cleaned.text).split("\n")
    seen: set[Cleaned] = {cleaned}
    for n in range(min(len(lines) - 1, bad_line + 1), 0, -1):
        candidate = finish("\n".join(lines[:n]), ctx)
        if candidate is not None and candidate not in seen:
            seen.add(candidate)
            yield candidate


def shorten_until_valid(pdoc: ParsedDocument, offset: int, cleaned: Cleaned) -> Cleaned | None:
    """`cleaned` if it adds no syntax errors; else its longest valid shortening; else None.

    Single-line suggestions pass through: mid-line the file is usually mid-edit and
    already broken, and a one-line insertion cannot hide a broken block.
    """
    if "\n" not in cleaned.text:
        return cleaned
    bad = _first_bad_line(pdoc, offset, cleaned.replace_end, cleaned.text)
    if bad is None:
        return cleaned
    ctx = cursor_context(pdoc, offset)
    for attempt, candidate in enumerate(_shorter(cleaned, ctx, bad)):
        if attempt >= MAX_ATTEMPTS:
            break
        if not introduces_errors(pdoc, offset, candidate.replace_end, candidate.text):
            return candidate
    return None
