"""Next edit cases from real edit histories: two versions of a file, diffed.

The changed runs of lines between the versions are hunks, in file order. A case
replays hunk *k* as the user's edit (hunks before it already made, and in the edit
history); the hunks after it that fall inside the editable region around the cursor
(the end of the user's edit) are the expected next edit. When no later hunk touches
the region, the case is "no edit needed" and the right answer is nothing. A later hunk
that straddles the region's edge makes the case ambiguous: it is skipped.

From a git repository (`flashls eval --next-edit`): each commit's changed files, and
only its first hunk is replayed (the commit is one burst of work). From two releases
of a package (the benchmark): every hunk of every changed file is replayed in turn.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from ..context.document import Document, too_large_or_binary
from ..context.languages import language_for
from ..nextedit.region import editable_region

MAX_FILE_CHARS = 400_000
MAX_HUNK_LINES = 40  # a larger first hunk is a rewrite, not an edit to continue


@dataclass(frozen=True)
class EditCase:
    case_id: str
    source: str  # "packaging 24.1 -> 24.2" or a commit
    path: str  # relative path, for the prompt and the report
    language_id: str
    history: tuple[str, ...]  # texts of the file, oldest first, ending before the edit
    edited: str  # the file right after the user's edit
    cursor: int  # offset in `edited`: the end of the user's edit
    expected: str  # `edited` with the expected next edit made (== edited: none needed)

    @property
    def category(self) -> str:
        return "no_edit" if self.expected == self.edited else "edit"


@dataclass(frozen=True)
class _Hunk:
    i1: int  # lines a[i1:i2] became b[j1:j2]
    i2: int
    j1: int
    j2: int


def hunks_of(a: list[str], b: list[str]) -> list[_Hunk]:
    """Changed runs of lines; a run that changes N lines into N lines is N edits (a
    diff shows a rename's signature and its first use as one hunk: two edits)."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    out: list[_Hunk] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            out.extend(_Hunk(i1 + n, i1 + n + 1, j1 + n, j1 + n + 1) for n in range(i2 - i1))
        else:
            out.append(_Hunk(i1, i2, j1, j2))
    return out


def compose(a: list[str], b: list[str], hunks: list[_Hunk], chosen: set[int]
            ) -> tuple[str, dict[int, tuple[int, int]]]:
    """The text with the `chosen` hunks made, and each hunk's line span in it."""
    out: list[str] = []
    spans: dict[int, tuple[int, int]] = {}
    pos = 0
    for index, h in enumerate(hunks):
        out.extend(a[pos:h.i1])
        lines = b[h.j1:h.j2] if index in chosen else a[h.i1:h.i2]
        spans[index] = (len(out), len(out) + len(lines))
        out.extend(lines)
        pos = h.i2
    out.extend(a[pos:])
    return "".join(out), spans


def _offset_of_line(text: str, line: int) -> int:
    pos = 0
    for _ in range(line):
        nxt = text.find("\n", pos)
        if nxt < 0:
            return len(text)
        pos = nxt + 1
    return pos


def cases_for_file(before: str, after: str, path: str, source: str, *,
                   region_lines: int, first_only: bool, history_depth: int = 3
                   ) -> Iterator[EditCase]:
    spec = language_for("", path)
    if spec is None or before == after or too_large_or_binary(before + after) or \
            len(before) > MAX_FILE_CHARS or len(after) > MAX_FILE_CHARS:
        return
    a = before.splitlines(keepends=True)
    b = after.splitlines(keepends=True)
    hunks = hunks_of(a, b)
    for k in range(len(hunks) if not first_only else min(1, len(hunks))):
        if hunks[k].j2 - hunks[k].j1 > MAX_HUNK_LINES or hunks[k].i2 - hunks[k].i1 > MAX_HUNK_LINES:
            continue
        made = set(range(k + 1))
        edited, spans = compose(a, b, hunks, made)
        first, end = spans[k]
        cursor = _offset_of_line(edited, end) - 1 if end > first else _offset_of_line(edited, first)
        cursor = max(0, min(cursor, len(edited)))
        if end > first and edited[cursor:cursor + 1] != "\n":
            cursor = min(len(edited), cursor + 1)
        region = editable_region(Document("file:///x", edited), cursor, region_lines)
        near, straddling = [], False
        for m in range(k + 1, len(hunks)):
            s, e = spans[m]
            inside = region.first <= s and (e - 1 if e > s else s) <= region.last
            touches = s <= region.last + 1 and max(e, s + 1) > region.first
            if inside:
                near.append(m)
            elif touches:
                straddling = True
        if straddling:
            continue
        expected, _ = compose(a, b, hunks, made | set(near))
        history = tuple(compose(a, b, hunks, set(range(j)))[0]
                        for j in range(max(0, k - history_depth + 1), k + 1))
        digest = hashlib.sha256(f"{source}|{path}|{k}".encode()).hexdigest()[:10]
        language_id = spec.language_ids[0] if spec.language_ids else spec.name
        yield EditCase(digest, source, path, language_id, history, edited, cursor, expected)


def cases_from_trees(old_root: str | os.PathLike, new_root: str | os.PathLike, source: str,
                     *, region_lines: int) -> list[EditCase]:
    """Every hunk of every source file that differs between two releases."""
    old_root, new_root = Path(old_root), Path(new_root)
    out: list[EditCase] = []
    for new in sorted(new_root.rglob("*")):
        rel = new.relative_to(new_root).as_posix()
        old = old_root / rel
        if not new.is_file() or not old.is_file() or language_for("", rel) is None:
            continue
        try:
            before, after = old.read_text(encoding="utf-8"), new.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        out.extend(cases_for_file(before, after, rel, source, region_lines=region_lines,
                                  first_only=False))
    return out


def _git(root: str, *args: str) -> str:
    return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True,
                          check=True, timeout=60).stdout


def cases_from_git(root: str, *, commits: int, region_lines: int,
                   allowed: callable = lambda rel: True) -> list[EditCase]:
    """The first hunk of each changed, allowed source file of the last `commits`
    non-merge commits; the commit's later hunks near it are the expected next edit."""
    try:
        shas = _git(root, "log", "--no-merges", f"-n{commits}", "--format=%H").split()
    except (subprocess.SubprocessError, OSError) as err:
        raise ValueError(f"{root} is not a git repository with history: {err}") from None
    out: list[EditCase] = []
    for sha in shas:
        try:
            names = _git(root, "diff-tree", "--no-commit-id", "--name-only", "-r",
                         "--diff-filter=M", sha).split("\n")
        except subprocess.SubprocessError:
            continue
        for rel in filter(None, names):
            if language_for("", rel) is None or not allowed(rel):
                continue
            try:
                before = _git(root, "show", f"{sha}^:{rel}")
                after = _git(root, "show", f"{sha}:{rel}")
            except subprocess.SubprocessError:
                continue
            out.extend(cases_for_file(before, after, rel, sha[:10],
                                      region_lines=region_lines, first_only=True))
    return out


def limit(cases: Iterable[EditCase], count: int) -> list[EditCase]:
    """At most `count` cases, a stable choice (by id) so reruns ask the same ones."""
    return sorted(cases, key=lambda c: c.case_id)[:count]
