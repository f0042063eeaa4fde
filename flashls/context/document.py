"""Open documents: exact text sync in any LSP position encoding, plus byte edits.

LSP positions count UTF-16 (or UTF-8 / UTF-32) code units on lines split by
`\\n`, `\\r\\n` or `\\r` only; Python strings count code points and `str.splitlines`
splits on more characters. Everything that converts between the two lives here, so
no other module ever has to think about it.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import re
from dataclasses import dataclass, field
from typing import Literal

Encoding = Literal["utf-16", "utf-8", "utf-32"]

_NEWLINE = re.compile(r"\r\n|\r|\n")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub(text: str) -> str:
    """Lone surrogates (half an emoji escaped in the client's JSON) cannot be encoded as
    UTF-8 for tree-sitter or the API; U+FFFD has the same width in every encoding, so
    positions stay exact."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")  # 3x faster than the regex when there is nothing to fix
        return text
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text)


MAX_SENDABLE_CHARS = 5_000_000  # larger documents are tracked but never sent


def too_large_or_binary(text: str) -> bool:
    """Documents flashls keeps in sync but never sends (nor completes or rewrites in)."""
    return len(text) > MAX_SENDABLE_CHARS or "\x00" in text


class PositionError(ValueError):
    """A position that does not exist in the document (reported, never applied)."""


@dataclass(frozen=True)
class ByteEdit:
    """One text change in tree-sitter's terms (bytes and (row, byte-column) points)."""

    start_byte: int
    old_end_byte: int
    new_end_byte: int
    start_point: tuple[int, int]
    old_end_point: tuple[int, int]
    new_end_point: tuple[int, int]


def units(text: str, encoding: Encoding) -> int:
    """Length of `text` in the encoding's code units."""
    if encoding == "utf-32" or text.isascii():
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def line_starts(text: str) -> list[int]:
    if "\r" not in text:  # lengths of split lines: 5x faster than the regex on 2 MB
        lines = text.split("\n")
        lines.pop()
        # line i+1 starts after i+1 line breaks and the lengths of lines 0..i; summed
        # without a Python-level step per line (a third faster on 40,000 lines)
        return [0, *map(operator.add, itertools.accumulate(map(len, lines)),
                        itertools.count(1))]
    return [0] + [m.end() for m in _NEWLINE.finditer(text)]


@dataclass
class Document:
    uri: str
    text: str
    language_id: str = ""
    version: int = 0
    encoding: Encoding = "utf-16"
    _starts: list[int] | None = field(default=None, repr=False)
    _bytes: bytes | None = field(default=None, repr=False)

    _binary: bool | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        text = self.text
        if not text.isascii():
            try:  # the usual case, and the bytes are wanted anyway
                self._bytes = text.encode("utf-8")
            except UnicodeEncodeError:  # lone surrogates: replace them
                self.text = scrub(text)

    def too_large_or_binary(self) -> bool:
        """`too_large_or_binary(self.text)`, kept across edits (a NUL search over
        2 MB costs 10 ms, per request)."""
        if self._binary is None:
            self._binary = "\x00" in self.text
        return len(self.text) > MAX_SENDABLE_CHARS or self._binary

    # -- lines -------------------------------------------------------------
    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = line_starts(self.text)
        return self._starts

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_span(self, line: int) -> tuple[int, int]:
        """(start, end) offsets of a line's content, without its line break."""
        starts = self.starts
        start = starts[line]
        end = starts[line + 1] if line + 1 < len(starts) else len(self.text)
        while end > start and self.text[end - 1] in "\r\n":
            end -= 1
        return start, end

    def line_text(self, line: int) -> str:
        start, end = self.line_span(line)
        return self.text[start:end]

    @property
    def source_bytes(self) -> bytes:
        if self._bytes is None:
            self._bytes = self.text.encode("utf-8", "surrogatepass")
        return self._bytes

    # -- positions ---------------------------------------------------------
    def offset_at(self, line: int, character: int, *, strict: bool = False) -> int:
        """String offset of an LSP position.

        Lenient by default, as the LSP spec asks: a character past the line's end
        means the end of the line, a line past the end means the end of the text.
        A position inside a surrogate pair (UTF-16) or a multi-byte character
        (UTF-8) snaps to the character's start. `strict` raises instead.
        """
        if line < 0 or character < 0:
            raise PositionError(f"negative position {line}:{character}")
        if line >= self.line_count:
            if strict:
                raise PositionError(f"line {line} is past the end ({self.line_count} lines)")
            return len(self.text)
        start, end = self.line_span(line)
        content = self.text[start:end]
        if content.isascii() or self.encoding == "utf-32":
            if character > len(content) and strict:
                raise PositionError(f"character {character} is past the end of line {line}")
            return start + min(character, len(content))
        counted = 0
        for index, ch in enumerate(content):
            width = units(ch, self.encoding)
            if counted + width > character:
                if counted != character and strict:
                    raise PositionError(f"character {character} splits a code point")
                return start + index
            counted += width
        if counted < character and strict:
            raise PositionError(f"character {character} is past the end of line {line}")
        return end

    def position_at(self, offset: int) -> tuple[int, int]:
        """LSP (line, character) of a string offset."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        return line, units(self.text[start:offset], self.encoding)

    def byte_at(self, offset: int) -> int:
        head = self.text[:offset]
        return len(head) if head.isascii() else len(head.encode("utf-8", "surrogatepass"))

    def point_at(self, offset: int) -> tuple[int, int]:
        """tree-sitter (row, byte column) of a string offset."""
        line = bisect.bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        return line, len(self.text[start:offset].encode("utf-8", "surrogatepass"))

    def copy(self) -> "Document":
        """The same version, without scrubbing the text again (a regex pass over the
        whole text when it is not ASCII). The line index and bytes are never mutated
        in place, only replaced: the copy shares them."""
        copy = Document.__new__(Document)
        copy.__dict__.update(self.__dict__)
        return copy

    # -- edits -------------------------------------------------------------
    def replace_all(self, text: str) -> ByteEdit:
        text = scrub(text)
        old_end = (len(self.starts) - 1, self.point_at(len(self.text))[1])
        old_bytes = len(self.source_bytes)
        self._set_text(text)
        return ByteEdit(0, old_bytes, len(self.source_bytes), (0, 0), old_end,
                        self.point_at(len(text)))

    def apply_change(self, start: tuple[int, int], end: tuple[int, int],
                     new_text: str) -> ByteEdit:
        """Replace the range `start`..`end` (LSP positions) with `new_text`."""
        s = self.offset_at(*start)
        e = self.offset_at(*end)
        if e < s:
            raise PositionError(f"range end {end} is before its start {start}")
        start_byte, start_point = self.byte_at(s), self.point_at(s)
        old_end_byte, old_end_point = self.byte_at(e), self.point_at(e)
        new_text = scrub(new_text)
        kept = self._shifted_starts(s, e, new_text)
        old_bytes = self._bytes
        binary = self._binary if self._binary is False and "\x00" not in new_text else None
        self._set_text(self.text[:s] + new_text + self.text[e:])
        self._binary = binary
        self._starts = self._rescan(kept)
        if old_bytes is not None:  # splicing bytes is a copy; encoding 2 MB is 6 ms
            self._bytes = (old_bytes[:start_byte] + new_text.encode("utf-8", "surrogatepass")
                           + old_bytes[old_end_byte:])
        new_end = s + len(new_text)
        return ByteEdit(start_byte, old_end_byte, self.byte_at(new_end),
                        start_point, old_end_point, self.point_at(new_end))

    def _shifted_starts(self, s: int, e: int, new_text: str):
        """Line starts outside the edited lines, kept for `_rescan` (whole-text regex
        scans cost milliseconds per keystroke on a 5,000-line file)."""
        old = self.starts
        first = max(bisect.bisect_right(old, s) - 2, 0)  # one line of margin each side
        last = bisect.bisect_right(old, e) + 1  # index of the first untouched line start
        delta = len(new_text) - (e - s)
        head = old[:first + 1]
        tail = [x + delta for x in old[last:]] if last < len(old) else []
        return head, tail

    def _rescan(self, parts) -> list[int]:
        head, tail = parts
        region_start = head[-1]
        region_end = tail[0] if tail else len(self.text)
        found = [m.end() for m in _NEWLINE.finditer(self.text, region_start, region_end)]
        if tail and found and found[-1] == region_end:
            found.pop()
        return head + found + tail

    def _set_text(self, text: str) -> None:
        self.text = text
        self._starts = None
        self._bytes = None
        self._binary = None
