"""Parse validation: a multi-line suggestion must not break the file's syntax.

The candidate is spliced into the document and re-parsed with tree-sitter (incrementally,
from a copy of the document's tree). If it adds syntax errors (ERROR or MISSING nodes) in
the edited lines, or in the file as a whole, it is shortened line by line until it does
not, or dropped. Languages without a grammar fall back to a bracket-balance check.
"""

from __future__ import annotations

from tree_sitter import Node, Parser, Tree

from flashls.context.syntax import ParsedDocument

from flashls.context.languages import LanguageSpec

from .cursor import CursorContext, cursor_context
from .indent import columns, leading
from .postprocess import Cleaned, finish, normalise_newlines
from .scan import Lexicon, final_state

MAX_ATTEMPTS = 12  # shortened candidates tried before giving up


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


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    lo = text.rfind("\n", 0, start) + 1
    hi = text.find("\n", end)
    return lo, len(text) if hi < 0 else hi


def introduces_errors(pdoc: ParsedDocument, offset: int, replace_end: int, text: str) -> bool:
    """Would replacing [offset, replace_end) with `text` add syntax errors?"""
    doc = pdoc.doc
    old_text = doc.text
    new_text = old_text[:offset] + text + old_text[replace_end:]
    new_end = offset + len(text)
    spec = pdoc.spec
    tree = pdoc.tree() if spec is not None else None
    if tree is None:
        lex = Lexicon.for_spec(spec)
        old_lo, old_hi = _line_bounds(old_text, offset, replace_end)
        new_lo, new_hi = _line_bounds(new_text, offset, new_end)
        return _imbalance(new_text[new_lo:new_hi], lex) > _imbalance(old_text[old_lo:old_hi], lex)
    if spec.indent_blocks and _opens_empty_block(new_text, offset, text, spec):
        return True
    new_tree = _reparse(pdoc, tree, offset, replace_end, text, new_text)
    start_byte = doc.byte_at(offset)
    line_start = start_byte - len(old_text[old_text.rfind("\n", 0, offset) + 1:offset]
                                  .encode("utf-8", "surrogatepass"))
    tail = old_text[replace_end:].split("\n", 1)[0].encode("utf-8", "surrogatepass")
    old_hi = doc.byte_at(replace_end) + len(tail)
    new_hi = start_byte + len(text.encode("utf-8", "surrogatepass")) + len(tail)
    old_local = count_errors(tree.root_node, line_start, old_hi)
    new_local = count_errors(new_tree.root_node, line_start, new_hi)
    return new_local > old_local or count_errors(new_tree.root_node) > count_errors(tree.root_node)


def _opens_empty_block(new_text: str, offset: int, text: str, spec: LanguageSpec) -> bool:
    """A suggested line ends with a block opener (`if x:`) but nothing indented follows.

    tree-sitter-python accepts an empty block, Python does not.
    """
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
            return True
    return False


def _reparse(pdoc: ParsedDocument, tree: Tree, offset: int, replace_end: int, text: str,
             new_text: str) -> Tree:
    doc = pdoc.doc
    start_byte, start_point = doc.byte_at(offset), doc.point_at(offset)
    old_end_byte, old_end_point = doc.byte_at(replace_end), doc.point_at(replace_end)
    inserted = text.encode("utf-8", "surrogatepass")
    rows = text.count("\n")
    last = text.rsplit("\n", 1)[-1].encode("utf-8", "surrogatepass")
    new_end_point = ((start_point[0] + rows, len(last)) if rows
                     else (start_point[0], start_point[1] + len(inserted)))
    edited = tree.copy()
    edited.edit(start_byte, old_end_byte, start_byte + len(inserted),
                start_point, old_end_point, new_end_point)
    parser = Parser(pdoc.spec.grammar)  # our own: the document's parser may be busy
    return parser.parse(new_text.encode("utf-8", "surrogatepass"), edited)


def _shorter(cleaned: Cleaned, ctx: CursorContext) -> list[Cleaned]:
    """Candidates with the last lines dropped, longest first, re-finished (closers, balance)."""
    lines = normalise_newlines(cleaned.text).split("\n")
    out: list[Cleaned] = []
    for n in range(len(lines) - 1, 0, -1):
        candidate = finish("\n".join(lines[:n]), ctx)
        if candidate is not None and candidate not in out and candidate != cleaned:
            out.append(candidate)
    return out


def shorten_until_valid(pdoc: ParsedDocument, offset: int, cleaned: Cleaned) -> Cleaned | None:
    """`cleaned` if it adds no syntax errors; else its longest valid shortening; else None.

    Single-line suggestions pass through: mid-line the file is usually mid-edit and
    already broken, and a one-line insertion cannot hide a broken block.
    """
    if "\n" not in cleaned.text:
        return cleaned
    if not introduces_errors(pdoc, offset, cleaned.replace_end, cleaned.text):
        return cleaned
    ctx = cursor_context(pdoc, offset)
    for attempt, candidate in enumerate(_shorter(cleaned, ctx)):
        if attempt >= MAX_ATTEMPTS:
            break
        if not introduces_errors(pdoc, offset, candidate.replace_end, candidate.text):
            return candidate
    return None
