"""Java: a variable the file uses but never declares is declared on the line being
written, and its type is the package type its name starts.

`protected CRC32 crc = new CRC32();` blanked in GZIPOutputStream leaves `crc.update(..)`
and `crc.reset()` with no declaration, and `CRC32` named nowhere else: the package's
`CRC32.java` was not read (a Java file reads the package files whose type it names).
`final ServerImpl server;` in LeftOverInputStream is the same. The type is the package
file whose name, lower-cased, starts with the variable's name (`crc` -> `CRC32`,
`server` -> `ServerImpl`), the shortest when several do (`CRC32`, not `CRC32C`): that file is read as if the file
named its type (`evidence_java.order_neighbors`), and at the class level (where a field
is declared) its type's header is raised to FIELD_SCORE.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from .evidence_java import declared_receivers, type_name, used_type_counts
from .memo import LINE_MEMO_SIZE, PerAnalysis

FIELD_SCORE = 85.0  # floor of the guessed type's header at the class level
MIN_NAME = 3  # shorter names (`e`, `in`) say nothing about a type
MIN_USES = 1  # rows using the variable as a receiver (2: pool -1, LeftOverInputStream `server`)
_RECEIVER = re.compile(r"(?<![\w$.])([a-z_$][\w$]*)\.[A-Za-z_$]")  # `crc.update`
_KEYWORDS = frozenset(
    "this super java javax jdk sun com org for int long short byte char boolean double "
    "float void new return final static public private protected abstract synchronized "
    "volatile transient native class interface enum extends implements throws throw try "
    "catch finally while switch case default break continue null true false instanceof "
    "import package assert var record else".split())


def _rows(analysis, name: str):
    """The rows using `name` (from the analysis's per-node identifier index)."""
    for first, _last, ident_set, idents in analysis.usages:
        if name in ident_set:
            for rel in idents.get(name, ()):
                yield first + rel


def _undeclared(analysis, name: str) -> bool:
    """Whether `name` is used as a receiver on MIN_USES rows or more and no line of
    the file declares it (only the rows using it are read)."""
    lines = analysis.lines
    uses = 0
    for row in _rows(analysis, name):
        if row >= len(lines) or row in analysis.import_lines:
            continue
        declares, receives = _line_facts(lines[row])
        if name in declares:
            return False
        uses += name in receives
    return uses >= MIN_USES


@lru_cache(maxsize=LINE_MEMO_SIZE)
def _line_facts(line: str) -> tuple[frozenset[str], frozenset[str]]:
    """(names the line declares, names it uses as receivers); nothing for a comment
    line ("the submission. The ...")."""
    if line.lstrip().startswith(("*", "/*", "//")):
        return frozenset(), frozenset()
    return (frozenset(v for v, _t in declared_receivers(line)),
            frozenset(_RECEIVER.findall(line)))


def _identifiers(analysis) -> frozenset[str]:
    out: set[str] = set()
    for _first, _last, ident_set, _idents in analysis.usages:
        out |= ident_set
    return frozenset(out)


_identifiers_of: PerAnalysis[frozenset[str]] = PerAnalysis(_identifiers)


def field_types(analysis, package_types: Sequence[str]) -> dict[str, str]:
    """Type name -> the undeclared variable it types, for the package types
    (`package_types`: type names) each undeclared lower-case name starts (the
    shortest). Only the file's identifiers that start a package type's name are
    looked at."""
    idents = analysis.ident_counts  # kept between versions; else the nodes' union
    if idents is None:
        idents = _identifiers_of(analysis)
    out: dict[str, str] = {}
    named = used_type_counts(analysis)
    for q, t in _starts(tuple(package_types)).items():  # fewer than the identifiers
        if q in idents and q not in _KEYWORDS and not named.get(t) and \
                _undeclared(analysis, q):  # a type the file names elsewhere is read
            out[t] = q
    return out


@lru_cache(maxsize=64)
def _starts(types: tuple[str, ...]) -> dict[str, str]:
    """Lower-cased start (MIN_NAME letters or more) -> the shortest type name so
    starting (`crc` -> `CRC32`, not `CRC32C`); a start two types of that length share
    is left out. Per package (the same types every request)."""
    best: dict[str, tuple[int, str | None]] = {}
    for t in types:
        low = t.lower()
        for n in range(MIN_NAME, len(low) + 1):
            k = low[:n]
            had = best.get(k)
            if had is None or len(t) < had[0]:
                best[k] = (len(t), t)
            elif len(t) == had[0] and had[1] != t:
                best[k] = (len(t), None)
    return {k: t for k, (_n, t) in best.items() if t is not None}


def guessed_files(analysis, files: Sequence[str]) -> frozenset[str]:
    """Of `files` (the package's, by path), those whose type an undeclared variable
    names (read as if the file named the type)."""
    if not FIELD_SCORE:
        return frozenset()
    by_type = {type_name(f): f for f in files}
    return frozenset(by_type[t] for t in field_types(analysis, list(by_type)))


def lift_headers(cands: list, analysis, files: Sequence, at_class_level: bool) -> list:
    """`cands` with the header of each neighbor type an undeclared variable names
    raised to FIELD_SCORE, when the cursor is at the class level."""
    if not at_class_level or not files or not FIELD_SCORE:
        return cands
    types = field_types(analysis, [type_name(f.path) for f in files])
    if not types:
        return cands
    out = list(cands)
    for k, c in enumerate(cands):
        if c.file < 0 or c.score >= FIELD_SCORE:
            continue
        item = files[c.file].analysis.items[c.item]
        if item.parent == -1 and item.name in types and item.kind != "import" and \
                type_name(files[c.file].path) == item.name:
            out[k] = c.rescored(FIELD_SCORE)
    return out
