"""C/C++: what the other files of the current file's directory use from its headers.

Half of the C/C++ misses on the dev + tuning pool were names used only on the line
being written (`detail::trim`, `base64::encode`, `memory_buf_t`, `error_scope`):
nothing in the file points at them, and the header defining them was read. The
files next to it are the evidence: the other archives of cereal's `archives/` call
`base64::encode`, the other sinks of spdlog's `sinks/` declare a `memory_buf_t`.

`sibling_idents` (I/O, called by `neighbors.neighbor_files` for C/C++ only) reads the
identifiers of at most SIBLING_FILES C/C++ files of the directory through the
workspace (its exclude rules and size limit), memoized per file version (path and
stamp) and the listing per directory version, so a request after the first costs a
stat per file. `bonuses` (pure) is Go's package co-use rule (`evidence_go_pkg`,
`co_use.tally`) on them: a sibling's similarity is the Jaccard share of the
neighbors' names both files use, and a neighbor name the current file does not use
yet gains CO_USED x100 x the similarity-weighted share of the siblings using it (at
least MIN_FILES of them), divided by the square of how many entries define it.
"""

from __future__ import annotations

import os
import threading
from typing import Iterator, Sequence

from cachetools import LRUCache

from .co_use import share_bonuses, tally
from .evidence_go_pkg import defined_names, used_names
from .memo import IDENT, ForLastNeighbors
from .unused_lift import lift_unused
from .workspace import Workspace

SIBLING_FILES = 32  # directory files read (sorted by name: a stable choice)
SIBLING_BYTES = 2_000_000  # and at most this much text in all
READS_PER_REQUEST = 4  # server requests: files read on the spot (the rest later)
C_EXTENSIONS = (".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hpp", ".hh", ".hxx", ".h++",
                ".ipp", ".inl", ".tpp", ".txx")
CO_USED = 1.0  # x100: the bonus for a name every similar sibling uses
MIN_SIMILARITY = 0.05
MIN_FILES = 2
CAP = 30.0  # a lifted entry scores at most this (None: no cap)
KINDS = frozenset({"function", "method", "class", "struct", "union", "enum", "type",
                   "macro", "variable"})

_IDENTS: LRUCache = LRUCache(maxsize=512)  # (real path, stamp) -> identifiers
_LISTINGS: LRUCache = LRUCache(maxsize=64)  # (directory, its mtime) -> _Listing


class _Listing:
    """A directory's allowed C/C++ files (`Workspace.list_dir`), checked against the
    workspace's rules only as far as a request reads them: a request stops at
    SIBLING_FILES or SIBLING_BYTES, and the rules (.gitignore) cost ~0.2 ms a file."""

    __slots__ = ("found", "_rest", "_lock")

    def __init__(self, directory: str, workspace: Workspace) -> None:
        self.found: list[str] = []
        self._rest: Iterator[str] | None = workspace.iter_dir(directory, C_EXTENSIONS)
        self._lock = threading.Lock()

    def files(self) -> Iterator[str]:
        k = 0
        while True:
            if k >= len(self.found):
                with self._lock:
                    if k >= len(self.found):
                        nxt = next(self._rest, None) if self._rest is not None else None
                        if nxt is None:
                            self._rest = None
                            return
                        self.found.append(nxt)
            yield self.found[k]
            k += 1


def _listing(directory: str, workspace: Workspace) -> Iterator[str]:
    try:
        stamp = os.stat(directory).st_mtime_ns
    except OSError:
        return iter(())
    key = (directory, stamp, id(workspace))
    hit = _LISTINGS.get(key)
    if hit is None:
        hit = _LISTINGS[key] = _Listing(directory, workspace)
    return hit.files()


def sibling_idents(path: str, workspace: Workspace, max_reads: int | None = None
                   ) -> tuple[tuple[str, frozenset[str]], ...]:
    """(real path, identifier set) of the C/C++ files beside `path` (not `path`).
    `max_reads` (the server): read at most this many files not memoized yet; the
    others join from later requests (a cold directory of 32 headers took ~50 ms)."""
    here = workspace.real(path)
    out = []
    size = 0
    for file in _listing(os.path.dirname(os.path.abspath(path)), workspace):
        if len(out) >= SIBLING_FILES or size >= SIBLING_BYTES:
            break
        real = workspace.real(file)
        if real == here:
            continue
        stamp = workspace.stamp(file)
        if stamp is None:
            continue
        hit = _IDENTS.get((real, stamp))
        if hit is None:
            if max_reads is not None and max_reads <= 0:
                continue
            if max_reads is not None:
                max_reads -= 1
            text, stamp = workspace.read_stamped(file)
            if text is None or stamp is None:
                continue
            hit = (frozenset(IDENT.findall(text)), len(text))
            _IDENTS[(real, stamp)] = hit
        out.append((real, hit[0]))
        size += hit[1]
    return tuple(out)


def bonuses(used: frozenset[str], own: frozenset[str], vocabulary: frozenset[str],
            definitions: dict[str, int], siblings: Sequence[frozenset[str]]
            ) -> dict[str, float]:
    """Name -> its co-use bonus, for the neighbors' names (`vocabulary`) the current
    file neither uses (`used`) nor defines (`own`). `siblings`: each sibling's
    identifiers (its uses of the current file's own names count in the similarity)."""
    return _bonuses(used, own, vocabulary, definitions,
                    [(s & vocabulary, s) for s in siblings])


def _bonuses(used: frozenset[str], own: frozenset[str], vocabulary: frozenset[str],
             definitions: dict[str, int], siblings: Sequence[tuple[frozenset[str], frozenset[str]]]
             ) -> dict[str, float]:
    current = (used & vocabulary) | own
    found = tally(current, (((inside | (own & full)) if own else inside, inside - current)
                            for inside, full in siblings), MIN_SIMILARITY)
    return share_bonuses(found, definitions, CO_USED, MIN_FILES)


def _vocabulary(files: Sequence) -> tuple[frozenset[str], dict[str, int]]:
    names: set[str] = set()
    definitions: dict[str, int] = {}
    for f in files:
        for it in f.analysis.items:
            if it.name and it.kind != "import" and it.kind in KINDS:
                names.add(it.name)
                definitions[it.name] = definitions.get(it.name, 0) + 1
    return frozenset(names), definitions


def _uses_of(files: Sequence) -> tuple[frozenset[str], ...]:
    """Each sibling's identifiers, less the names it defines where it is one of the
    neighbor files (a header "uses" every name it defines)."""
    defined = {}
    for f in files:
        defined[os.path.realpath(f.path)] = defined_names(f.analysis)
    vocabulary = _vocabularies(files)[0]
    out = []
    for real, idents in files[0].siblings:
        full = idents - defined.get(real, frozenset())
        out.append((full & vocabulary, full))
    return tuple(out)


_USES: list = [None]  # [(analyses, siblings, uses)]: per keystroke the same ones


def _own_uses(files: Sequence) -> tuple:
    """`_uses_of`, remembered for the last neighbor analyses and siblings (by identity
    and, for the siblings, equality: their sets come from one memo)."""
    analyses = tuple(f.analysis for f in files)
    hit = _USES[0]
    if hit is not None and len(hit[0]) == len(analyses) and \
            all(a is b for a, b in zip(hit[0], analyses)) and hit[1] == files[0].siblings:
        return hit[2]
    out = _uses_of(files)
    _USES[0] = (analyses, files[0].siblings, out)
    return out


_vocabularies: ForLastNeighbors = ForLastNeighbors(_vocabulary)
_LAST: list = [None]  # [(key, bonuses)]: per keystroke the same siblings and names


def lift(analysis, files: Sequence, ev, cands: list) -> list:
    """The candidates, neighbor entries the file does not use yet raised by what its
    directory's other files use of them (C/C++ only; `files` carry the siblings)."""
    if analysis.spec.resolver != "c" or not files or not files[0].siblings:
        return cands
    sibs = _own_uses(files)
    vocabulary, definitions = _vocabularies(files)
    used = used_names(analysis)
    own = defined_names(analysis)
    hit = _LAST[0]
    if hit is not None and hit[0][0] is sibs and hit[0][1] is vocabulary and \
            hit[0][2:] == (used, own):
        found = hit[1]
    else:
        found = _bonuses(used, own, vocabulary, definitions, sibs)
        _LAST[0] = ((sibs, vocabulary, used, own), found)
    lifted = lift_unused(cands, files, ev, found, KINDS)
    if lifted is cands or CAP is None:
        return lifted
    return [n if n.score <= CAP or n is c else c.rescored(max(c.score, CAP))
            for n, c in zip(lifted, cands)]
