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
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import Sequence

from cachetools import LRUCache

from .co_use import tally
from .evidence_java import type_name, used_type_counts

MAX_GUESSES = 3  # files read for the guess (each costs an analysis on first use)
MIN_FILES = 2  # a type fewer similar siblings use is one file's habit
MIN_SIMILARITY = 0.1  # a sibling sharing less of the package's vocabulary says nothing
MIN_SHARE = 0.25  # a guess weaker than this is not read
MIN_PACKAGE = 4  # a smaller package's files are all named or not worth guessing
LIFT = 0.9  # x100 x share: a sure guess weighs like a merged name used in the anchor
_TYPE_WORD = re.compile(r"(?<![\w$.])[A-Z][\w$]*")
_IDS: LRUCache = LRUCache(maxsize=4096)  # (real path, stamp) -> its capitalized words


@dataclass(frozen=True)
class Guess:
    path: str
    share: float


def _words(path: str, workspace) -> frozenset[str] | None:
    stamp = workspace.stamp(path)
    if stamp is None:
        return None
    key = (workspace.real(path), stamp)
    hit = _IDS.get(key)
    if hit is None:
        text, _ = workspace.read_stamped(path)
        if text is None:
            return None
        hit = _IDS[key] = frozenset(_TYPE_WORD.findall(text))
    return hit


def guesses(path: str, analysis, resolved: Sequence[str], named: Sequence[str],
            workspace, room: int) -> list[Guess]:
    """Package files of `resolved` that `path` does not name (not in `named`), most
    likely first, at most min(room, MAX_GUESSES)."""
    room = min(room, MAX_GUESSES)
    if analysis.spec.resolver != "java" or room <= 0:
        return []
    here = os.path.dirname(os.path.abspath(path))
    package = [f for f in resolved if os.path.dirname(os.path.abspath(f)) == here]
    if len(package) < MIN_PACKAGE:
        return []
    by_type = {type_name(f): f for f in package}
    own = type_name(path)
    vocabulary = frozenset(by_type) | {own}
    current = (frozenset(used_type_counts(analysis)) & vocabulary) | {own}
    skip = {workspace.real(f) for f in named}
    def sibling(f: str) -> tuple[frozenset[str], frozenset[str]] | None:
        words = _words(f, workspace)
        if words is None:
            return None
        mine = type_name(f)
        seen = (words & vocabulary) - {mine}
        return seen | {mine}, seen - current

    found = tally(current, (s for s in map(sibling, package) if s is not None),
                  MIN_SIMILARITY)
    total = found.total
    if total <= 0.0:
        return []
    ranked = sorted(((s / total, t) for t, s in found.votes.items()
                     if found.files[t] >= MIN_FILES and s / total >= MIN_SHARE),
                    key=lambda st: (-st[0], st[1]))
    out = []
    for share, t in ranked:
        f = by_type[t]
        if workspace.real(f) not in skip:
            out.append(Guess(f, share))
        if len(out) >= room:
            break
    return out


def lift(cands: list, files: Sequence, ev) -> list:
    """The header of a guessed file's type, not used in the file, raised to its
    guess' weight."""
    shares = {k: f.guess for k, f in enumerate(files) if getattr(f, "guess", 0.0)}
    if not shares:
        return cands
    out = list(cands)
    for k, c in enumerate(cands):
        share = shares.get(c.file)
        if share is None:
            continue
        f = files[c.file]
        item = f.analysis.items[c.item]
        if item.parent == -1 and item.name == type_name(f.path) and \
                item.name not in ev.uses and c.score < 100 * LIFT * share:
            out[k] = replace(c, score=100 * LIFT * share)
    return out
