"""Java: when the files a file names leave the request's room half empty, read more of
its package, the ones its siblings use first.

A short class (Adler32: one neighbor, `Checksum`; GZIPOutputStream: two) sends a
request with most of the neighbor room unused, and the line being written often names
a package type the file names nowhere else: `ZipUtils.loadLibrary()` in Adler32's
static block, `protected CRC32 crc = new CRC32();` in GZIPOutputStream, `implements
AsynchronousChannel` in a channel's header. The sibling guess (`evidence_java_pkg`)
reads such a file only on strong evidence (two similar siblings, a quarter of them by
similarity), rightly when room is scarce: a weak guess would push out what the file
uses. When room is left over, a weak guess costs nothing if it only takes what is
left: while the files read so far and the current file's own items demand less than
FILL_DEMAND tokens (whole, not brief: the demand overstates what a request can hold
about fourfold, and 1,500 won 4 pool tasks where 4,000 won 6), the package files
the similar siblings name are read too, most named first (one sibling is enough), at
most MAX_FILL_FILES of them. They get import ranks from `ROOM_RANK` on, and
`evidence_java.adjust` scales their entries by `ROOM_FACTOR`: a superclass's
`read()` (a fill entry at 0.8) must not lose to them.

Dev + tuning pool (800): 708 -> 714 (+6 -0); dev 178 -> 179 (+1 -0 with the factor;
+1 -1 without it).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from .co_use import tally
from .evidence_java import ROOM_RANK, type_name
from .evidence_java_pkg import (MIN_SIMILARITY, file_words, package_types, same_package,
                                sibling_uses)

FILL_DEMAND = 4000  # tokens: read more package files while the demand is below this
MAX_FILL_FILES = 6  # files read beyond the named ones and the guesses


def fill_order(path: str, analysis, package: Sequence[str], skip: frozenset[str],
               workspace) -> list[str]:
    """The package files not in `skip` (real paths), by the similarity-weighted share
    of the similar siblings whose text names their type (any number of them)."""
    by_type, vocabulary, current = package_types(path, analysis, package)
    siblings = []
    for f in package:
        read = file_words(f, workspace)
        if read is not None:
            siblings.append(sibling_uses(type_name(f), read[0], vocabulary, current))
    found = tally(current, siblings, MIN_SIMILARITY)
    ranked = sorted(found.votes.items(), key=lambda tv: (-tv[1], tv[0]))
    return [by_type[t] for t, _ in ranked
            if t in by_type and workspace.real(by_type[t]) not in skip]


def fill(spec, path: str, symbols, resolved: Sequence[str], out: list, workspace,
         open_by_path: Mapping, spot, cap: int) -> list:
    """Neighbor files to add to `out` (Java only; [] when the room is taken)."""
    if spec.resolver != "java" or not MAX_FILL_FILES or len(out) >= cap:
        return []
    # imported here: `neighbors` imports this module, and `ranking` imports `neighbors`
    from .ranking import file_demand, whole_demand
    demand = whole_demand(symbols.items, out)
    if demand >= FILL_DEMAND:
        return []
    package = same_package(path, resolved)
    skip = frozenset(workspace.real(f.path) for f in out) | {workspace.real(path)}
    from .neighbors import NeighborFile, read_neighbor
    added: list = []
    # an entry nothing points at scores 3 / (1 + rank / 4) (`ranking`): from ROOM_RANK
    # on, theirs go after every other file's (a superclass's `read()` scored 0.8 and
    # lost to the class headers of files read for room)
    rank = ROOM_RANK + max((f.rank for f in out), default=-1)
    for file in fill_order(path, symbols, package, skip, workspace):
        if demand >= FILL_DEMAND or len(added) >= MAX_FILL_FILES or \
                len(out) + len(added) >= cap:
            break
        read = read_neighbor(file, workspace, open_by_path, spot)
        if read is None:
            continue
        rank += 1
        nf = NeighborFile(file, workspace.relative(file), read[2], rank)
        added.append(nf)
        demand += file_demand(nf)
    return added
