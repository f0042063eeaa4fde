"""Tier 1: the text around the cursor, trimmed by whole lines.

* The prefix gets most of the window budget (`PREFIX_SHARE`), the suffix the rest;
  what the suffix leaves unused goes to the prefix, never the other way round (the
  suffix follows the prompt in FIM, so it is never a prefix-cache hit while typing).
* The window's first line moves in large, deterministic steps: it is the earliest
  *anchor* whose text up to the cursor fits. Anchors are, per `GRID`-line cell, its
  first line and the first top-level definition starting in it. While the
  user types, the window start (and so the bytes DeepSeek's prefix cache has seen)
  stays put until the prefix no longer fits, then jumps a whole cell.
* The suffix ends with the definition around the cursor (its closing line, or its last
  line before the next statement at its level: `definition_end`, read off the text's
  indentation, so a half-typed line does not move it) when that end fits: what
  follows the definition is the next one, which the outline can show, and every
  suffix token misses the prefix cache on every request. Otherwise (a long
  definition, none around the cursor) the end snaps to a grid counted from the end
  of the file, so the window's line range (which the outline excludes) does not
  change with every keystroke either, nor with the lines typed above it.
* The headers of the scopes enclosing the cursor (class, function, and block
  signatures) are kept above the window even when their bodies are cut, each followed
  by an elision comment when lines are skipped after it.
"""

from __future__ import annotations

import bisect
import math
from functools import lru_cache
from dataclasses import dataclass
from typing import Sequence

from .languages import LanguageSpec
from .memo import LINE_MEMO_SIZE
from .secrets import clean_split
from .tokens import estimate_tokens

GRID = 32  # lines per anchor cell
SUFFIX_GRID = 8
PREFIX_SHARE = 0.85  # the suffix follows the prompt in FIM: it bounds prefix-cache hits
QUANTUM_DIVISOR = 8  # leftovers handed across sides in steps of budget / 8
CLOSERS = "})]"  # a line starting with one of these closes the definition above it


@dataclass(frozen=True)
class Window:
    prefix: str  # redacted, ends exactly at the cursor
    suffix: str  # redacted, starts exactly at the cursor
    start_line: int  # first line of the contiguous window (headers come before it)
    end_line: int  # last line of the window (inclusive)
    header_lines: tuple[int, ...]  # scope header lines shown above start_line
    tokens: int  # estimate of prefix + suffix
    # the last line the other tiers leave out as the window's: the grid's, also when
    # the suffix ends before it with its definition (whose end a half-typed line can
    # hide from the parse for a keystroke: the outline must not change with it)
    range_end: int = -1


@lru_cache(maxsize=LINE_MEMO_SIZE)
def _line_cost(line: str) -> int:
    return estimate_tokens(line + "\n")


def _quantize_up(value: int, quantum: int) -> int:
    return int(math.ceil(value / quantum) * quantum) if quantum > 0 else value


def anchors(cursor_line: int, top_level_starts: Sequence[int], earliest: int = 0) -> list[int]:
    """Candidate window starts from `earliest` to the cursor line, ascending: each
    cell's first line, and the first top-level definition starting in the cell
    (`top_level_starts` ascending). Only the cells from `earliest`'s on are looked at:
    the window never reaches above it (a big file has thousands of cells)."""
    first_cell = max(0, earliest) // GRID
    lo = bisect.bisect_left(top_level_starts, first_cell * GRID)
    hi = bisect.bisect_right(top_level_starts, cursor_line)
    firsts: dict[int, int] = {}
    for start in top_level_starts[lo:hi]:
        if 0 <= start <= cursor_line:
            cell = start // GRID
            if cell not in firsts or start < firsts[cell]:
                firsts[cell] = start
    cells = range(first_cell, cursor_line // GRID + 1)
    out = sorted({cell * GRID for cell in cells} | set(firsts.values()))
    return [a for a in out if earliest <= a <= cursor_line] + (
        [cursor_line] if cursor_line not in out else [])


def _header_block(spec: LanguageSpec, lines: Sequence[str], scopes: Sequence[tuple[int, int]],
                  start: int) -> tuple[list[str], list[int]]:
    """Header lines of the scopes that begin above `start`, with elisions for gaps."""
    shown: list[str] = []
    rows: list[int] = []
    outer = [(s, min(e, start - 1)) for s, e in scopes if s < start]
    for i, (s, e) in enumerate(outer):
        if rows and s <= rows[-1]:
            s = rows[-1] + 1
        for row in range(s, e + 1):
            shown.append(lines[row])
            rows.append(row)
        following = outer[i + 1][0] if i + 1 < len(outer) else start
        if rows and following > rows[-1] + 1:
            indent_src = lines[following] if following < len(lines) else ""
            if not indent_src.strip() or following == start:
                indent_src = next((lines[r] for r in range(rows[-1] + 1, min(following,
                                   rows[-1] + 8)) if lines[r].strip()), lines[rows[-1]])
            indent = indent_src[: len(indent_src) - len(indent_src.lstrip())]
            if len(indent) <= len(lines[rows[-1]]) - len(lines[rows[-1]].lstrip()):
                head = lines[rows[-1]]
                indent = head[: len(head) - len(head.lstrip())] + "    "
            shown.append(f"{indent}{spec.line_comment} ...")
    return shown, rows


def build_window(lines: Sequence[str], cursor_line: int, cursor_col: int, budget: int, *,
                 spec: LanguageSpec | None = None,
                 scopes: Sequence[tuple[int, int]] = (),
                 top_level_starts: Sequence[int] = (),
                 text: str | None = None, offset: int | None = None,
                 starts: Sequence[int] | None = None,
                 definition_indent: int | None = None,
                 suffix_cap: int | None = None) -> Window:
    """The cursor window within `budget` tokens.

    `lines` are the document's lines, `cursor_col` a str index into the cursor's line,
    `scopes` (start, header_end) of enclosing scopes outermost first. With the
    document's `text` and the cursor's str `offset` (and, when the text has `\r`, its
    line `starts`), the prefix and suffix are cut from the text itself: byte-identical
    to the document (line endings, blank lines) apart from redacted secrets.
    `definition_indent`: the indentation (characters) of the first line of the
    definition around the cursor, whose end may end the suffix (`definition_end`).
    `suffix_cap`: at most this many tokens for the suffix (`suffix_hold`).
    """
    budget = max(0, budget)
    n = len(lines)
    cursor_line = max(0, min(cursor_line, n - 1))
    current = lines[cursor_line]
    head, tail = current[:cursor_col], current[cursor_col:]
    quantum = max(1, budget // QUANTUM_DIVISOR)
    prefix_budget = int(budget * PREFIX_SHARE)
    suffix_budget = budget - prefix_budget

    # suffix first: when it reaches the end of the file its leftover goes to the prefix
    # a capped suffix is not snapped: the outline excludes the uncapped window's lines
    end, suffix_used, range_end = _suffix_end(
        lines, cursor_line, tail, suffix_budget if suffix_cap is None
        else max(0, min(suffix_budget, suffix_cap)), definition_indent, snap=suffix_cap is None)
    if end == n - 1:
        prefix_budget = budget - min(suffix_budget, _quantize_up(suffix_used, quantum))
    start, prefix_rows, headers = _prefix_start(spec, lines, cursor_line, head, scopes,
                                                top_level_starts, prefix_budget)
    # When the whole top fits, the spare is *not* handed to the suffix: text after the
    # cursor never hits DeepSeek's prefix cache while the user types, so a larger suffix
    # costs full price on every request; the window reservation gives it to recent code.
    if text is not None and offset is not None:
        first, last = _text_span(text, lines, cursor_line, offset, head, tail, start, end,
                                 starts)
        eol = "\r\n" if "\r\n" in text[max(0, first - 2):last + 2] else "\n"
        prefix_text = "".join(h + eol for h in headers) + text[first:offset]
        suffix_text = text[offset:last]
    else:
        prefix_text = _join(headers + list(lines[start:cursor_line])) + head
        suffix_text = tail + "".join("\n" + line for line in lines[cursor_line + 1:end + 1])
    # redacted as one text: a secret the cursor cuts in two is still recognised; blank
    # lines are kept as they are (the model completes the file as it is laid out)
    prefix, suffix = clean_split(prefix_text, suffix_text, collapse=False)
    prefix_used = estimate_tokens(prefix)
    suffix_used = estimate_tokens(suffix)
    # trimming by lines could only overshoot through the pathological cursor line
    while prefix_used + suffix_used > budget and suffix:
        cut = suffix.rfind("\n")
        suffix = suffix[:cut] if cut > 0 else ""
        end = max(cursor_line, end - 1)
        suffix_used = estimate_tokens(suffix)
    if prefix_used + suffix_used > budget:
        prefix = _fit_tail_chars(prefix, budget - suffix_used)
        prefix_used = estimate_tokens(prefix)
    return Window(prefix, suffix, start, end, tuple(prefix_rows), prefix_used + suffix_used,
                  max(end, range_end))


def _text_span(text: str, lines: Sequence[str], cursor_line: int, offset: int, head: str,
               tail: str, start: int, end: int, starts: Sequence[int] | None
               ) -> tuple[int, int]:
    """str offsets of the window's first character and of the end of its last line
    (before that line's break)."""
    if starts is not None:
        first = starts[start]
        if end + 1 < len(starts):
            last = starts[end + 1]
            last -= 2 if text.startswith("\r\n", last - 2) else 1
        else:
            last = len(text)
        return first, last
    # "\n" only: every line break is one character
    first = offset - len(head) - sum(len(lines[r]) + 1 for r in range(start, cursor_line))
    last = offset + len(tail) + sum(len(lines[r]) + 1 for r in range(cursor_line + 1, end + 1))
    return first, last


def _join(rows: Sequence[str]) -> str:
    return "".join(line + "\n" for line in rows)


def _fit_tail_chars(text: str, budget: int) -> str:
    """Last resort for one enormous line: keep its end (the part next to the cursor)."""
    if budget <= 0:
        return ""
    lo, hi = 0, len(text)
    while lo < hi:  # smallest cut whose remainder fits
        mid = (lo + hi) // 2
        if estimate_tokens(text[mid:]) <= budget:
            hi = mid
        else:
            lo = mid + 1
    return text[lo:]


def _prefix_start(spec: LanguageSpec | None, lines: Sequence[str], cursor_line: int,
                  head: str, scopes: Sequence[tuple[int, int]],
                  top_level_starts: Sequence[int], budget: int
                  ) -> tuple[int, list[int], list[str]]:
    head_cost = estimate_tokens(head) if head else 0
    # cumulative cost of lines [row, cursor_line) going up, until over budget
    cost_from: dict[int, int] = {cursor_line: head_cost}
    used = head_cost
    row = cursor_line
    while row > 0:
        used += _line_cost(lines[row - 1])
        if used > budget:
            break
        row -= 1
        cost_from[row] = used
    earliest = row
    candidates = anchors(cursor_line, top_level_starts, earliest)
    for anchor in candidates[bisect.bisect_left(candidates, earliest):]:
        if spec is None or not scopes:
            return anchor, [], []
        headers, rows = _header_block(spec, lines, scopes, anchor)
        header_cost = estimate_tokens(_join(headers)) if headers else 0
        if cost_from[anchor] + header_cost <= budget:
            return anchor, rows, headers
    # not even the cursor line with its headers fits: drop the headers
    return cursor_line, [], []


def definition_end(lines: Sequence[str], cursor_line: int, indent: int, last: int
                   ) -> int | None:
    """The last line of the definition whose first line is indented `indent` and which
    holds the cursor, looked for up to row `last`: the first non-blank line after the
    cursor's indented no deeper closes it (that line, when it starts with a closing
    bracket: `}`; else the non-blank line before it: Python's next `def`). None when
    it ends after `last`. Read off the text, not the tree: the parse of a half-typed
    line may end a function early or run it to the end of the file."""
    for row in range(cursor_line + 1, min(last, len(lines) - 1) + 1):
        line = lines[row]
        stripped = line.lstrip()
        if not stripped or len(line) - len(stripped) > indent:
            continue
        if stripped[0] in CLOSERS:
            return row
        while row - 1 > cursor_line and not lines[row - 1].strip():
            row -= 1
        return row - 1
    return None


def _suffix_end(lines: Sequence[str], cursor_line: int, tail: str, budget: int,
                definition_indent: int | None = None, snap: bool = True
                ) -> tuple[int, int, int]:
    """Last line of the suffix (inclusive), its cost, and the last line that fits
    snapped to the grid: the suffix ends there too unless the definition around the
    cursor ends before it."""
    n = len(lines)
    used = estimate_tokens(tail) if tail else 0
    last_fit = cursor_line
    costs = {cursor_line: used}
    row = cursor_line
    while row + 1 < n:
        extra = _line_cost(lines[row + 1])
        if used + extra > budget:
            break
        used += extra
        row += 1
        costs[row] = used
    last_fit = row
    if last_fit == n - 1:
        return last_fit, costs[last_fit], last_fit
    snapped = _snapped(n, cursor_line, last_fit, (SUFFIX_GRID, 4, 1) if snap else (1,))
    if definition_indent is not None:
        closing = definition_end(lines, cursor_line, definition_indent, last_fit)
        if closing is not None:
            return closing, costs[closing], snapped
    return snapped, costs[snapped], snapped


def _snapped(n: int, cursor_line: int, last_fit: int, grids: Sequence[int]) -> int:
    """`last_fit` snapped down to the first of `grids` that keeps it at or below the
    cursor line. The grid counts from the end of the file: lines typed at the cursor
    move every line below it, and a grid counted from the top moved the suffix's end
    (and the window's size) by a cell every `grid` lines typed."""
    for grid in grids:
        snapped = n - 1 - -(-(n - 1 - last_fit) // grid) * grid
        if snapped >= cursor_line:
            return snapped
    return cursor_line
