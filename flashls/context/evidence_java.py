"""Java specifics of import resolution and ranking, called from the shared code.

* Resolution: a file sees the types of its own package without imports, and those its
  single-type, static and wildcard imports name. A Java file is named after its
  top-level type, so of the package's (and the wildcards') files only those whose
  name the current file uses can hold what it needs: `Foo.java` is a neighbor when
  `Foo` appears in the file. Explicit imports come first, then by how often the type
  is used, so a large package (java.util.concurrent: 60 files) no longer fills the
  neighbor slots in directory order before reaching the file that matters.
* Brief entries: annotation lines (`@Override`, `@SuppressWarnings("unchecked")`) are
  left out of a Java signature's brief form: they cost 3-8 tokens each and say
  nothing a completion needs.
* Unused imports: a type named by a single-type import and used nowhere else in the
  file is likely what comes next (it was imported for it); its entry scores like an
  unused named import elsewhere (`ranking.UNUSED_IMPORT`), not like the member access
  `java.time.format.DateTimeFormatterBuilder` the import line reads as.
* Visibility: a `private` member of a neighbor file's class cannot be used from
  another file, so its entry ranks with `PRIVATE_FACTOR` of its score.
* Receivers: `ReentrantLock lock = ...`, `Sink<? super T> downstream;`, parameters
  `(Node.Builder b)` declare a variable's type, so `lock.unlock()` is a method of
  `ReentrantLock` (the evidence `ranking.py` weighs as a typed member); a static
  access `Code.HTTP_BAD_REQUEST` is a member of the type it names.
* Chains: a line starting `.appendValue(YEAR, 4)` continues a method chain (a
  builder): it calls a member as `x.appendValue(..)` would (`chained_member`).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Sequence

from .memo import LINE_MEMO_SIZE, IdentityMemo

EXPLICIT_FIRST = False  # imported types before same-package ones regardless of use
MAX_PACKAGE_FILES = 400  # a package this large is sampled (its used types first)
PRIVATE_FACTOR = 0.1  # a private member of another file's class: not usable here
_ANNOTATION_LINE = re.compile(r"^\s*@(?!interface\b)[\w.]+\s*(?:\(.*\))?\s*$")
_PRIVATE = re.compile(r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:[a-z]+\s+)*private\b")


def brief_head(resolver: str, head: list[str]) -> list[str]:
    """A Java signature's brief lines without its annotation-only lines."""
    if resolver != "java" or len(head) < 2:
        return head
    kept = [line for line in head if not _ANNOTATION_LINE.match(line)]
    return kept or head


@lru_cache(maxsize=LINE_MEMO_SIZE)
def _is_private(line: str) -> bool:
    return bool(_PRIVATE.match(line))


FAR = 1 << 30  # evidence.FAR (evidence.py imports this module): no use but the import
UNUSED_IMPORT_SCORE = 85.0  # 100 * ranking.UNUSED_IMPORT: the same weight as Python's
_SINGLE_IMPORT = re.compile(r"^\s*import\s+(?!static\b)[\w.]*\.([A-Z][\w$]*)\s*;")


def _unused_imports(analysis, ev) -> frozenset[str]:
    """Types a single-type import names that the file uses on no other line."""
    lines = analysis.lines
    out = set()
    for row in analysis.import_lines:
        m = _SINGLE_IMPORT.match(lines[row]) if row < len(lines) else None
        if m:
            use = ev.uses.get(m.group(1))
            if use is None or use.distance >= FAR:
                out.add(m.group(1))
    return frozenset(out)


_PRIVATE_MEMBERS: dict[int, tuple[object, frozenset[int]]] = {}


def private_members(items: Sequence) -> frozenset[int]:
    """Indices of the members whose brief's first two lines declare them `private`
    (memoized per items tuple: a neighbor file's are the same for every request)."""
    hit = _PRIVATE_MEMBERS.get(id(items))
    if hit is not None and hit[0] is items:
        return hit[1]
    found = frozenset(k for k, item in enumerate(items) if item.parent != -1 and
                      any(_is_private(line) for line in item.brief[0][:2]))
    if len(_PRIVATE_MEMBERS) > 512:
        _PRIVATE_MEMBERS.clear()
    _PRIVATE_MEMBERS[id(items)] = (items, found)
    return found


_HEADERS = IdentityMemo(512)  # (items, type name) -> indices of its top-level entries


def _type_headers(items: Sequence, name: str) -> frozenset[int]:
    """Indices of the top-level entries named `name` (a file's own type: memoized per
    items tuple and name)."""
    hit = _HEADERS.get(items, name)
    if hit is None:
        hit = _HEADERS.put(items, frozenset(
            k for k, it in enumerate(items) if it.parent == -1 and it.name == name), name)
    return hit


# files read only to fill the room (`evidence_java_fill`) are ranked from this import
# rank on; their entries score ROOM_FACTOR of what they would (names they share with the
# file are coincidence: nothing names their type), so they take only what is left
ROOM_RANK = 400
ROOM_FACTOR = 0.01


def adjust(cands: list, analysis, files: Sequence, ev, resolver: str) -> list:
    """Java: `cands` with others' private members demoted and unused single-type
    imports scored as likely next. Each candidate is tested by set lookups (the
    entries either rule can change, per items tuple) instead of reading its item."""
    if resolver != "java":
        return cands
    unused = _unused_imports(analysis, ev)
    private = [private_members(f.analysis.items) for f in files]
    heads = [_type_headers(f.analysis.items, type_name(f.path)) if unused else frozenset()
             for f in files]
    room = [f.rank >= ROOM_RANK for f in files]  # read for room (`evidence_java_fill`)
    if not any(private) and not any(heads) and not any(room):
        return list(cands)
    out = []
    for c in cands:
        k = c.file
        if k >= 0:
            if room[k]:
                c = c.rescored(c.score * ROOM_FACTOR)
            elif c.item in private[k]:
                c = c.rescored(c.score * PRIVATE_FACTOR)
            elif c.item in heads[k] and c.score < UNUSED_IMPORT_SCORE and \
                    files[k].analysis.items[c.item].name in unused:
                c = c.rescored(UNUSED_IMPORT_SCORE)
        out.append(c)
    return out


def java_roots(path: str, package: str | None) -> tuple[str, str]:
    """(the file's directory, the source root its package declaration implies)."""
    here = os.path.dirname(os.path.abspath(path))
    package = (package or "").strip()
    if package:
        tail = os.path.join(*package.split("."))
        if here.endswith(os.sep + tail):
            return here, here[: -len(tail) - 1]
    return here, here


@lru_cache(maxsize=LINE_MEMO_SIZE)
def type_name(path: str) -> str:
    """The type a Java file is named after (asked per package file and candidate per
    request: remembered per path)."""
    return os.path.splitext(os.path.basename(path))[0]


_COUNTS: list = [None]  # [(usages, counts)]: the last analysis's (a request asks twice)


def used_type_counts(analysis) -> dict[str, int]:
    """Identifier -> rows using it, over the file's top-level nodes (the caller must
    not change it: the last one is kept for the request's second call)."""
    usages = analysis.usages
    hit = _COUNTS[0]
    if hit is not None and hit[0] is usages:
        return hit[1]
    counts: dict[str, int] = {}
    for _first, _last, _ident_set, idents in usages:
        for name, rows in idents.items():
            counts[name] = counts.get(name, 0) + len(rows)
    _COUNTS[0] = (usages, counts)
    return counts


# neighbor files read for a Java file (the others': neighbors.MAX_NEIGHBOR_FILES, 24):
# java.time's and java.util.stream's big classes use 30-35 package types (dev: 24 files
# 86.5 %, pool 648 of 750; 32 files 87.5 %, pool 656)
MAX_FILES = 32


def max_files(resolver: str, default: int) -> int:
    """How many neighbor files a file of `resolver`'s language reads."""
    return MAX_FILES if resolver == "java" else default


def order_neighbors(analysis, files: Sequence[str]) -> list[str]:
    """The resolved files worth reading for a Java file: those named after a type it
    uses, explicitly imported ones first, then the most used."""
    if analysis.spec.resolver != "java":
        return list(files)
    counts = used_type_counts(analysis)
    lines = analysis.lines
    imported: set[str] = set()
    for row in analysis.import_lines:
        if row < len(lines):
            imported.update(_line_words(lines[row]))
    from .evidence_java_field import guessed_files  # it imports this module
    typed = guessed_files(analysis, files)  # `crc.update(..)`, `crc` declared nowhere
    ranked = []
    for index, f in enumerate(files):
        name = type_name(f)
        uses = counts.get(name, 0) or (f in typed)
        if not uses:
            continue
        explicit = name in imported
        ranked.append((0 if explicit else 1, -uses, index, f) if EXPLICIT_FIRST else
                      (-uses, 0 if explicit else 1, index, f))
    ranked.sort()
    return [f for *_, f in ranked]


@lru_cache(maxsize=LINE_MEMO_SIZE)
def _line_words(line: str) -> tuple[str, ...]:
    """The identifiers of an import line (per line: the same ones every request)."""
    return tuple(re.findall(r"[A-Za-z_$][\w$]*", line))


# `Type name` declarations (fields, locals, parameters, for-each variables): the type
# may be qualified (`Node.Builder`), generic (`Sink<? super T>`) or an array
_DECL = re.compile(
    r"(?<![\w$.])(?:[A-Za-z_$][\w$]*\.)*([A-Z][\w$]*)\s*(?:<[^;(){}=]*>)?\s*(?:\[\s*\]\s*)*"
    r"\s([a-z_$][\w$]*)\s*(?=[=;,):])")
# `Type.member` / `Outer.Inner.member`: a static access names its own container
_STATIC = re.compile(r"(?<![\w$.])([A-Z][\w$]*)\s*\.\s*(?=[A-Za-z_$])")
_UPPER = re.compile(r"[A-Z]")
_NOT_TYPES = frozenset({"Override", "SuppressWarnings", "Deprecated", "SafeVarargs",
                        "FunctionalInterface"})


@lru_cache(maxsize=LINE_MEMO_SIZE)
def declared_receivers(line: str) -> tuple[tuple[str, str], ...]:
    """(variable, type name) pairs a Java line declares; a static access `Code.OK`
    counts as the type receiving itself (`Code.OK` is a member of `Code`)."""
    if _UPPER.search(line) is None:  # both patterns need a type name's capital
        return ()
    out = [(t, t) for t in _STATIC.findall(line)] if "." in line else []
    if " " in line.strip():
        out += [(v, t) for t, v in _DECL.findall(line) if t not in _NOT_TYPES]
    return tuple(out)


# `.appendValue(YEAR, 4)`: a method chain continued on the next line (builders)
_CHAINED = re.compile(r"^\s*\.\s*([A-Za-z_$][\w$]*)\s*[(<]")


@lru_cache(maxsize=LINE_MEMO_SIZE)
def chained_member(line: str) -> str | None:
    """The member a line that continues a method chain calls (`.appendLiteral('-')`):
    the chain's receiver is on an earlier line, so `q.name` pairs miss it."""
    if "." not in line:
        return None
    m = _CHAINED.match(line)
    return m.group(1) if m else None


CHAINING = frozenset({"java", "rust"})  # dialects whose `.name(..)` chain lines count


def receiver_dialect(resolver: str) -> bool | str:
    """How `evidence.line_receivers` reads declarations: Go's `name Type` (True),
    Java's `Type name` ("java"), or annotations and constructions only (False; "rust":
    the same, and rustfmt's `.build()` chain lines are member calls as in Java)."""
    if resolver in CHAINING:
        return resolver
    return resolver == "go"
