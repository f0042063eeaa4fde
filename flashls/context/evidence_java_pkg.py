"""Java: the package's types a file does not name yet, guessed from its siblings.

A Java file sees its package's types without imports, and a file is read as a
neighbor only when the current file names its type (`evidence_java.order_neighbors`).
A type named for the first time on the line being written has no evidence at all:
`class FixedLengthInputStream extends LeftOverInputStream {`, `new
WriteFinishedEvent(t)` in the third of three output streams, `Helpers.toString(..)`
in one more concurrent queue. Its siblings have some: the files of the package that
use much of what the current file uses (the other output streams, the other queues,
the other handlers) use it too.

Each package file's capitalized identifiers are read off its text (once per file
version, no parse); a sibling's similarity is the Jaccard share of the package's type
names both use (the current file's own type counts as used by both: the files that
use it are its collaborators). A type the current file does not name scores the
similarity-weighted share of the siblings using it, when at least MIN_FILES similar
siblings do (one file's habit is no pattern); the best MAX_GUESSES files above
MIN_SHARE are read after the named ones, within the neighbor files' room, and their
type's header is lifted to 100 x LIFT x share in the ranking (`lift`).

Supertypes (session 9): a class header's `implements ScatteringByteChannel,
GatheringByteChannel` or `extends StreamHandler` names types nowhere else in the file,
and similar siblings name them in their own headers. Each sibling's extends /
implements clauses are read with its words; the MAX_SUPER_GUESSES types most of the
similar siblings extend or implement are read besides the guesses by use, and while the
cursor is in a class header (`in_class_header`: `class X` above it, no `{` yet) their
type's header scores HEADER_SCORE.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Sequence

from cachetools import LRUCache

from .co_use import tally
from .evidence_java import type_name, used_type_counts
from .memo import word_char

MAX_GUESSES = 3  # files read for the guess (each costs an analysis on first use)
MIN_FILES = 2  # a type fewer similar siblings use is one file's habit
MIN_SIMILARITY = 0.1  # a sibling sharing less of the package's vocabulary says nothing
MIN_SHARE = 0.25  # a guess weaker than this is not read
MIN_PACKAGE = 4  # a smaller package's files are all named or not worth guessing
LIFT = 0.9  # x100 x share: a sure guess weighs like a merged name used in the anchor
MAX_SUPER_GUESSES = 3  # files read for the supertypes similar siblings extend / implement
MIN_SUPER_SHARE = 0.1  # ... when this share of them (by similarity) does
_TYPE_WORD = re.compile(r"(?<![\w$.])[A-Z][\w$]*")
# `extends A` / `implements B, C<D>` up to the body or a parameter list
_SUPERS = re.compile(r"(?<![\w$])(?:extends|implements)\s+([^{;()=]*)")
_IDS: LRUCache = LRUCache(maxsize=4096)  # (real path, stamp) -> (words, supertypes)


@dataclass(frozen=True)
class Guess:
    path: str
    share: float  # the similarity-weighted share of the siblings using its type
    supertype: float = 0.0  # ... of those extending or implementing it


def file_words(path: str, workspace) -> tuple[frozenset[str], frozenset[str]] | None:
    """(the file's capitalized words, those its extends / implements clauses name)."""
    stamp = workspace.stamp(path)
    if stamp is None:
        return None
    key = (workspace.real(path), stamp)
    hit = _IDS.get(key)
    if hit is None:
        text, _ = workspace.read_stamped(path)
        if text is None:
            return None
        hit = _IDS[key] = (type_words(text), supertypes(text))
    return hit


# the same matches as `_TYPE_WORD` and `_SUPERS`, with the look-behind tested in Python
# on each match instead of by the regex engine at every position (it cannot skip ahead
# to a literal or a class then): 2x and 10x faster over the JDK's 13 MB, which a
# package's first request reads whole (java.util.concurrent: 62 files, ~380 ms)
_CAPITALIZED = re.compile(r"[A-Z][\w$]*")
_SUPER_CLAUSES = (re.compile(r"extends\s+([^{;()=]*)"), re.compile(r"implements\s+([^{;()=]*)"))


def type_words(text: str) -> frozenset[str]:
    r"""`frozenset(_TYPE_WORD.findall(text))`. A match of `[A-Z][\w$]*` not preceded
    by `[\w$.]` is one of `_TYPE_WORD`'s; one that is covers no start of another (each
    of its characters follows a `[\w$]`)."""
    out = []
    for m in _CAPITALIZED.finditer(text):
        i = m.start()
        if i == 0 or not word_char(text[i - 1], "$."):
            out.append(m.group())
    return frozenset(out)


def supertypes(text: str) -> frozenset[str]:
    """The capitalized words of `_SUPERS`'s clauses (`extends A`, `implements B, C`).
    Each clause keyword is searched for on its own (a literal the engine skips to), at
    every occurrence: one inside an earlier clause reads a tail of that clause, whose
    words that clause has already."""
    out: set[str] = set()
    for clause in _SUPER_CLAUSES:
        m = clause.search(text)
        while m is not None:
            i = m.start()
            if i == 0 or not word_char(text[i - 1], "$"):
                out.update(_TYPE_WORD.findall(m.group(1)))
            m = clause.search(text, i + 1)
    return frozenset(out)


def same_package(path: str, resolved: Sequence[str]) -> list[str]:
    """The files of `resolved` in `path`'s directory: its package."""
    here = os.path.dirname(os.path.abspath(path))
    return [f for f in resolved if os.path.dirname(os.path.abspath(f)) == here]


def package_types(path: str, analysis, package: Sequence[str]
                  ) -> tuple[dict[str, str], frozenset[str], frozenset[str]]:
    """(type name -> its package file, the package's type names with the file's own,
    those of them the file uses, its own included)."""
    by_type = {type_name(f): f for f in package}
    own = type_name(path)
    vocabulary = frozenset(by_type) | {own}
    return by_type, vocabulary, (frozenset(used_type_counts(analysis)) & vocabulary) | {own}


def sibling_uses(mine: str, words: frozenset[str], vocabulary: frozenset[str],
                 current: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """(the package types a sibling of type `mine` names, with its own; those the
    current file does not use), from the sibling's words: what `tally` compares."""
    seen = (words & vocabulary) - {mine}
    return seen | {mine}, seen - current


def guesses(path: str, analysis, resolved: Sequence[str], named: Sequence[str],
            workspace, room: int) -> list[Guess]:
    """Package files of `resolved` that `path` does not name (not in `named`), most
    likely first: at most MAX_GUESSES by use, then MAX_SUPER_GUESSES supertypes, and at
    most `room` in all."""
    if analysis.spec.resolver != "java" or room <= 0:
        return []
    package = same_package(path, resolved)
    if len(package) < MIN_PACKAGE:
        return []
    by_type, vocabulary, current = package_types(path, analysis, package)
    skip = frozenset(workspace.real(f) for f in named)
    reads = tuple(file_words(f, workspace) for f in package)
    key = (path, tuple(package), current, skip, room)
    hit = _LAST[0]
    if hit is not None and hit[0] == key and hit[1] is workspace and \
            len(hit[2]) == len(reads) and all(a is b for a, b in zip(hit[2], reads)):
        return list(hit[3])
    out = _guessed(package, reads, by_type, vocabulary, current, skip, workspace)[:room]
    _LAST[0] = (key, workspace, reads, out)
    return list(out)


# [(key, workspace, the package files' reads, guesses)]: keystrokes in one file ask
# again with the same used types and package file versions
_LAST: list = [None]


def _guessed(package: Sequence[str], reads: Sequence, by_type: dict[str, str],
             vocabulary: frozenset[str], current: frozenset[str], skip: frozenset[str],
             workspace) -> list[Guess]:
    """`guesses` from the package files' words (`reads`, in `package`'s order)."""
    def sibling(f: str, read) -> tuple[frozenset[str], frozenset[str], frozenset[str]] | None:
        if read is None:
            return None
        words, supers = read
        mine = type_name(f)
        return (*sibling_uses(mine, words, vocabulary, current),
                (supers & vocabulary) - current - {mine})

    siblings = [s for s in map(sibling, package, reads) if s is not None]
    found = tally(current, ((seen, offered) for seen, offered, _ in siblings), MIN_SIMILARITY)
    total = found.total
    if total <= 0.0:
        return []
    share = {t: v / total for t, v in found.votes.items() if found.files[t] >= MIN_FILES}
    # a type similar siblings extend or implement that this file does not name: its
    # header is the line missing (`implements ScatteringByteChannel`, `extends
    # StreamHandler`); read besides the guesses by use (`lift` raises it in a header)
    supers = tally(current, ((seen, sup) for seen, _, sup in siblings), MIN_SIMILARITY)
    supertype = {t: v / total for t, v in supers.votes.items() if supers.files[t] >= MIN_FILES}
    out: dict[str, Guess] = {}
    for shares, limit, least in ((share, MAX_GUESSES, MIN_SHARE),
                                 (supertype, MAX_SUPER_GUESSES, MIN_SUPER_SHARE)):
        taken = 0
        for t, s in sorted(shares.items(), key=lambda ts: (-ts[1], ts[0])):
            if s < least or taken >= limit:
                break
            f = by_type[t]
            if workspace.real(f) not in skip:
                taken += 1
                out.setdefault(f, Guess(f, share.get(t, 0.0), supertype.get(t, 0.0)))
    return list(out.values())


HEADER_ROWS = 4  # lines above the cursor searched for the `class X` its header continues
HEADER_SCORE = 100.0  # a guessed supertype while the cursor is in a class header
_DECLARES = re.compile(r"(?<![\w$])(?:class|interface|enum|record)\s+[A-Za-z_$]")
_HEADER_ENDS = re.compile(r"[{};]|^\s*(?:\*|//|/\*)")


def in_class_header(lines: Sequence[str], cursor_line: int) -> bool:
    """Whether the cursor's line continues a type's header (`public abstract class
    SocketChannel` and `extends AbstractSelectableChannel` above it, no `{` yet): the
    next line names supertypes."""
    for row in range(cursor_line - 1, max(-1, cursor_line - 1 - HEADER_ROWS), -1):
        line = lines[row]
        if _DECLARES.search(line):
            return "{" not in line and ";" not in line
        if _HEADER_ENDS.search(line):
            return False
    return False


def lift(cands: list, files: Sequence, ev, header: bool = False) -> list:
    """The header of a guessed file's type, not used in the file, raised to its
    guess' weight; with the cursor in a class header (`header`), a type similar
    siblings extend or implement is raised to HEADER_SCORE."""
    shares = {k: (f.guess, f.supertype) for k, f in enumerate(files)
              if getattr(f, "guess", 0.0)}
    if not shares:
        return cands
    out = list(cands)
    for k, c in enumerate(cands):
        found = shares.get(c.file)
        if found is None:
            continue
        share, supertype = found
        score = HEADER_SCORE if header and supertype > 0.0 else \
            100 * LIFT * share if share >= MIN_SHARE else 0.0
        f = files[c.file]
        item = f.analysis.items[c.item]
        if item.parent == -1 and item.name == type_name(f.path) and \
                item.name not in ev.uses and c.score < score:
            out[k] = c.rescored(score)
    return out
