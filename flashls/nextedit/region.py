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
