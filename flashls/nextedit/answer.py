"""From the model's answer to minimal edits of the editable region.

The answer must be exactly one complete fenced code block: the rewritten region.
Anything else (prose without a block, two blocks, a block cut off, an answer far
longer than the region) is garbled and gives no edit, as does an answer equal to the
region or one that rewrites the text the user is typing. What is left is diffed
against the region, line by line and then character by character inside each
changed run, so an edit covers only what changes (and may span lines).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from .region import CURSOR, Region

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[^`]*$")


@dataclass(frozen=True)
class RegionEdit:
    """Replace region text[start:end] with `text` (region offsets)."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Verdict:
    edits: tuple[RegionEdit, ...]
    reason: str  # why there are no edits ("" when there are)


def single_block(answer: str) -> str | None:
    """The content of the one complete fenced block in `answer`, else None."""
    lines = answer.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[str] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        marker = match.group(1)
        body: list[str] = []
        i += 1
        while i < len(lines):
            stripped = lines[i].strip()
            if stripped.startswith(marker[0] * len(marker)) and not stripped.strip(marker[0]):
                break
            body.append(lines[i])
            i += 1
        if i >= len(lines):
            return None  # unterminated: cut off
        blocks.append("\n".join(body))
        i += 1
    return blocks[0] if len(blocks) == 1 else None


def minimal_edits(old: str, new: str) -> list[RegionEdit]:
    """The smallest replacements turning `old` into `new` (both "\\n" line breaks)."""
    edits = [_within(e, old) for e in _line_edits(old + "\n", new + "\n")]
    merged: list[RegionEdit] = []
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if merged and edit.start < merged[-1].end:  # overlapping: one plain edit
            return [_whole(old, new)]
        if merged and edit.start == merged[-1].end:  # touching: one edit
            last = merged.pop()
            edit = RegionEdit(last.start, edit.end, last.text + edit.text)
        merged.append(edit)
    return merged


def _whole(old: str, new: str) -> RegionEdit:
    return _trimmed(old, new, 0)


def _within(edit: RegionEdit, old: str) -> RegionEdit:
    """Edits computed with a virtual final line break, moved inside `old`."""
    if edit.end <= len(old):
        return edit
    text = edit.text[:-1] if edit.text.endswith("\n") else edit.text
    if edit.start > 0:  # a pure insert or delete at a line start: old2[start-1] is "\n"
        return RegionEdit(edit.start - 1, edit.end - 1, "\n" + text if edit.text else "")
    return RegionEdit(min(edit.start, len(old)), len(old), text)


def _line_edits(old: str, new: str) -> list[RegionEdit]:
    """Both texts end with a line break: diff whole lines, then trim each changed
    run to the characters that differ."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    a_starts = _starts(a)
    b_starts = _starts(b)
    edits = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, end = a_starts[i1], a_starts[i2]
        before, after = old[start:end], new[b_starts[j1]:b_starts[j2]]
        if tag == "replace":
            edits.extend(_token_edits(before, after, start))
        else:
            edits.append(_trimmed(before, after, start))
    return edits


_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
MAX_TOKEN_DIFF = 4000  # tokens; larger changed runs are one edit


def _token_edits(before: str, after: str, at: int) -> list[RegionEdit]:
    """A changed run of lines as word-level edits (a renamed name in two lines is two
    small edits, not one spanning both)."""
    a, b = _TOKEN.findall(before), _TOKEN.findall(after)
    if len(a) + len(b) > MAX_TOKEN_DIFF:
        return [_trimmed(before, after, at)]
    a_starts, b_starts = _starts(a), _starts(b)
    out = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            out.append(_trimmed(before[a_starts[i1]:a_starts[i2]],
                                after[b_starts[j1]:b_starts[j2]], at + a_starts[i1]))
    return out


def _trimmed(before: str, after: str, at: int) -> RegionEdit:
    """`before` (at offset `at`) becomes `after`, without their common ends."""
    lead = _prefix(before, after)
    trail = _prefix(before[lead:][::-1], after[lead:][::-1])
    return RegionEdit(at + lead, at + len(before) - trail, after[lead:len(after) - trail])


def _starts(lines: list[str]) -> list[int]:
    out, pos = [0], 0
    for line in lines:
        pos += len(line)
        out.append(pos)
    return out


def _prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def judge(answer: str, region: Region, *, cut_off: bool, max_lines: int,
          typing: tuple[int, int] | None = None) -> Verdict:
    """The edits an answer asks for, or none and why. `typing` is the span of the
    region (offsets) the user is typing; an answer that changes it gives no edit."""
    if cut_off:
        return Verdict((), "cut off at maxTokens")
    body = single_block(answer)
    if body is None:
        return Verdict((), "not exactly one complete fenced code block")
    body = body.replace(CURSOR, "")
    old = region.text.replace("\r\n", "\n").replace("\r", "\n")
    if body.count("\n") + 1 > max_lines:
        return Verdict((), "longer than the region allows")
    if body.rstrip() == old.rstrip():
        return Verdict((), "unchanged")
    # blank lines ending the region are kept: models drop or add them at will
    body = body.rstrip("\n") + "\n" * (len(old) - len(old.rstrip("\n")))
    edits = minimal_edits(old, body)
    edits = [_to_region(e, region) for e in edits]
    edits = [e for e in edits if not (e.start == e.end and not e.text)]
    if not edits:
        return Verdict((), "unchanged")
    if typing is not None and any(_touches(e, typing) for e in edits):
        return Verdict((), "rewrites the text being typed")
    return Verdict(tuple(edits), "")


def _touches(edit: RegionEdit, span: tuple[int, int]) -> bool:
    lo, hi = span
    if edit.start < edit.end:
        return edit.start < hi and edit.end > lo
    return lo < edit.start < hi


def _to_region(edit: RegionEdit, region: Region) -> RegionEdit:
    """Map an edit computed on "\\n" text back to the region's own line breaks."""
    newline = region.newline
    if newline == "\n" or newline not in region.text:
        return edit
    starts = _normalized_to_raw(region.text)
    clip = len(starts) - 1
    return RegionEdit(starts[min(edit.start, clip)], starts[min(edit.end, clip)],
                      edit.text.replace("\n", newline))


def _normalized_to_raw(text: str) -> list[int]:
    """For each offset in the "\\n"-normalized text, the offset in `text`."""
    out, i = [], 0
    while i < len(text):
        out.append(i)
        i += 2 if text.startswith("\r\n", i) else 1
    out.append(len(text))
    return out
