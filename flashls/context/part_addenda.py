"""Entries added to a neighbor file already in the prompt go after the kept parts.

A neighbor part is its file's chosen entries in file order. When typing brings a new
name of that file, its entry lands mid-way through the part, and every prompt byte
after it misses DeepSeek's prefix cache (on the Go replay one such insertion cost
1,200-1,300 of a request's ~1,900 tokens). When the part's new text only *adds* lines
to the text the last prompt sent for that file, the old text is kept in place and the
added lines are sent as a second part of the same file after the kept parts: the
prompt's beginning stays byte-identical. Pure functions; the memory of what was sent
lives in `rank_memo`.
"""

from __future__ import annotations


def added_lines(base: str | None, text: str) -> str | None:
    """The lines of `text` that are not the lines of `base`, in `text`'s order, when
    `base`'s lines appear in `text` in the same order (entries were only added; ""
    when none were); None when a line of `base` is gone (an entry was dropped or
    changed) or nothing was sent before (`base` None or empty)."""
    if not base:
        return None
    old = base.splitlines(keepends=True)
    extra: list[str] = []
    k = 0
    for line in text.splitlines(keepends=True):
        if k < len(old) and line == old[k]:
            k += 1
        else:
            extra.append(line)
    if k < len(old):
        return None
    return "".join(extra)
