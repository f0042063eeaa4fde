"""What changed in a document since an earlier version, from its edit log.

The analysis of a big document diffs the last analyzed version's bytes against the
current ones to find the edited span: a common prefix and suffix over 2 MB and the
rows before the edit counted (`bytes.count`), 1-2 ms per keystroke. The document
knows its edits (`Document.edits`); composed, they give the same span in O(edits).
The span is a superset of the bytes that differ (an edit may retype what was
there), which is all the analysis needs; it checks the bytes outside it anyway
(`holds`), which costs a memcmp.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .document import ByteEdit, Document


@dataclass(frozen=True)
class EditSpan:
    """Old bytes start..old_end became new bytes start..new_end; rows likewise (the
    document's lines of those byte offsets in the old and the new text: tree-sitter's
    rows when the text holds no "\r", which LSP also counts as a line end)."""

    start: int
    old_end: int
    new_end: int
    start_row: int
    old_end_row: int
    new_end_row: int

    @classmethod
    def of(cls, edit: ByteEdit) -> "EditSpan":
        return cls(edit.start_byte, edit.old_end_byte, edit.new_end_byte,
                   edit.start_point[0], edit.old_end_point[0], edit.new_end_point[0])

    def then(self, later: "EditSpan") -> "EditSpan":
        """This span followed by `later` (whose offsets are in the text this one made)
        as one span from this one's old text to `later`'s new one."""
        if later.start < self.start:
            start, start_row = later.start, later.start_row
        else:
            start, start_row = self.start, self.start_row
        # the end of the union in the middle text, then mapped to the old and new texts
        if self.new_end >= later.old_end:
            mid, mid_row = self.new_end, self.new_end_row
        else:
            mid, mid_row = later.old_end, later.old_end_row
        return EditSpan(start, mid + self.old_end - self.new_end,
                        mid + later.new_end - later.old_end, start_row,
                        mid_row + self.old_end_row - self.new_end_row,
                        mid_row + later.new_end_row - later.old_end_row)

    def holds(self, old: bytes, new: bytes) -> bool:
        """Whether `old` and `new` differ inside this span only."""
        if len(new) - len(old) != self.new_end - self.old_end or \
                not 0 <= self.start <= min(self.old_end, self.new_end) or \
                self.old_end > len(old) or self.new_end > len(new):
            return False
        view = memoryview(old)
        return new.startswith(view[:self.start]) and new.endswith(view[self.old_end:])


def composed(edits: Iterable[tuple[int, int, ByteEdit]], serial: int, now: int
             ) -> EditSpan | None:
    """The span from version `serial` to version `now` of a log of (serial before,
    serial after, edit), oldest first; None when the log does not reach back to it."""
    chain: list[ByteEdit] = []
    want = now
    for before, after, edit in reversed(tuple(edits)):
        if after != want:
            return None  # a gap: not this document's log
        chain.append(edit)
        want = before
        if before == serial:
            break
    else:
        return None
    span = EditSpan.of(chain[-1])
    for edit in reversed(chain[:-1]):
        span = span.then(EditSpan.of(edit))
    return span


def since(doc: Document, serial: int) -> EditSpan | None:
    """What changed in `doc` since its version numbered `serial` (None: unknown, or
    nothing when it is the current one)."""
    if serial == doc.serial:
        return None
    return composed(doc.edits, serial, doc.serial)


@dataclass(frozen=True)
class DocEdits:
    """A document version's serial and its way back to earlier ones, for the analysis
    (which remembers the serial of the version it analyzed last)."""

    doc: Document

    @property
    def serial(self) -> int:
        return self.doc.serial

    def since(self, serial: int) -> EditSpan | None:
        return since(self.doc, serial)
