"""The user's recent edits, coalesced into hunks and kept as unified diffs.

A next edit is predicted from what the user just did, so each open document keeps a
*pending* hunk: the text as it was when the current burst of edits began, and the
line span that burst has touched since. An edit inside or next to that span (typing
on one line, a backspace, an undo, an accepted suggestion) grows the burst; an edit
elsewhere closes it into a finished hunk (its unified diff) and starts a new one. A
burst whose net effect is nothing (typed, then undone) leaves no hunk.

Bounds: at most `max_hunks` finished hunks across all documents, each at most
`max_hunk_chars` of diff. Nothing here decides what may be sent: the caller only
records documents the "never sent" rule allows, and filters again when it builds a
prompt (settings can change in between). Diffs are redacted when rendered.
"""

from __future__ import annotations

import difflib
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Iterable

CHUNK = 4096  # characters compared at a time when looking for the changed span
CONTEXT_LINES = 2  # unchanged lines around each change in a diff
MAX_HUNKS = 10
MAX_HUNK_CHARS = 2000


@dataclass(frozen=True)
class Hunk:
    """One finished edit: where, when, and its unified diff."""

    uri: str
    path: str
    diff: str
    at: float  # monotonic time of its last keystroke


@dataclass
class _Burst:
    before: str  # the document when the burst began
    first: int  # line span the burst touched, in the current text's lines
    last: int
    at: float


@dataclass(frozen=True)
class Change:
    """One partial LSP content change: lines start..end replaced by text with
    `new_lines` line breaks. `None` for a full replacement."""

    start: int
    end: int
    new_lines: int


def common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix, in C-speed chunk comparisons."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i:i + CHUNK] == b[i:i + CHUNK]:
        i += CHUNK
    if i >= n:
        return n
    lo, hi = i, min(n, i + CHUNK)  # the first difference is in a[lo:hi]
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[i:mid] == b[i:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the longest common suffix not reaching into the first `limit` chars."""
    n = min(len(a), len(b)) - limit
    count = 0
    while count < n:
        step = min(CHUNK, n - count)
        if a[len(a) - count - step:len(a) - count] == b[len(b) - count - step:len(b) - count]:
            count += step
            continue
        lo, hi = 0, step
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if a[len(a) - count - mid:len(a) - count] == b[len(b) - count - mid:len(b) - count]:
                lo = mid
            else:
                hi = mid - 1
        return count + lo
    return max(0, n)


def changed_span(before: str, after: str) -> tuple[int, int, int]:
    """(start, before_end, after_end): `before[start:before_end]` became
    `after[start:after_end]`, and everything around it is identical."""
    start = common_prefix(before, after)
    tail = common_suffix(before, after, start)
    return start, len(before) - tail, len(after) - tail


def unified_diff(path: str, before: str, after: str,
                 context: int = CONTEXT_LINES) -> str:
    """The unified diff of one change, computed on the changed lines only (plus
    context), with line numbers as in the whole file. "" when nothing changed."""
    start, b_end, a_end = changed_span(before, after)
    if start == b_end == a_end:
        return ""
    first = _lines_back(before, start, context)
    first_line = before.count("\n", 0, first)
    b_stop = _line_end_after(before, b_end, context)
    a_stop = _line_end_after(after, a_end, context)
    old = before[first:b_stop].splitlines(keepends=True)
    new = after[first:a_stop].splitlines(keepends=True)
    lines = list(difflib.unified_diff(_terminated(old), _terminated(new),
                                      f"a/{path}", f"b/{path}", n=context, lineterm="\n"))
    return "".join(_renumber(lines, first_line))


def _terminated(lines: list[str]) -> list[str]:
    if lines and not lines[-1].endswith("\n"):
        return lines[:-1] + [lines[-1] + "\n"]
    return lines


def _lines_back(text: str, offset: int, count: int) -> int:
    """The start of the line `count` lines above the one holding `offset`."""
    pos = text.rfind("\n", 0, offset) + 1
    for _ in range(count):
        if pos == 0:
            break
        pos = text.rfind("\n", 0, pos - 1) + 1
    return pos


def _line_end_after(text: str, offset: int, extra: int) -> int:
    """The end of the line holding `offset`, plus `extra` more lines."""
    pos = offset
    for _ in range(extra + 1):
        nxt = text.find("\n", pos)
        if nxt < 0:
            return len(text)
        pos = nxt + 1
    return pos


def _renumber(lines: list[str], offset: int) -> list[str]:
    """Shift the `@@ -a,b +c,d @@` headers of a diff computed on a slice."""
    if not offset:
        return lines
    out = []
    for line in lines:
        if line.startswith("@@ "):
            head, _, rest = line[3:].partition(" @@")
            old, new = head.split(" ")
            line = f"@@ {_shift(old, offset)} {_shift(new, offset)} @@{rest}"
        out.append(line)
    return out


def _shift(part: str, offset: int) -> str:
    sign, body = part[0], part[1:]
    start, comma, count = body.partition(",")
    return f"{sign}{int(start) + offset}{comma}{count}"


@dataclass
class EditHistory:
    """Recent edits across the open documents, newest last."""

    max_hunks: int = MAX_HUNKS
    max_hunk_chars: int = MAX_HUNK_CHARS
    clock: Callable[[], float] = time.monotonic
    hunks: deque = field(default_factory=deque)
    _bursts: dict = field(default_factory=dict)  # uri -> _Burst
    _paths: dict = field(default_factory=dict)  # uri -> path shown in diffs

    def record(self, uri: str, path: str, before: str, after: str,
               change: Change | None) -> None:
        """One `didChange` of `uri`: `before` became `after`."""
        if before == after:
            return
        self._paths[uri] = path
        now = self.clock()
        burst = self._bursts.get(uri)
        if change is None:
            change = self._span_of(before, after)
        if burst is not None and change.start <= burst.last + 1 and \
                change.end >= burst.first - 1:
            delta = change.new_lines - (change.end - change.start)
            burst.last = burst.last + delta if burst.last >= change.end \
                else change.start + change.new_lines
            burst.first = min(burst.first, change.start)
            burst.at = now
            return
        if burst is not None:
            self._finish(uri, burst, before)
        self._bursts[uri] = _Burst(before, change.start, change.start + change.new_lines, now)

    @staticmethod
    def _span_of(before: str, after: str) -> Change:
        start, b_end, a_end = changed_span(before, after)
        first = before.count("\n", 0, start)
        return Change(first, before.count("\n", 0, b_end), after.count("\n", start, a_end))

    def _finish(self, uri: str, burst: _Burst, current: str) -> None:
        diff = unified_diff(self._paths.get(uri, uri), burst.before, current)
        if not diff:
            return  # typed, then undone: nothing happened
        if len(diff) > self.max_hunk_chars:
            diff = diff[:self.max_hunk_chars].rsplit("\n", 1)[0] + "\n... (diff truncated)\n"
        self.hunks.append(Hunk(uri, self._paths.get(uri, uri), diff, burst.at))
        while len(self.hunks) > self.max_hunks:
            self.hunks.popleft()

    def forget(self, uri: str) -> None:
        """The document closed (or became unsendable): its edits go."""
        self._bursts.pop(uri, None)
        self._paths.pop(uri, None)
        if any(h.uri == uri for h in self.hunks):
            self.hunks = deque(h for h in self.hunks if h.uri != uri)

    def pending(self, uri: str, current: str) -> Hunk | None:
        """The burst in progress in `uri`, as a hunk (None when there is none)."""
        burst = self._bursts.get(uri)
        if burst is None:
            return None
        diff = unified_diff(self._paths.get(uri, uri), burst.before, current)
        return Hunk(uri, self._paths.get(uri, uri), diff, burst.at) if diff else None

    def latest_span(self, uri: str, current: str) -> tuple[int, int] | None:
        """Offsets in `current` of the text the burst in progress wrote (what the
        user is typing); None when there is no burst."""
        burst = self._bursts.get(uri)
        if burst is None:
            return None
        start, _, end = changed_span(burst.before, current)
        return start, end

    def recent(self, texts: Callable[[str], str | None],
               allowed: Callable[[str], bool]) -> list[Hunk]:
        """Finished hunks plus every document's burst in progress, oldest first, of
        documents still open (`texts(uri)` is their text) and still `allowed`."""
        out = [h for h in self.hunks if texts(h.uri) is not None and allowed(h.uri)]
        for uri in list(self._bursts):
            text = texts(uri)
            if text is None:  # closed: its snapshot goes
                self._bursts.pop(uri, None)
                continue
            if not allowed(uri):
                continue
            hunk = self.pending(uri, text)
            if hunk is not None:
                out.append(hunk)
        out.sort(key=lambda h: h.at)
        return out


def bounded(hunks: Iterable[Hunk], max_chars: int) -> list[Hunk]:
    """The newest hunks whose diffs fit in `max_chars`, oldest first."""
    kept: list[Hunk] = []
    used = 0
    for hunk in reversed(list(hunks)):
        if used + len(hunk.diff) > max_chars:
            break
        kept.append(hunk)
        used += len(hunk.diff)
    return kept[::-1]
