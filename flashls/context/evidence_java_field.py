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
from typing import Sequence

from .evidence_java import declared_receivers, type_name
from .memo import PerAnalysis

FIELD_SCORE = 85.0  # floor of the guessed type's header at the class level
MIN_NAME = 3  # shorter names (`e`, `in`) say nothing about a type
MIN_USES = 1  # rows using the variable as a receiver (2: pool -1, LeftOverInputStream `server`)
_RECEIVER = re.compile(r"(?<![\w$.])([a-z_$][\w$]*)\s*\.\s*[A-Za-z_$]")
_KEYWORDS = frozenset({"this", "super", "java", "javax", "jdk", "sun", "com", "org"})


def _undeclared(analysis) -> frozenset[str]:
    """Names used as a receiver on MIN_USES rows or more that no line of the file
    declares."""
    declared: set[str] = set()
    uses: dict[str, int] = {}
    for row, line in enumerate(analysis.lines):
        if row in analysis.import_lines or "." not in line and " " not in line:
            continue
        s = line.lstrip()
        if s.startswith(("*", "/*", "//", "package ")):
            continue
        for v, _t in declared_receivers(line):
            declared.add(v)
        for q in set(_RECEIVER.findall(line)):
            uses[q] = uses.get(q, 0) + 1
    return frozenset(q for q, n in uses.items() if n >= MIN_USES and len(q) >= MIN_NAME
                     and q not in declared and q not in _KEYWORDS)


undeclared = PerAnalysis(_undeclared)


def field_types(analysis, package_types: Sequence[str]) -> dict[str, str]:
    """Type name -> the undeclared variable it types, for the package types
    (`package_types`: type names) each undeclared name starts (the shortest)."""
    names = undeclared(analysis)
    if not names:
        return {}
    lower = [(t.lower(), t) for t in package_types]
    out: dict[str, str] = {}
    for q in names:
        hits = sorted((len(t), t) for low, t in lower if low.startswith(q.lower()))
        if hits and (len(hits) == 1 or hits[1][0] > hits[0][0]):
            out[hits[0][1]] = q  # the shortest: `CRC32` before `CRC32C`
    return out


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
