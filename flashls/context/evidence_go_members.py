"""Go: the unused methods of a type at hand are worth less when the type has many.

A variable of a type near the cursor (`c *Conn`, `u := Upgrader{}`) puts each of the
type's methods the file does not call yet at `RECEIVER_MEMBER` (45): one of them may be
called next. Which one is a guess as many ways as the type has methods, and websocket's
`Conn` (about 50), afero's file systems and viper's `Viper` (about 100) filled the budget
with them: over the Go tuning pool about six such entries were taken per request while
one request in ninety needed one. As Python's `evidence_members._size_factor`, a type of
up to SMALL_TYPE methods keeps the score, a bigger one gets (SMALL_TYPE / n) ** POWER: on
the pool (200 per project) 12 / 0.5 gave +3 -1, 12 / 1 +7 -2, 6 / 1 +10 -3, 6 / 2 +12 -2
(logrus, viper, websocket, go-cmp gained; cobra and mux lost a method of a big type), 6 / 4
the same; no such score at all lost the small types' methods (go-cmp `ByIgnore`, toml
`EnterKeyValue`, viper `Find`). Only where a variable of the type is declared in the anchor
(`evidence_go.method_score`): on `ranking`'s farther receivers too it was +4 -1 more on the
pool but lowered `replay_trace --lang go` from 0.9005 to 0.8972.

The same holds for another package's names (`module_factor`): `toml.Marshal` used, each
of the package's other exported names scored as a possible next one (`ranking.MODULE`);
above SMALL_MODULE names they get SMALL_MODULE / n (pool +5 -1 at 24; 12 +6 -5, 48 +1 -1).
"""

from __future__ import annotations

from typing import Sequence

SMALL_TYPE = 6  # methods a type may have before each unused one is worth less
POWER = 2.0

_MEMO: list = [None]  # [(known facts, {type: factor})]: one request's receivers


def size_factor(owner: str, known: Sequence) -> float:
    """1 for a type of at most SMALL_TYPE methods in the files read (`known`: their
    `evidence_go.FileFacts`), less for bigger ones."""
    hit = _MEMO[0]
    if hit is None or hit[0] is not known:
        hit = _MEMO[0] = (known, {})
    factors = hit[1]
    got = factors.get(owner)
    if got is None:
        names: set[str] = set()
        for facts in known:
            names |= facts.methods.get(owner, frozenset())
        n = len(names)
        got = factors[owner] = 1.0 if n <= SMALL_TYPE else (SMALL_TYPE / n) ** POWER
    return got


MODULE_KINDS = frozenset({"function", "type", "constant", "variable"})
SMALL_MODULE = 24  # exported names a package may have before each unused one is worth less
MODULE_POWER = 1.0
_MODULES: list = [None]  # [(files, {package: factor})]


def module_factor(files: Sequence, f_index: int) -> float:
    """1 for another package of at most SMALL_MODULE exported top-level names in the
    files read, less for a bigger one: `toml.Marshal` used, its other names."""
    hit = _MODULES[0]
    if hit is None or hit[0] is not files:
        counts: dict[str, set[str]] = {}
        for f in files:
            names = counts.setdefault(f.analysis.package or "", set())
            names.update(it.name for it in f.analysis.items
                         if it.level <= 1 and it.kind in MODULE_KINDS and it.name[:1].isupper())
        factors = {p: 1.0 if len(n) <= SMALL_MODULE else (SMALL_MODULE / len(n)) ** MODULE_POWER
                   for p, n in counts.items()}
        hit = _MODULES[0] = (files, factors)
    return hit[1].get(files[f_index].analysis.package or "", 1.0)
