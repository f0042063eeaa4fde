"""What the text around the cursor says: line halves, string/comment, enclosing block.

Computed once per request and shared by the multi-line decision and post-processing.
Known languages get tree-sitter's answer for "inside a string or comment"; every
language (known or not) gets the text rules for lines, blocks and indentation.
"""

from __future__ import annotations

from dataclasses import dataclass

from flashls.context.languages import LanguageSpec
from flashls.context.local_parse import has_error, tree_near
from flashls.context.syntax import ParsedDocument

from .indent import IndentStyle, columns, detect_style, leading
from .scan import OPENERS, Lexicon, ScanState, final_state, is_closers_only

CONTEXT_LINES = 12  # lines kept on each side of the cursor line


@dataclass(frozen=True)
class Block:
    """The block the cursor writes into, by text rules."""

    base: int | None  # indentation (columns) of the line that opened it; None: top level
    base_text: str  # that indentation as written in the file
    opens_here: bool  # the cursor sits at the start of the block's body (after `:` / `{`)
    empty: bool  # ...and the body holds nothing yet
    closer: str | None  # the closing character of a brace block (`}`)
    closer_follows: bool  # the block's closer already exists after the cursor


@dataclass(frozen=True)
class CursorContext:
    offset: int
    eol: str  # the document's line ending, used for inserted text
    line_prefix: str  # cursor line before the cursor
    rest: str  # cursor line after the cursor (no line ending)
    prev_lines: tuple[str, ...]  # lines above the cursor line, nearest last
    next_lines: tuple[str, ...]  # lines below the cursor line, nearest first
    lex: Lexicon
    start: ScanState  # inside a string / comment at the cursor?
    spec: LanguageSpec | None
    style: IndentStyle | None
    tab_width: int
    block: Block

    @property
    def in_comment(self) -> bool:
        return self.start.comment is not None

    @property
    def in_string(self) -> bool:
        return self.start.quote is not None

    def indent_of(self, line: str) -> int:
        return columns(leading(line), self.tab_width)


def _eol(text: str, offset: int) -> str:
    """The line ending of the cursor's line, else the document's first one, else LF."""
    nl = text.find("\n", offset)
    if nl > 0:
        return "\r\n" if text[nl - 1] == "\r" else "\n"
    nl = text.find("\n")
    if nl > 0 and text[nl - 1] == "\r":
        return "\r\n"
    return "\n"


def _is_comment_type(node_type: str) -> bool:
    return "comment" in node_type


def _is_string_type(node_type: str) -> bool:
    return "string" in node_type or node_type.endswith(("char_literal", "character_literal"))


def _tree_state(pdoc: ParsedDocument, offset: int, lex: Lexicon) -> ScanState | None:
    """Inside a string or comment according to tree-sitter; None when it cannot say."""
    doc = pdoc.doc
    byte = doc.byte_at(offset)
    tree = tree_near(pdoc, byte)
    if tree is None:
        return None
    node = tree.root_node.descendant_for_byte_range(max(byte - 1, 0), byte)
    while node is not None:
        kind = node.type
        if "substitution" in kind or "interpolation" in kind:
            return ScanState()  # `${...}` / `{...}` inside a template: code
        if node.is_named and _is_comment_type(kind):
            start, end = node.start_byte, node.end_byte
            body = doc.source_bytes[start:end].decode("utf-8", "replace")
            is_line = bool(lex.line_comment) and body.startswith(lex.line_comment)
            closed = lex.block_comment is not None and body.endswith(lex.block_comment[1])
            if start < byte < end or (byte == end and (is_line or not closed)):
                return ScanState(comment="line" if is_line else "block")
        elif node.is_named and _is_string_type(kind) and node.start_byte < byte < node.end_byte:
            while node.parent is not None and _is_string_type(node.parent.type):
                node = node.parent  # the whole literal, not its content node
            head = doc.source_bytes[node.start_byte:byte].decode("utf-8", "replace")
            return ScanState(quote=_opening_quote(head, lex))
        node = node.parent
    return ScanState()


def _opening_quote(head: str, lex: Lexicon) -> str:
    """The delimiter that opened a string whose text starts with `head` (prefixes like f, r, u8)."""
    for i in range(len(head)):
        for q in lex.quotes:
            if head.startswith(q, i):
                return q
        if head[i] in "\"'`":
            return head[i]
    return '"'


def _ends_with_opener(line: str, spec: LanguageSpec | None, lex: Lexicon) -> str | None:
    """The block opener `line` ends with, if it ends in code with one; else None."""
    stripped = line.rstrip()
    openers = spec.block_openers if spec else ("{",)
    for opener in openers:
        if not stripped.endswith(opener):
            continue
        head = stripped[: len(stripped) - len(opener)]
        state = final_state(head, lex)
        if not state.in_code:
            continue
        if opener not in OPENERS and state.stack:  # `:` inside brackets is a slice / dict
            continue
        return opener
    return None


def _skippable(line: str, spec: LanguageSpec | None, lex: Lexicon) -> bool:
    """Comment lines and one-line docstrings do not make a block non-empty."""
    s = line.strip()
    if not s:
        return True
    if lex.line_comment and s.startswith(lex.line_comment):
        return True
    for q in lex.quotes:
        if len(q) == 3 and s.startswith(q) and s.endswith(q) and len(s) >= 6:
            return True
    return False


def _block(prev: tuple[str, ...], line_prefix: str, rest: str, nxt: tuple[str, ...],
           spec: LanguageSpec | None, lex: Lexicon, tab: int) -> Block:
    def indent(line: str) -> int:
        return columns(leading(line), tab)

    next_code = next((line for line in nxt if line.strip()), None)
    rest_ok = not rest.strip() or is_closers_only(rest)

    def make(opener_line: str, opener: str) -> Block:
        base = indent(opener_line)
        closer = OPENERS.get(opener)
        empty = rest.strip().startswith(closer) if closer else False
        if next_code is None or indent(next_code) <= base:
            empty = True
        follows = bool(closer) and (
            rest.strip().startswith(closer)
            or (next_code is not None and indent(next_code) == base
                and next_code.strip().startswith(closer)))
        return Block(base, leading(opener_line), True, empty, closer, follows)

    full_line = line_prefix + rest
    if rest_ok:
        opener = _ends_with_opener(line_prefix, spec, lex)
        if opener and line_prefix.strip():
            return make(line_prefix, opener)
        if not line_prefix.strip():
            above = [line for line in prev if not _skippable(line, spec, lex)]
            if above:
                opener = _ends_with_opener(above[-1], spec, lex)
                if opener and (not line_prefix or indent(line_prefix) > indent(above[-1])):
                    return make(above[-1], opener)
    cur = indent(full_line) if full_line.strip() else indent(line_prefix)
    if cur == 0:
        return Block(None, "", False, False, None, False)
    for line in reversed(prev):
        if line.strip() and indent(line) < cur:
            opener = _ends_with_opener(line, spec, lex)
            closer = OPENERS.get(opener) if opener else None
            return Block(indent(line), leading(line), False, False, closer, False)
    return Block(None, "", False, False, None, False)


def _hint_style(lines: tuple[str, ...]) -> IndentStyle | None:
    """With no indented code yet, the whitespace on blank lines (auto-indent) still tells."""
    for line in reversed(lines):
        ws = leading(line)
        if ws:
            return IndentStyle(tabs=True, width=4) if "\t" in ws else IndentStyle(False, len(ws))
    return None


def cursor_context(pdoc: ParsedDocument, offset: int) -> CursorContext:
    """What surrounds the cursor; memoized per document object, version and offset
    (the shape decision and the clean-up both ask, for the same request snapshot)."""
    key = (pdoc.doc.version, len(pdoc.doc.text), offset)
    memo = pdoc.__dict__.get("_cursor_memo")
    if memo is not None and memo[0] == key and memo[1] is pdoc.doc.text:
        return memo[2]
    ctx = _cursor_context(pdoc, offset)
    pdoc.__dict__["_cursor_memo"] = (key, pdoc.doc.text, ctx)
    return ctx


def _cursor_context(pdoc: ParsedDocument, offset: int) -> CursorContext:
    doc = pdoc.doc
    text = doc.text
    offset = max(0, min(offset, len(text)))
    line, _ = doc.position_at(offset)
    start, end = doc.line_span(line)
    offset = min(max(offset, start), end)  # an offset between \r and \n snaps to the line end
    spec = pdoc.spec
    lex = Lexicon.for_spec(spec)
    line_prefix, rest = text[start:offset], text[offset:end]
    first = max(0, line - CONTEXT_LINES)
    last = min(doc.line_count, line + 1 + CONTEXT_LINES)
    prev = tuple(doc.line_text(i) for i in range(first, line))
    nxt = tuple(doc.line_text(i) for i in range(line + 1, last))
    state = _tree_state(pdoc, offset, lex)
    if state is None or (state == ScanState() and has_error(pdoc)):
        scanned = final_state(line_prefix, lex)
        if state is None or not scanned.in_code:
            state = ScanState(quote=scanned.quote, comment=scanned.comment)
    style = (detect_style(text[max(0, offset - 12_000):offset + 4_000])
             or _hint_style((*prev, line_prefix))
             or (IndentStyle(tabs=True, width=4) if spec and spec.tab_indent else None))
    tab = style.width if style else 4
    block = _block(prev, line_prefix, rest, nxt, spec, lex, tab)
    return CursorContext(offset, _eol(text, offset), line_prefix, rest, prev, nxt, lex,
                         state, spec, style, tab, block)
