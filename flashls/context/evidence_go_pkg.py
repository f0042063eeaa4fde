"""Go: what files like this one use from the package.

A Go package is every file of its directory, and no import line names what a file
takes from its siblings: a same-package function or method used for the first time
in a file has no evidence in that file at all. Its siblings have some. Files of one
package that use much of the same package vocabulary as the current file (the other
`*_test.go` files of a test, the other `int8.go`, `uint16.go`, ... of a family of
flag types, the other handlers of a router) tend to need the same names next:
the test helpers the other tests call, the one internal method every flag type
calls, the option the other routers set.

The similarity of two files is the Jaccard share of the package's names (the names
the neighbor files and the current file define) that both use; a name the current
file does not use yet gets a bonus in proportion to the similarity-weighted share of
the sibling files that use it without defining it (in a test file at least MIN_FILES
of them: one test's habit is no pattern; in package code one is enough, since callers of
an unexported helper are few), divided by the square of the number of entries defining
it (`Name`, `Type`, `Values` on seven receiver types are as often `reflect`'s as the
package's; `getFlagType` is defined once). Only names of this package's files count
(another package's vocabulary is not the current file's); the bonus goes to entries
without a use in the file (the others have evidence of their own).

Measured on the Go dev half (`benchmarks.real_context`): no task changed at weights
0.6-1.3 (1.3 won mux's `StrictSlash` and lost go-cmp's `FormatDiff`); without the
divisor, go-cmp's generic method names lost a task. Dev has few packages of that
shape (one type's hundreds of methods spread over a file per variant, as in a flag
library with a file per flag type); kept at 1.0 as general evidence, with the Go
replay's cache hit unchanged.

One sibling is enough outside test files (session 14): on the Go tuning pool (200 per
project) +7 -0 (websocket `newConn`, `computeAcceptKey`; viper `Logger`,
`ConfigFileNotFoundError` x2; cobra `Usage`; go-cmp `emitType`), dev -1 (go-cmp
`FormatDiff`, a tie at the cut that weight changes have moved before), test unchanged.
Everywhere (test files too) it was +12 -10, the losses in viper's big `viper_test.go`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .analysis import _ident_counts
from .co_use import share_bonuses, tally
from .memo import ForLastNeighbors, PerAnalysis
from .unused_lift import lift_unused

CO_USED = 1.0  # x100: the bonus for a name every similar sibling uses
MIN_SIMILARITY = 0.05  # a sibling sharing less of the vocabulary says nothing
MIN_FILES = 2  # a name used by fewer similar siblings is one file's habit
MIN_FILES_NOT_TEST = 1  # ... unless the current file is not a test (it imports no "testing")
KINDS = frozenset({"function", "method", "type", "constant", "variable"})


def _used(analysis) -> frozenset[str]:
    counts = analysis.ident_counts
    if counts is None:
        counts = _ident_counts(analysis.usages)
    return frozenset(counts)


def _defined(analysis) -> frozenset[str]:
    return frozenset(it.name for it in analysis.items if it.name and it.kind != "import")


used_names: PerAnalysis[frozenset[str]] = PerAnalysis(_used)
defined_names: PerAnalysis[frozenset[str]] = PerAnalysis(_defined)


@dataclass(frozen=True)
class Siblings:
    """The neighbor files of the current file's package, by what they use of it."""

    vocabulary: frozenset[str]  # names the package's neighbor files define
    definitions: dict[str, int]  # name -> how many neighbor entries define it
    uses: tuple[frozenset[str], ...]  # per sibling: package names it uses, not defines
    seen: tuple[frozenset[str], ...]  # per sibling: package names it uses at all
    idents: tuple[frozenset[str], ...]  # per sibling: every identifier it uses


def _siblings(files: Sequence) -> Siblings:
    vocabulary: set[str] = set()
    definitions: dict[str, int] = {}
    for f in files:
        vocabulary |= defined_names(f.analysis)
        for it in f.analysis.items:
            if it.name and it.kind != "import":
                definitions[it.name] = definitions.get(it.name, 0) + 1
    vocab = frozenset(vocabulary)
    idents = tuple(used_names(f.analysis) for f in files)
    seen = tuple(i & vocab for i in idents)
    uses = tuple(s - defined_names(f.analysis) for s, f in zip(seen, files))
    return Siblings(vocab, definitions, uses, seen, idents)


siblings: ForLastNeighbors[Siblings] = ForLastNeighbors(_siblings)


def bonuses(current: frozenset[str], sib: Siblings, same_package: Sequence[bool],
            own: frozenset[str] = frozenset(), min_files: int = MIN_FILES) -> dict[str, float]:
    """Name -> its co-use bonus: CO_USED x100 x the similarity-weighted share of the
    siblings using it, for names `current` (the current file's package names) lacks.
    `own`: the names the current file defines (its siblings' uses of them count in
    the similarity too)."""
    found = tally(current, ((seen | (sib.idents[k] & own) if own else seen,
                            sib.uses[k] - current)
                           for k, seen in enumerate(sib.seen) if same_package[k]),
                  MIN_SIMILARITY)
    return share_bonuses(found, sib.definitions, CO_USED, min_files)


_LAST: list = [None]  # [(key, bonuses)]: per keystroke the same file and neighbors


def _last_bonuses(current: frozenset[str], sib: Siblings, same: tuple[bool, ...],
                  own: frozenset[str], min_files: int) -> dict[str, float]:
    """`bonuses`, remembered for the last current-file names and siblings (a keystroke
    seldom changes which package names the file uses)."""
    hit = _LAST[0]
    if hit is not None and hit[0][0] is sib and hit[0][1:] == (current, same, own, min_files):
        return hit[1]
    found = bonuses(current, sib, same, own, min_files)
    _LAST[0] = ((sib, current, same, own, min_files), found)
    return found


def _is_test(analysis) -> bool:
    """A Go test file imports "testing" (its name is not known here)."""
    return any(i.path.strip('"`') == "testing" for i in analysis.imports)


def lift(analysis, files: Sequence, ev, cands: list) -> list:
    """The candidates, neighbor entries not used in the file yet raised by their
    co-use bonus."""
    package = analysis.package
    if not files or not package:
        return cands
    sib = siblings(files)
    same = [f.analysis.package == package for f in files]
    own = defined_names(analysis)
    current = (used_names(analysis) & sib.vocabulary) | own
    found = _last_bonuses(current, sib, tuple(same), own,
                          MIN_FILES if _is_test(analysis) else MIN_FILES_NOT_TEST)
    return lift_unused(cands, files, ev, found, KINDS)
