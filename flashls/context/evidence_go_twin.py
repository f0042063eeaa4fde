"""Go: a test file's twin, the file it tests.

By Go's convention `x_test.go` tests `x.go` (`zsh_completions_test.go` calls
`GenZshCompletion` of `zsh_completions.go`; `int_slice_test.go` calls the
`GetIntSlice` of `int_slice.go`), and a longer test stem names its twin's stem first
(`formatter_bench_test.go` → `formatter.go`). No import line says so, and the twin's
names are used for the first time in many a test; beside the package's other files,
the twin is where they most likely come from. Its entries not used in the test yet get
a bonus, divided among the twin's names when it is big (every method of a 200-entry
`command.go` is hardly more likely than before; the dozen of an `args.go` are).

The twin is also the first neighbor file read (`evidence_lang.order_files`): a flag
library's package of 70 files has more than the 24 that are read. It is found by path
alone, so the rule holds for any Go project; only test files have one (a non-test
file's neighbors never include tests).
"""

from __future__ import annotations

import os
from typing import Sequence

from .memo import PerAnalysis
from .unused_lift import lift_unused

TWIN = 0.4  # x100: the bonus of an unused entry of a twin of at most SMALL_TWIN entries
SMALL_TWIN = 12  # names; a bigger twin's bonus is TWIN x SMALL_TWIN / its names
KINDS = frozenset({"function", "method", "type", "constant", "variable"})
TEST_SUFFIX = "_test.go"


def twin_stem(path: str) -> str | None:
    """`dir/x_test.go` -> `x`; None for a file that is no Go test."""
    base = os.path.basename(path)
    if not base.endswith(TEST_SUFFIX) or len(base) <= len(TEST_SUFFIX):
        return None
    return base[: -len(TEST_SUFFIX)]


def twin_length(test_path: str, path: str) -> int:
    """How much of the test's stem `path` (a non-test file of its directory) names:
    the length of `path`'s stem when the test's stem is it or starts with it and `_`
    (`int_slice_test.go`: 9 for `int_slice.go`, 3 for `int.go`); 0 when it does not."""
    stem = twin_stem(test_path)
    base = os.path.basename(path)
    if stem is None or not base.endswith(".go") or base.endswith(TEST_SUFFIX):
        return 0
    s = base[:-3]
    if not (stem == s or stem.startswith(s + "_")):
        return 0
    if os.path.dirname(os.path.abspath(path)) != os.path.dirname(os.path.abspath(test_path)):
        return 0
    return len(s)


def twin_index(path: str, files: Sequence) -> int:
    """The neighbor file `path` tests: the non-test file of its directory whose stem is
    the test's stem or its longest `_`-separated start; -1 when there is none."""
    if twin_stem(path) is None:
        return -1
    best, best_len = -1, 0
    for k, f in enumerate(files):
        n = twin_length(path, f.path)
        if n > best_len:
            best, best_len = k, n
    return best


def _entry_names(analysis) -> frozenset[str]:
    return frozenset(it.name for it in analysis.items if it.name and it.kind in KINDS)


entry_names: PerAnalysis[frozenset[str]] = PerAnalysis(_entry_names)


def bonuses(twin_names: frozenset[str], used) -> dict[str, float]:
    """Name -> its bonus: TWIN x100 for each unused name of a twin of at most
    SMALL_TWIN names, divided among them for a bigger twin (the twin's size is the
    prior: a test that uses most of a big twin already says little about the rest)."""
    if not twin_names:
        return {}
    b = 100 * TWIN * min(1.0, SMALL_TWIN / len(twin_names))
    return {n: b for n in twin_names if n not in used}


def lift(path: str, analysis, files: Sequence, ev, cands: list) -> list:
    """The candidates, the unused entries of the test's twin raised by their bonus."""
    k = twin_index(path, files)
    if k < 0:
        return cands
    names = entry_names(files[k].analysis)
    theirs, mine = files[k].analysis.package, analysis.package
    if theirs != mine:
        if not theirs or mine != theirs + "_test":
            return cands
        # an external test (`package foo_test`) reaches the exported names only
        names = frozenset(n for n in names if n[:1].isupper())
    found = bonuses(names, ev.uses)
    if not found:
        return cands
    # only the twin's entries: a namesake in another file is not what the test tests
    twin_only = [c for c in cands if c.file == k]
    lifted = iter(lift_unused(twin_only, files, ev, found, KINDS))
    return [next(lifted) if c.file == k else c for c in cands]
