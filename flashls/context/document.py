"""Open documents: exact text sync in any LSP position encoding, plus byte edits.

LSP positions count UTF-16 (or UTF-8 / UTF-32) code units on lines split by
`\\n`, `\\r\\n` or `\\r` only; Python strings count code points and `str.splitlines`
splits on more characters. Everything that converts between the two lives here, so
no other module ever has to think about it.
"""

from __future__ import annotations

import bisect
import itertools
from array import array
import operator
import re
from dataclasses import dataclass, field
from typing import Literal

Encoding = Literal["utf-16", "utf-8", "utf-32"]

_NEWLINE = re.compile(r"\r\n|\r|\n")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_LONE_CR = re.compile(rb"\r(?!\n)")


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


def parse_bytes(text: str) -> bytes:
    """`text` in UTF-8 as tree-sitter gets it: a lone `\\r` (a line end to LSP, and to
    the editor showing the file) as `\\n`, one byte for one. tree-sitter counts rows
    at `\\n` only; this way its rows are the document's lines, and its byte offsets
    still the text's."""
    data = text.encode("utf-8", "surrogatepass")
    return _LONE_CR.sub(b"\n", data) if b"\r" in data else data


MARK_CHARS = 1 << 15  # spacing of `Document.byte_at`'s checkpoints
# an edit rebuilds the text from pieces of about this many characters: slicing a
# non-ASCII string scans every character of the slice (for its widest one), so
# `text[:s] + new + text[e:]` costs 5 ms on `lib.dom.d.ts`; joining pieces is a copy
CHUNK_CHARS = 1 << 16
EDITS_KEPT = 32  # edits a document remembers (`Document.edits`, `edit_span.since`)
# every text a Document gets draws a new number: (uri, serial) names the content
# without hashing it (2 MB per keystroke), copies share it
_SERIALS = itertools.count(1)
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


def _ints(values=()) -> array:
    """Line starts as machine integers: an edit's copies of the table are memcpy, not
    a reference count touched per line (40,000 of them per keystroke, most not in
    the cache: milliseconds on `lib.dom.d.ts` under load)."""
    return array("q", values)


def line_starts(text: str) -> array:
    if "\r" not in text:  # lengths of split lines: 5x faster than the regex on 2 MB
        lines = text.split("\n")
        lines.pop()
        # line i+1 starts after i+1 line breaks and the lengths of lines 0..i; summed
        # without a Python-level step per line (a third faster on 40,000 lines)
        return _ints([0, *map(operator.add, itertools.accumulate(map(len, lines)),
                              itertools.count(1))])
    return _ints([0] + [m.end() for m in _NEWLINE.finditer(text)])


@dataclass
class Document:
    uri: str
    text: str
    language_id: str = ""
    version: int = 0
    encoding: Encoding = "utf-16"
    _starts: array | None = field(default=None, repr=False)
    _bytes: bytes | None = field(default=None, repr=False)

    _binary: bool | None = field(default=None, repr=False)
    # `_starts[i]` is off by `_shift` from index `_shift_from` on: an edit adds its
    # length to the following line starts lazily (a list copy per keystroke on a
    # 40,000-line file otherwise); `starts` applies it when someone reads the list
    _shift_from: int = field(default=0, repr=False)
    _shift: int = field(default=0, repr=False)
    # (string offset, byte offset) every MARK_CHARS or so: `byte_at` encodes from the
    # nearest one instead of from the start of a non-ASCII text
    _marks: list[tuple[int, int]] | None = field(default=None, repr=False)
    # this text's number (new on every change, shared by copies: see `_SERIALS`)
    serial: int = field(default=0, repr=False, compare=False)
    # the last edits, oldest first: (serial before, serial after, ByteEdit); a state
    # computed from an earlier version finds what changed since (`edit_span.since`)
    edits: tuple[tuple[int, int, ByteEdit], ...] = field(default=(), repr=False,
                                                          compare=False)
    # the text as pieces (see CHUNK_CHARS) and their start offsets; None until the
    # first edit (never mutated: copies share them)
    _chunks: tuple[str, ...] | None = field(default=None, repr=False, compare=False)
    _chunk_starts: tuple[int, ...] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.serial = next(_SERIALS)
        text = self.text
        if not text.isascii():
            try:  # the usual case, and the bytes are wanted anyway
                data = text.encode("utf-8")
                self._bytes = _LONE_CR.sub(b"\n", data) if "\r" in text else data
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
    def starts(self) -> array:
        """The line starts (indexable, bisectable; never to be mutated in place)."""
        raw = self._raw_starts()
        if self._shift:
            f = self._shift_from
            raw = self._starts = raw[:f] + _ints([x + self._shift for x in raw[f:]])
            self._shift = 0
        return raw

    def _raw_starts(self) -> array:
        if self._starts is None:
            self._starts = line_starts(self.text)
            self._shift = 0
        return self._starts

    def _start(self, line: int) -> int:
        """`starts[line]`, without applying the pending shift to the whole list."""
        value = self._raw_starts()[line]
        return value + self._shift if line >= self._shift_from else value

    def _line_of(self, offset: int) -> int:
        """`bisect_right(starts, offset) - 1`, on the lazily shifted list."""
        raw = self._raw_starts()
        f = self._shift_from
        if self._shift and f < len(raw):
            if offset >= raw[f] + self._shift:
                return bisect.bisect_right(raw, offset - self._shift, f) - 1
            return bisect.bisect_right(raw, offset, 0, f) - 1
        return bisect.bisect_right(raw, offset) - 1

    @property
    def line_count(self) -> int:
        return len(self._raw_starts())

    def line_span(self, line: int) -> tuple[int, int]:
        """(start, end) offsets of a line's content, without its line break."""
        count = len(self._raw_starts())
        start = self._start(line)
        end = self._start(line + 1) if line + 1 < count else len(self.text)
        while end > start and self.text[end - 1] in "\r\n":
            end -= 1
        return start, end

    def line_text(self, line: int) -> str:
        start, end = self.line_span(line)
        return self.text[start:end]

    def known_bytes(self) -> bytes | None:
        """`source_bytes` if they were made already (None: encoding them would cost)."""
        return self._bytes

    @property
    def source_bytes(self) -> bytes:
        """The text as the parser reads it (`parse_bytes`: UTF-8, a lone `\\r` as
        `\\n`)."""
        if self._bytes is None:
            self._bytes = parse_bytes(self.text)
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
        line = self._line_of(offset)
        start = self._start(line)
        return line, units(self.text[start:offset], self.encoding)

    def byte_at(self, offset: int) -> int:
        if offset <= MARK_CHARS:
            head = self.text[:offset]
            return len(head) if head.isascii() else len(head.encode("utf-8", "surrogatepass"))
        marks = self._byte_marks()
        if marks is None:  # plain ASCII: bytes and characters coincide
            return min(offset, len(self.text))
        c, b = marks[bisect.bisect_right(marks, (offset, 1 << 62)) - 1]
        seg = self.text[c:offset]
        return b + (len(seg) if seg.isascii() else len(seg.encode("utf-8", "surrogatepass")))

    def _byte_marks(self) -> list[tuple[int, int]] | None:
        """Checkpoints for `byte_at`; None for an ASCII text."""
        if self._marks is None:
            text = self.text
            if text.isascii():
                return None
            marks, b = [], 0
            for c in range(0, len(text), MARK_CHARS):
                marks.append((c, b))
                b += len(text[c:c + MARK_CHARS].encode("utf-8", "surrogatepass"))
            self._marks = marks
        return self._marks

    def point_at(self, offset: int) -> tuple[int, int]:
        """tree-sitter (row, byte column) of a string offset."""
        line = self._line_of(offset)
        start = self._start(line)
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
        before = self.serial
        self._set_text(text)
        edit = ByteEdit(0, old_bytes, len(self.source_bytes), (0, 0), old_end,
                        self.point_at(len(text)))
        self._note_edit(before, edit)
        return edit

    def apply_change(self, start: tuple[int, int], end: tuple[int, int],
                     new_text: str) -> ByteEdit:
        """Replace the range `start`..`end` (LSP positions) with `new_text`."""
        s = self.offset_at(*start)
        e = self.offset_at(*end)
        if e < s:
            raise PositionError(f"range end {end} is before its start {start}")
        new_text = scrub(new_text)
        if s and self.text[s - 1] == "\r":  # whether that "\r" is lone may change:
            s -= 1  # its parse byte is part of the edit (`parse_bytes`)
            new_text = "\r" + new_text
        start_byte, start_point = self.byte_at(s), self.point_at(s)
        old_end_byte, old_end_point = self.byte_at(e), self.point_at(e)
        encoded = new_text.encode("utf-8", "surrogatepass")
        if b"\r" in encoded:  # as `parse_bytes`, with the character after the edit
            encoded = _LONE_CR.sub(b"\n", encoded + self.text[e:e + 1].encode(
                "utf-8", "surrogatepass"))[:len(encoded)]
        kept = self._shifted_starts(s, e, new_text)
        old_bytes = self._bytes
        marks = self._shifted_marks(s, e, len(new_text), len(encoded) - (old_end_byte - start_byte))
        binary = self._binary if self._binary is False and "\x00" not in new_text else None
        before = self.serial
        chunks = _edited_chunks(*self._text_chunks(), s, e, new_text)
        self._set_text("".join(chunks[0]))
        self._chunks, self._chunk_starts = chunks
        self._binary = binary
        self._marks = marks
        self._rescan(kept)
        if old_bytes is not None:  # splicing bytes is a copy; encoding 2 MB is 6 ms
            self._bytes = b"".join((old_bytes[:start_byte], encoded, old_bytes[old_end_byte:]))
        new_end = s + len(new_text)
        new_end_byte = start_byte + len(encoded)
        edit = ByteEdit(start_byte, old_end_byte, new_end_byte,
                        start_point, old_end_point, self.point_at(new_end))
        self._note_edit(before, edit)
        return edit

    def pieces(self) -> tuple[tuple[str, ...], tuple[int, ...]]:
        """The text as pieces and their start offsets. An edit replaces only the
        pieces it cuts: the others are the same objects in the next version (keyed
        work on them carries over, `completion.text_keys`)."""
        return self._text_chunks()

    def _text_chunks(self) -> tuple[tuple[str, ...], tuple[int, ...]]:
        if self._chunks is None:
            text = self.text
            self._chunks = tuple(text[i:i + CHUNK_CHARS] for i in range(0, len(text),
                                                                        CHUNK_CHARS))
            self._chunk_starts = tuple(range(0, len(text), CHUNK_CHARS))
        return self._chunks, self._chunk_starts

    def _note_edit(self, before: int, edit: ByteEdit) -> None:
        """Remember the edit that took the text from serial `before` to this one (a new
        tuple: copies made earlier keep theirs)."""
        self.edits = (self.edits + ((before, self.serial, edit),))[-EDITS_KEPT:]

    def _shifted_marks(self, s: int, e: int, new_chars: int, byte_delta: int):
        """The `byte_at` checkpoints after replacing s..e: kept before the edit, dropped
        inside it, shifted after it."""
        if self._marks is None:
            return None
        delta = new_chars - (e - s)
        marks = [m for m in self._marks if m[0] <= s]
        after = [(c + delta, b + byte_delta) for c, b in self._marks if c > e]
        if after and after[0][0] - marks[-1][0] > 8 * MARK_CHARS:
            return None  # a big paste: checkpoints rebuilt when next needed
        return marks + after

    def _shifted_starts(self, s: int, e: int, new_text: str):
        """Line starts outside the edited lines, kept for `_rescan` (whole-text regex
        scans cost milliseconds per keystroke on a 5,000-line file). The lines after
        the edit keep their stored values; the edit's length joins the pending shift
        (`_start`), so the list is copied but never rewritten."""
        raw = self._raw_starts()
        n = len(raw)
        first = max(self._line_of(s) - 1, 0)  # one line of margin each side
        last = min(self._line_of(e) + 2, n)  # index of the first untouched line start
        delta = len(new_text) - (e - s)
        shift, f = self._shift, self._shift_from
        if not shift:
            f = last
        if f > last:  # stored exactly up to f: bring last..f under the new shift
            middle = _ints([x - shift for x in raw[last:f]])
        else:  # lines first..f are under the old shift: apply it to those kept before
            middle = _ints()
        head = raw[:first + 1] if f > first else \
            raw[:f] + _ints([x + shift for x in raw[f:first + 1]])
        tail = middle + raw[max(last, f):] if f > last else raw[last:]
        region_end = (tail[0] + shift + delta) if tail else None
        return head, tail, shift + delta, region_end

    def _rescan(self, parts) -> None:
        head, tail, shift, region_end = parts
        region_start = head[-1]
        end = region_end if region_end is not None else len(self.text)
        found = [m.end() for m in _NEWLINE.finditer(self.text, region_start, end)]
        if tail and found and found[-1] == end:
            found.pop()
        self._starts = head + _ints(found) + tail
        self._shift_from = len(head) + len(found)
        self._shift = shift if tail else 0

    def _set_text(self, text: str) -> None:
        self.text = text
        self.serial = next(_SERIALS)
        self._starts = None
        self._shift = 0
        self._shift_from = 0
        self._marks = None
        self._bytes = None
        self._binary = None
        self._chunks = self._chunk_starts = None


def _edited_chunks(chunks: tuple[str, ...], starts: tuple[int, ...], s: int, e: int,
                   new_text: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The pieces of the text with s..e replaced by `new_text`: the pieces holding s
    and e are cut and joined around it (split again when longer than two pieces'
    worth, dropped when empty); the others are kept, their starts shifted."""
    if not chunks:
        return _pieces(new_text, 0)
    i = bisect.bisect_right(starts, s) - 1
    j = bisect.bisect_right(starts, e - 1) - 1 if e > s else i
    j = max(i, j)
    joined = chunks[i][:s - starts[i]] + new_text + chunks[j][e - starts[j]:]
    mid, mid_starts = _pieces(joined, starts[i])
    delta = len(new_text) - (e - s)
    return (chunks[:i] + mid + chunks[j + 1:],
            starts[:i] + mid_starts + tuple(x + delta for x in starts[j + 1:]))


def _pieces(text: str, at: int) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """`text` (starting at offset `at`) as one piece, or pieces of CHUNK_CHARS when
    longer than two; none when empty."""
    if not text:
        return (), ()
    if len(text) <= 2 * CHUNK_CHARS:
        return (text,), (at,)
    cuts = range(0, len(text), CHUNK_CHARS)
    return tuple(text[k:k + CHUNK_CHARS] for k in cuts), tuple(at + k for k in cuts)
