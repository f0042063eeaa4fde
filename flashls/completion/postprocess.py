"""Turn the model's raw text into a suggestion that is safe to accept.

The most common complaint about AI completion is duplicated code after accepting. Every
step here removes one way that happens, and each is a small pure function on strings so
it can be tested alone. `clean` runs them in order:

1. newlines to `\\n` (converted back to the document's line ending at the end);
   `strip_code_fence`: a chat model's ```fences
2. `strip_echo`: drop text that repeats what is before the cursor
3. single-line shape: keep the first line
4. `normalise` indentation to the file's style (tabs / spaces)
5. `cut_inline_loops`, `cut_repeats`: degenerate loops and repeated lines
6. `cut_at_following`: stop where the text starts repeating the lines below the cursor
7. `cut_at_block_end`: stop where the block the cursor is in ends (indentation / braces)
8. `splice_rest`: closing characters already after the cursor are replaced, not duplicated;
   text that repeats the rest of the line is cut
9. `balance`: close brackets and strings the suggestion opened
10. `closer_on_own_line`: a multi-line body before an auto-closed `}` ends with a newline
11. empty or whitespace-only: no suggestion
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from flashls.context.syntax import ParsedDocument

from .cursor import CursorContext, cursor_context
from .indent import leading, normalise
from .multiline import Shape
from .scan import OPENERS, Lexicon, ScanState, final_state, is_closers_only, scan

ECHO_LINES = 4  # lines above the cursor a model may echo
REPEAT_BLOCK = 8  # longest run of lines recognised as a loop
_WORD_END = re.compile(r"\w+$")
_WORD_START = re.compile(r"^\w+")
_INLINE_LOOP = re.compile(r"(.{4,40}?)\1{2,}")
_TRAILING_PUNCT = ";,"


@dataclass(frozen=True)
class Cleaned:
    text: str  # text to insert at the cursor, in the document's line endings
    replace_end: int  # document offset where the replaced range ends (== offset: pure insert)


# -- 1-3 ------------------------------------------------------------------------------
def normalise_newlines(raw: str) -> str:
    return raw.replace("\r\n", "\n").replace("\r", "\n")


def strip_echo(text: str, line_prefix: str, prev_lines: tuple[str, ...] = ()) -> str:
    """Drop a leading repeat of the cursor line (and lines above it) or of the word being typed."""
    for k in range(min(len(prev_lines), ECHO_LINES), -1, -1):
        echo = "\n".join((*prev_lines[len(prev_lines) - k:], line_prefix)) if k else line_prefix
        # the exact line (indentation included) counts from one visible character
        for variant, visible in ((echo, 1), (echo.lstrip(), 2)):
            if len(variant.strip()) >= visible and text.startswith(variant):
                return text[len(variant):]
    if line_prefix and not line_prefix.strip():
        return text.lstrip(" \t")  # the cursor already sits at the line's indentation
    overlap = _overlap(line_prefix, text)
    if overlap:
        return text[overlap:]
    word = _WORD_END.search(line_prefix)
    if word and len(word.group()) >= 2:
        lead = _WORD_START.match(text)
        if lead and lead.group().startswith(word.group()):
            return text[len(word.group()):]
    return text


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _overlap(line_prefix: str, text: str) -> int:
    """Length of the longest tail of the line (4+ visible characters, starting at a token
    boundary) that the text starts with: `return foo(a, ` + `foo(a, b)`."""
    for size in range(min(len(line_prefix), len(text)), 3, -1):
        tail = line_prefix[-size:]
        if len(tail.strip()) < 4 or not text.startswith(tail):
            continue
        before = line_prefix[-size - 1] if size < len(line_prefix) else " "
        if not (_is_word(before) and _is_word(tail[0])):
            return size
    return 0


def strip_code_fence(text: str) -> str:
    """A chat model's ```lang fence around the answer is not code to insert."""
    stripped = text.lstrip("\n")
    if not stripped.startswith("```"):
        return text
    body = stripped.split("\n", 1)[1] if "\n" in stripped else ""
    end = body.rfind("```")
    if end >= 0 and not body[end + 3:].strip():
        body = body[:end]
    return body.rstrip(" \t").removesuffix("\n")


def first_line(text: str) -> str:
    return text.split("\n", 1)[0]


# -- 5: loops and repeats ----------------------------------------------------------------
def cut_inline_loops(text: str) -> str:
    """Cut at a phrase repeated 3+ times in a row (`foo(foo(foo(`), dropping what follows.

    The phrase must hold two letters: `0, 0, 0` and `'a', 'a', 'a'` are data, not loops.
    """
    offset = 0
    for line in text.split("\n"):
        for match in _INLINE_LOOP.finditer(line[:2000]):
            unit = match.group(1)
            if sum(ch.isalpha() for ch in unit) >= 2:
                return text[: offset + match.start() + len(unit)]
        offset += len(line) + 1
    return text


def cut_repeats(text: str, line_prefix: str = "", prev_lines: tuple[str, ...] = ()) -> str:
    """Cut where a line, or a block of up to 8 lines, repeats the one right before it.

    The lines just above the cursor count too: a model that rewrites the previous line
    produces a duplicate the moment the user accepts.
    """
    lines = text.split("\n")
    above = list(prev_lines[len(prev_lines) - REPEAT_BLOCK:]) if prev_lines else []
    merged = above + [line_prefix + lines[0]] + lines[1:]
    base = len(above)
    keys = [line.rstrip() for line in merged]

    def has_text(i: int) -> bool:  # merged[i] holds suggestion text that is not blank
        return i > base or (i == base and bool(lines[0].strip()))

    for j in range(base, len(merged)):
        for k in range(1, REPEAT_BLOCK + 1):
            if j - k < 0 or j + k > len(merged):
                continue
            block = range(j, j + k)
            if not any(keys[i].strip() for i in block) or not any(has_text(i) for i in block):
                continue
            if keys[j - k:j] == keys[j:j + k]:
                return "" if j == base else "\n".join(lines[: j - base])
    return text


# -- 6-7: where the text should end ----------------------------------------------------------
def _same_line(a: str, b: str) -> bool:
    """Equal lines; indentation may differ only for substantial, non-closing lines."""
    if a.rstrip() == b.rstrip():
        return True
    sa, sb = a.strip(), b.strip()
    return sa == sb and len(sb) >= 6 and not is_closers_only(sb)


def cut_at_following(text: str, line_prefix: str, next_lines: tuple[str, ...]) -> str:
    """Cut where the text starts repeating the first non-blank line below the cursor."""
    target = next((line for line in next_lines if line.strip()), None)
    if target is None:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        full = line_prefix + line if i == 0 else line
        if full.strip() and _same_line(full, target):
            return "\n".join(lines[:i])
    return text


def _ends_with_opener(line: str, ctx: CursorContext) -> bool:
    stripped = line.rstrip()
    openers = ctx.spec.block_openers if ctx.spec else ("{",)
    return any(stripped.endswith(opener) for opener in openers)


def cut_at_block_end(text: str, ctx: CursorContext) -> str:
    """Stop where a line leaves the block the cursor is in (by indentation, or its closing brace).

    A closing line of the cursor's own block is kept when the block has no closer yet
    (or the closer sits right after the cursor, where `splice_rest` replaces it); a
    `} else {` or Python `else:` continues the block.
    """
    block = ctx.block
    if block.base is None:
        return text
    lines = text.split("\n")
    continuations = ctx.spec.continuation_keywords if ctx.spec else ()
    rest_closes = bool(block.closer) and ctx.rest.strip().startswith(block.closer or "")
    for i in range(1, len(lines)):
        line = lines[i]
        if not line.strip() or ctx.indent_of(line) > block.base:
            continue
        stripped = line.strip()
        at_base = ctx.indent_of(line) == block.base
        word = re.match(r"\w*", stripped).group()
        if at_base and word and word in continuations:
            continue
        if at_base and stripped[0] in ")]}" and block.closer:
            if _ends_with_opener(stripped, ctx):
                continue  # `} else {`
            if block.opens_here and (rest_closes or not block.closer_follows):
                return "\n".join(lines[: i + 1])
        return "\n".join(lines[:i])
    return text


def strip_trailing_whitespace(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.split("\n")).rstrip()


# -- 8-10: the junction with the text after the cursor ----------------------------------------
def _mid_word(line_prefix: str, rest: str) -> bool:
    return bool(_WORD_END.search(line_prefix)) and bool(_WORD_START.match(rest))


Splice = tuple[str, int]  # (text to insert, characters of the rest of the line it replaces)


def _same_effect(after: str, rest: str, lex: Lexicon, start: ScanState) -> bool:
    """What follows the cursor once edited (`after`) closes, and leaves open, exactly what
    the rest of the line did before: nothing closed twice, nothing left dangling."""
    a, b = final_state(after, lex, start), final_state(rest, lex, start)
    return (a.closed_outside, len(a.stack), a.quote, a.comment) == \
        (b.closed_outside, len(b.stack), b.quote, b.comment)


def _rewrites_rest(text: str, rest: str, states: list[ScanState], start: ScanState,
                   line_prefix: str, lex: Lexicon) -> Splice | None:
    """Mid-word, a one-line text that starts with the word's tail and ends like the line
    (`parseI█nt(x);` + `nt(x, 10);`) rewrites the rest of the line: replace all of it."""
    if "\n" in text or not _mid_word(line_prefix, rest):
        return None
    word = _WORD_START.match(rest).group()
    if not text.startswith(word) or text.rstrip()[-1] != rest[-1]:
        return None
    if _same_effect(text, rest, lex, start):
        return ("", 0) if text == rest else (text, len(rest))
    return None


def _ends_with_rest(text: str, rest: str, states: list[ScanState], start: ScanState,
                    line_prefix: str, lex: Lexicon) -> Splice | None:
    """The text ends with what follows the cursor.

    Closing characters (`a)` before `)`, `x);` before `);`) are replaced by the text's
    own, so the range grows; anything else (the whole rest of the line, or the tail of
    the word the cursor is in) is cut from the text, leaving a plain insertion.
    """
    mid_word = _mid_word(line_prefix, rest)
    word = _WORD_START.match(rest).group() if mid_word else ""
    body = text.rstrip(_TRAILING_PUNCT)  # `});` may replace a `})` that follows the cursor
    ends = [(text, True)] + ([(body, False)] if body != text else [])
    for end, whole in ends:
        for k in range(len(rest), 0, -1):
            piece = rest[:k]
            if not piece.strip() or not end.endswith(piece):
                continue
            if not _same_effect(text + rest[k:], rest, lex, start):
                continue
            if is_closers_only(piece):
                return ("", 0) if end == piece else (text, k)
            if whole and ((mid_word and k <= len(word))
                                or (k == len(rest) and len(rest.strip()) >= 2)):
                return text[:-k].rstrip() if k == len(rest) else text[:-k], 0
    return None


def _outside_closers(states: list[ScanState]) -> list[int]:
    """Indices just after each character that closes something opened before the text."""
    return [i for i in range(1, len(states))
            if states[i].closed_outside > states[i - 1].closed_outside]


def _consumes_closers(text: str, rest: str, states: list[ScanState], start: ScanState,
                      line_prefix: str, lex: Lexicon) -> Splice | None:
    """Only closers follow the cursor and the text closes the same things, in the same
    order, with more text in between (`n = %d\\n", n);` before `");`): replace as many of
    them as the text closes, plus a trailing `;` the text also wrote."""
    if not is_closers_only(rest):
        return None
    mine = _outside_closers(states)
    theirs = _outside_closers(scan(rest, lex, start))
    if len(mine) > len(theirs) and theirs:  # closes more than there is: stop at the last one
        text, mine = text[:mine[len(theirs) - 1]], mine[:len(theirs)]
    m = len(mine)
    if not m or [text[i - 1] for i in mine] != [rest[i - 1] for i in theirs[:m]]:
        return None
    k = theirs[m - 1]
    tail = rest[k:].strip()
    if m == len(theirs) and tail and text[mine[-1]:].rstrip().endswith(tail):
        k = len(rest)
    return ("", 0) if text == rest[:k] else (text, k)


def _repeats_rest(text: str, rest: str, states: list[ScanState], start: ScanState,
                  line_prefix: str, lex: Lexicon) -> Splice | None:
    """The text repeats the rest of the line somewhere inside: cut it there."""
    target = rest.strip()
    if len(target) < 2:
        return None
    pos = text.find(target)
    while pos >= 0:
        if _same_effect(text[:pos] + rest, rest, lex, start):
            return text[:pos].rstrip(), 0
        pos = text.find(target, pos + 1)
    return None


def splice_rest(text: str, rest: str, lex: Lexicon, start: ScanState = ScanState(),
                line_prefix: str = "") -> Splice:
    """Join the text with the rest of the cursor's line: (text, chars of `rest` replaced).

    Closing characters that already follow the cursor are replaced, never inserted twice;
    text that repeats the rest of the line is cut. A rule only applies when the edited
    line closes exactly what the original did (`_same_effect`), so the `)` of `f(a)` is
    not mistaken for the `)` after the cursor that belongs to an outer call.
    """
    rest_line = rest.rstrip()
    if not text or not rest_line:
        return text, 0
    states = scan(text, lex, start)
    for rule in (_rewrites_rest, _ends_with_rest, _consumes_closers, _repeats_rest):
        hit = rule(text, rest_line, states, start, line_prefix, lex)
        if hit is not None:
            return hit
    return text, 0


def balance(text: str, lex: Lexicon, start: ScanState = ScanState(), line_prefix: str = "",
            rest: str = "", replaced: int = 0) -> str:
    """Close strings and brackets the text opened and left open.

    Nothing is closed when the text ends with its last opener (`if (x) {`, `foo(`): that
    is a line the user goes on from, not an unfinished one. An opener on the last line is closed on that line (a dangling `,` dropped); one on an
    earlier line gets its own closing line at that line's indentation. When the rest of
    the line (`rest`, of which the text replaces `replaced` characters) already closes
    some of them, only as many are added as keep the line closing what it closed before.
    """
    final = scan(text, lex, start)[-1]
    out = text
    if final.comment == "block" and start.comment != "block" and lex.block_comment:
        out += " " + lex.block_comment[1]
    elif final.quote is not None and final.quote != start.quote:
        out += final.quote
    if not final.stack or not text[final.stack[-1][1] + 1:].strip():
        return out  # ends by opening a block / argument list: the user writes on from there
    lines = text.split("\n")
    last = len(lines) - 1
    on_last_line = True
    steps = [out]
    for opener, pos in reversed(final.stack):
        closer = OPENERS[opener]
        line_no = text.count("\n", 0, pos)
        if line_no == last and on_last_line:
            out = out.rstrip()
            if out.endswith(",") and not out.endswith(opener + ","):
                out = out[:-1]
            out += closer
        else:
            on_last_line = False
            owner = line_prefix + lines[0] if line_no == 0 else lines[line_no]
            out += "\n" + leading(owner) + closer
        steps.append(out)
    if rest.strip():
        for candidate in steps:
            if _same_effect(candidate + rest[replaced:], rest, lex, start):
                return candidate
    return out


def closer_on_own_line(text: str, rest: str, replaced: int, ctx: CursorContext) -> str:
    """`{█}` + a multi-line body: end the body with a newline so `}` lands on its own line."""
    if replaced or "\n" not in text or not is_closers_only(rest) or not text.strip():
        return text
    if rest.strip()[0] not in ")]}":
        return text
    indent = ctx.block.base_text if ctx.block.base is not None else leading(ctx.line_prefix)
    return text + "\n" + indent


# -- the pipeline ------------------------------------------------------------------------
def finish(text: str, ctx: CursorContext) -> Cleaned | None:
    """Steps 8-11 on a text already cut to length; shared with validation's shortening."""
    text = strip_trailing_whitespace(text)
    if not text.strip():
        return None
    text, replaced = splice_rest(text, ctx.rest, ctx.lex, ctx.start, ctx.line_prefix)
    text = balance(text, ctx.lex, ctx.start, ctx.line_prefix, ctx.rest.rstrip(), replaced)
    text = closer_on_own_line(text, ctx.rest, replaced, ctx)
    if not text.strip():
        return None
    return Cleaned(text.replace("\n", ctx.eol) if ctx.eol != "\n" else text, ctx.offset + replaced)


def clean_text(raw: str, ctx: CursorContext, multiline: bool) -> Cleaned | None:
    text = normalise_newlines(raw)
    if ctx.spec is not None:  # in Markdown / text a fence may be what the user wants
        text = strip_code_fence(text)
    text = strip_echo(text, ctx.line_prefix, ctx.prev_lines)
    if not multiline:
        text = first_line(text)
    text = normalise(text, ctx.style, first_line_full=ctx.line_prefix == "")
    text = cut_inline_loops(text)
    text = cut_repeats(text, ctx.line_prefix, ctx.prev_lines)
    text = cut_at_following(text, ctx.line_prefix, ctx.next_lines)
    if multiline:
        text = cut_at_block_end(text, ctx)
    return finish(text, ctx)


def clean(raw: str, pdoc: ParsedDocument, offset: int, shape: Shape) -> Cleaned | None:
    """The model's raw text → what to insert at `offset` and what it replaces; None: nothing."""
    return clean_text(raw, cursor_context(pdoc, offset), shape.multiline)
