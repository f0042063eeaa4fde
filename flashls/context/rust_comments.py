"""Rust comments that are no evidence of use: doctests and plain `//` comments.

A Rust doc comment's fenced block is an example a caller would write (nom opens every
parser with `/// use nom::bytes::complete::take;` and a dozen lines using `tag`,
`alpha1`, ...): its names say what the documented item is used *with*, not what the
code at the cursor calls. Plain comments inside bodies are mostly safety notes and
explanations (anyhow's `// Safety: requires layout of *e to match ErrorImpl<E>.` above
every vtable function). The prose of `///` and `//!` docs stays evidence (`///
Constructs a `GroupingMap` ..` above the function returning one): measured on the
Rust dev pool, reading no comment at all lost that case. Read by the analysis when it
builds a node's identifier table (`analysis._add_identifiers`).
"""

from __future__ import annotations

from typing import Sequence

DOC_MARKERS = ("///", "//!")
MAX_LOOKBACK = 400  # doc rows read upwards to tell whether a row is inside a block


def _doc_text(line: str) -> str | None:
    """The text of a `///` / `//!` line after its marker, None for other lines."""
    s = line.lstrip()
    if not s.startswith(DOC_MARKERS):
        return None
    return s[3:].strip()


def _is_fence(text: str) -> bool:
    return text.startswith("```")


def open_before(lines: Sequence[str], row: int) -> bool:
    """Whether a doc block is open just above `row` (an odd number of fences in the
    doc comment rows directly above it)."""
    fences = 0
    r = row - 1
    while r >= 0 and row - r <= MAX_LOOKBACK:
        text = _doc_text(lines[r])
        if text is None:
            break
        fences += _is_fence(text)
        r -= 1
    return fences % 2 == 1


# (lines, next row, whether a doc block is open there) after the last call: the
# analysis asks node after node, and each `///` line is a node of its own, so reading
# the doc rows above every one of them again would cost a doc block's length squared
_LAST: list = [None]


def unread_rows(lines: Sequence[str], start: int, stop: int) -> set[int]:
    """The rows of start..stop-1 that are plain comments or a doctest's fences and code."""
    out: set[int] = set()
    last = _LAST[0]
    # decided at the first doc row, unless the last call ended just above
    inside = last[2] if last is not None and last[0] is lines and last[1] == start else None
    for row in range(start, stop):
        line = lines[row]
        if "//" not in line:
            inside = False  # a doc comment ends at the first other line
            continue
        text = _doc_text(line)
        if text is None:
            inside = False
            if line.lstrip().startswith("//"):
                out.add(row)  # a plain comment
            continue
        if inside is None:
            inside = open_before(lines, row)
        if _is_fence(text):
            out.add(row)
            inside = not inside
        elif inside:
            out.add(row)
    _LAST[0] = (lines, stop, inside)
    return out
