"""Which names the files most like the current one use: one tally for every language.

A name a file has not used yet has no evidence in that file; files that use much of
what it uses (its siblings in a package) are the evidence. Each sibling's similarity
is the Jaccard share of the vocabulary it and the current file use; the siblings at
or above a minimum similarity vote, each with its similarity, for the names it
offers. Callers turn the tally into their own weights (Go's co-use bonus, Java's
guessed files), so the raw sums are returned, not a normalized share.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class CoUse:
    votes: dict[str, float]  # name -> summed similarity of the siblings offering it
    files: dict[str, int]  # name -> how many similar siblings offer it
    total: float  # summed similarity of every similar sibling


def tally(current: frozenset[str],
          siblings: Iterable[tuple[frozenset[str], frozenset[str]]],
          min_similarity: float) -> CoUse:
    """`siblings`: per sibling, (the names compared with `current`, the names it
    offers); a sibling sharing less than `min_similarity` says nothing."""
    votes: dict[str, float] = {}
    files: dict[str, int] = {}
    total = 0.0
    for seen, offered in siblings:
        union = len(current | seen)
        sim = len(current & seen) / union if union else 0.0
        if sim < min_similarity:
            continue
        total += sim
        for name in offered:
            votes[name] = votes.get(name, 0.0) + sim
            files[name] = files.get(name, 0) + 1
    return CoUse(votes, files, total)


def share_bonuses(found: CoUse, definitions: dict[str, int], weight: float,
                  min_files: int) -> dict[str, float]:
    """Name -> weight x100 x the similarity-weighted share of the siblings offering it,
    divided by the square of how many entries define it (an overloaded name is less
    sure to be the one meant), for names offered by at least `min_files` siblings.
    Go's package co-use rule and C/C++'s directory rule both turn a tally into this."""
    if found.total <= 0.0:
        return {}
    total = found.total
    return {n: 100 * weight * v / total / definitions.get(n, 1) ** 2
            for n, v in found.votes.items() if found.files[n] >= min_files and len(n) > 1}
