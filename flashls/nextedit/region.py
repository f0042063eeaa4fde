"""The editable region: the lines around the cursor a next edit may rewrite.

A third of the region sits above the cursor and the rest below it (the edits that
follow one tend to be further down: the uses of a renamed parameter, the body of a
changed signature); at the top or bottom of the file the window shifts to keep its
size. The region is whole lines, verbatim, without the last line's line break.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from ..context.document import Document

CURSOR = "<|user_cursor|>"


@dataclass(frozen=True)
class Region:
    first: int  # first and last line (0-based, inclusive)
    last: int
    start: int  # string offsets of the region in the document
    end: int
    text: str  # document text[start:end]
    cursor: int  # cursor offset within `text`
    newline: str  # the document's line break ("\n" or "\r\n" or "\r")

    def marked(self) -> str:
        """The region with the cursor marked, line breaks as "\\n"."""
        text = self.text[:self.cursor] + CURSOR + self.text[self.cursor:]
        return text.replace("\r\n", "\n").replace("\r", "\n")


def detect_newline(text: str) -> str:
    at = text.find("\n")
    if at > 0 and text[at - 1] == "\r":
        return "\r\n"
    if at < 0 and "\r" in text:
        return "\r"
    return "\n"


def editable_region(doc: Document, offset: int, lines: int) -> Region:
    """The `lines` whole lines around `offset` (fewer in a shorter file)."""
    starts = doc.starts
    total = len(starts)
    cursor_line = bisect.bisect_right(starts, offset) - 1
    above = (lines - 1) // 3
    first = max(0, cursor_line - above)
    last = min(total - 1, first + lines - 1)
    first = max(0, last - lines + 1)
    start = starts[first]
    end = doc.line_span(last)[1]
    text = doc.text[start:end]
    return Region(first, last, start, end, text, offset - start, detect_newline(doc.text))


@dataclass(frozen=True)
class LineMap:
    """Offsets between a region and its redacted copy, which differ only inside some
    lines (a secret's value replaced by a marker). Offsets on those lines have no
    counterpart: nothing may be suggested there."""

    original: tuple[int, ...]  # line starts in the original text (+ its length)
    sent: tuple[int, ...]  # line starts in the redacted text (+ its length)
    same: tuple[bool, ...]  # line i is identical in both

    def _line(self, starts: tuple[int, ...], offset: int) -> int:
        return bisect.bisect_right(starts, offset, 0, len(starts) - 1) - 1

    def _map(self, offset: int, frm: tuple[int, ...], to: tuple[int, ...]) -> int | None:
        line = self._line(frm, offset)
        if not self.same[line]:
            return None
        return to[line] + offset - frm[line]

    def to_sent(self, offset: int) -> int | None:
        return self._map(offset, self.original, self.sent)

    def to_original(self, offset: int) -> int | None:
        return self._map(offset, self.sent, self.original)

    def clean_between(self, start: int, end: int) -> bool:
        """Every line from the one holding `start` to the one holding `end` (sent
        offsets) is identical in both texts."""
        first, last = self._line(self.sent, start), self._line(self.sent, end)
        return all(self.same[first:last + 1])


def _starts(text: str) -> tuple[int, ...]:
    out = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            out.append(i + 1)
    out.append(len(text) + 1)  # a sentinel past the end
    return tuple(out)


def line_map(original: str, sent: str) -> LineMap | None:
    """The map between `original` and its redacted copy, or None when the redaction
    changed the line structure (a multi-line secret collapsed into one marker)."""
    a, b = original.split("\n"), sent.split("\n")
    if len(a) != len(b):
        return None
    return LineMap(_starts(original), _starts(sent), tuple(x == y for x, y in zip(a, b)))
