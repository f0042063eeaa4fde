"""A document's lines read on demand, for code that needs a few of a big file's.

Splitting a 1.9 MB document into its 39,000 lines costs 3-10 ms, on every request
that did it: recent code's snippets of the current file read 24 lines per recent
edit. The view answers `len`, an index and a slice from the document's line index
(kept up to date by its edits, see `Document.line_span`), with `split_lines`'s lines.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate, chain
from typing import Iterator, Sequence, overload

from .document import Document


def checked_index(index: int, length: int) -> int:
    """`index` of a sequence of `length` items as a list takes it (negative from the
    end), or IndexError."""
    if index < 0:
        index += length
    if not 0 <= index < length:
        raise IndexError(index)
    return index


class DocumentLines:
    """The sequence `split_lines(doc.text)`, without splitting the text."""

    def __init__(self, doc: Document):
        self.doc = doc

    def __len__(self) -> int:
        return self.doc.line_count

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self.doc.line_text(i) for i in range(*index.indices(len(self)))]
        return self.doc.line_text(checked_index(index, len(self)))


BLOCK = 512  # lines per block of `BlockLines` (a patch copies one block or two)


class BlockLines(Sequence[str]):
    """A version's lines as blocks of about BLOCK lines, patched per edit.

    The analysis keeps every version's lines; rebuilt as one list per keystroke that
    was a copy of 15,000-39,000 references (0.5-2 ms, each a cache miss on its
    string). A patch here copies the edited block and the block list (80 entries for
    39,000 lines); the unchanged blocks are shared with the version before. Reading
    a line costs a bisection into the block ends, skipped for the last block read.
    """

    __slots__ = ("_blocks", "_ends", "_last")

    def __init__(self, blocks: Sequence[list[str]]):
        self._blocks = tuple(b for b in blocks if b)
        self._ends = list(accumulate(map(len, self._blocks)))
        self._last = (0, 0, self._blocks[0] if self._blocks else [])  # (lo, hi, block)

    @classmethod
    def of(cls, lines: Sequence[str]) -> "BlockLines":
        return cls([list(lines[k:k + BLOCK]) for k in range(0, len(lines), BLOCK)])

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def _block(self, index: int) -> tuple[int, int, list[str]]:
        k = bisect_right(self._ends, index)
        lo = self._ends[k - 1] if k else 0
        found = (lo, self._ends[k], self._blocks[k])
        self._last = found
        return found

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return list(self)[index]
            return self._range(start, stop)
        lo, hi, block = self._last
        if not lo <= index < hi:
            index = checked_index(index, len(self))
            lo, hi, block = self._block(index)
        return block[index - lo]

    def _range(self, start: int, stop: int) -> list[str]:
        out: list[str] = []
        while start < stop:
            lo, hi, block = self._block(start)
            out.extend(block[start - lo:min(stop, hi) - lo])
            start = hi
        return out

    def __iter__(self) -> Iterator[str]:
        return chain.from_iterable(self._blocks)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, BlockLines):
            return self._blocks == other._blocks or list(self) == list(other)
        if isinstance(other, (list, tuple)):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # like a list

    def patched(self, first: int, last: int, middle: list[str]) -> "BlockLines":
        """These lines with lines first..last (inclusive) replaced by `middle`."""
        b1 = bisect_right(self._ends, first)
        b2 = bisect_right(self._ends, last)
        lo1 = self._ends[b1 - 1] if b1 else 0
        lo2 = self._ends[b2 - 1] if b2 else 0
        merged = self._blocks[b1][:first - lo1] + middle + self._blocks[b2][last - lo2 + 1:]
        if len(merged) > 2 * BLOCK:  # a paste: cut into blocks again
            pieces = [merged[k:k + BLOCK] for k in range(0, len(merged), BLOCK)]
        else:
            pieces = [merged]
        return BlockLines(self._blocks[:b1] + tuple(pieces) + self._blocks[b2 + 1:])
