"""How each candidate name reaches the current file, how often and how near it is used.

Read from the current file's analysis (its top-level nodes' identifiers and lines):

* `import_idents`: identifiers on import lines (`from .models import Request`, the
  `exceptions` of `from . import exceptions`, the `cobra` of a Go import path);
* per name: whether it follows a qualifier (`mod.Name`, `pkg::Name`, `obj.method`) and
  whether that qualifier is bound on an import line (a module attribute);
* per name: how many top-level nodes use it, and the distance of its nearest use (off
  the import lines) from the *anchor*: the innermost definition around the cursor.
  Distances are measured to the anchor's line range, not the cursor line, so moving the
  cursor inside one function changes nothing.

Per-node attribute maps are memoized on the node's identifier table, which the
analysis shares between versions for unchanged nodes: a keystroke recomputes one node.
Nodes farther than NEAR_ROWS from the anchor are measured whole, so their combined part
is memoized on (those nodes, their offsets from the anchor, the names asked for):
typing inside one definition changes neither, and re-reads only the nodes near it.
"""

from __future__ import annotations

import bisect
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from .evidence_c import anchor_items
from .evidence_java import CHAINING, chained_member, declared_receivers, receiver_dialect
from .rust_paths import turbofish_paths
from .memo import LINE_MEMO_SIZE, line_identifiers
from .moved_items import item_starts

# `q.name` pairs, overlapping (`h.Store.NextID` gives (h, Store) and (Store, NextID)),
# and `).name` / `].name` with no qualifier
_ATTR = re.compile(r"(?<![\w$])(?=([A-Za-z_$][\w$]*)\s*(?:\?\.|\.|::|->)\s*([A-Za-z_$][\w$]*))"
                   r"|()[\)\]]\s*(?:\?\.|\.|::|->)\s*([A-Za-z_$][\w$]*)")
FAR = 1 << 30
FRESH_ROWS = 10  # a receiver declared this few rows above the cursor is "fresh"
AS_RECEIVERS = True  # `except T as e`, `with T(...) as x` (flag: measured on dev)
NEAR_ROWS = 300  # nodes farther than this from the anchor are measured as a whole


@lru_cache(maxsize=LINE_MEMO_SIZE)
def line_attributes(line: str) -> tuple[tuple[str, str], ...]:
    """(qualifier or "", name) for every `q.name` / `q::name` / `q->name` of a line."""
    if "." not in line and "::" not in line and "->" not in line:
        return ()  # every separator of `_ATTR` has a dot, `::` or `->` (a lone `:` is none)
    return tuple((q or "", n or m) for q, n, _, m in _ATTR.findall(line))


# Receivers whose type the text tells: annotations (`x: T`, `self.x: T`, `x: &mut T`),
# constructions (`x = T(`, `x = new T(`, `x := &T{`, `x = pkg.T(`), factory calls on a
# class (`x = Text.from_markup(`, `x = Table.grid(`), Go declarations
# (`c *Command`, `var c Command`).
_TYPED = re.compile(
    r"\b([a-z_]\w*)\s*:\s*(?:&\s*)?(?:mut\s+)?(?:Optional\[|[\"'])?(?:[a-z_]\w*\.)?([A-Z]\w*)"
    r"|\b([a-z_]\w*)\s*(?::=|=)\s*(?:new\s+|&)?(?:[a-z_]\w*\.)?([A-Z]\w*)"
    r"(?:\.[a-z_]\w*)?\s*[({]")
# Python's `except ClickException as e:`, `except (A, mod.B) as e:` and
# `with Live(...) as live:` type the name they bind
_EXCEPT_AS = re.compile(r"^\s*except\s*\(?([\w.,\s]+?)\)?\s+as\s+([a-z_]\w*)\s*:")
_WITH_AS = re.compile(r"^\s*(?:async\s+)?with\s+(?:[a-z_]\w*\.)?([A-Z]\w*)\s*\(.*\)"
                      r"\s+as\s+([a-z_]\w*)\s*[:,]")
_GO_TYPED = re.compile(r"\b([A-Za-z_]\w*)\s+\*?(?:[a-z_]\w*\.)?([A-Z]\w*)\b")
_UPPER = re.compile(r"[A-Z]")  # lines without one declare no receiver (the cold scan's gate)
_NOT_VARS = frozenset({"return", "case", "go", "defer", "range", "else", "func", "type",
                       "package", "import", "struct", "interface", "map", "chan", "const"})


@lru_cache(maxsize=LINE_MEMO_SIZE)
def line_receivers(line: str, go: bool = False) -> tuple[tuple[str, str], ...]:
    """(variable, type name) pairs a line declares or annotates."""
    out = []
    upper = _UPPER.search(line) is not None  # every type `_TYPED` and the rest read is [A-Z]...
    if upper and (":" in line or "=" in line):  # ... after a `:`, `=` or `:=`
        for a, b, c, d in _TYPED.findall(line):
            out.append((a, b) if a else (c, d))
    if AS_RECEIVERS and " as " in line:
        m = _EXCEPT_AS.match(line)
        if m:
            out.extend((m.group(2), t.strip().split(".")[-1]) for t in m.group(1).split(",")
                       if t.strip().split(".")[-1][:1].isupper())
        m = _WITH_AS.match(line) if upper else None
        if m:
            out.append((m.group(2), m.group(1)))
    if not upper:  # (`_EXCEPT_AS` above tests `isupper`, which is not only [A-Z])
        return tuple(out)
    if go == "java":  # `Type name` declarations (receiver_dialect)
        out.extend(declared_receivers(line))
    elif go is True:
        out.extend((v, t) for v, t in _GO_TYPED.findall(line) if v not in _NOT_VARS)
    return tuple(out)


@dataclass(frozen=True)
class NameUse:
    nodes: int  # top-level nodes using the name (off import lines or on them)
    distance: int  # nearest use off the import lines to the anchor range (FAR: none)
    qualified: bool  # used as `q.name` with q bound on an import line
    attribute: bool  # used as `x.name` for any x
    qualifiers: frozenset[str] = frozenset()  # the x of every `x.name`
    # Go: used at least once in code not after a selector (`Upgrade(w, r)`, not
    # only `u.Upgrade(w, r)` and a message string "Upgrade"; True for a name never
    # used after one); None where it is not measured (every other language)
    plain: bool | None = None


@dataclass(frozen=True)
class Evidence:
    anchor: tuple[int, int]  # line range of the innermost definition around the cursor
    import_idents: frozenset[str]  # every identifier on an import line
    bound: frozenset[str]  # names and modules the imports bind (`Name`, `mod`, `np`)
    uses: dict[str, NameUse]
    star_import: bool  # `from x import *`, `export * from`, `use a::*`
    # type name -> distance of the nearest receiver declared with it (`f: HelpFormatter`)
    receiver_types: dict[str, int] = None  # type: ignore[assignment]
    # variable -> its declared types (`formatter` -> {"HelpFormatter"})
    receivers: dict[str, frozenset[str]] = None  # type: ignore[assignment]
    # type name -> rows above the cursor of a receiver declared with it there, within
    # FRESH_ROWS (`url = URL(raw)` just above: `url.` is likely next)
    fresh_receivers: dict[str, int] = None  # type: ignore[assignment]

    def use(self, name: str) -> NameUse | None:
        return self.uses.get(name)


_NODE_ATTRS: dict[int, tuple[object, dict[str, frozenset[str]]]] = {}
_MEMO_LOCK = threading.Lock()


def _node_attributes(lines: Sequence[str], first: int, last: int, idents: object, go: bool,
                     kept: dict) -> tuple[dict[str, frozenset[str]], tuple[tuple[int, str, str], ...]]:
    """name -> qualifiers it follows in one top-level node, and the (relative row,
    variable, type) receivers it declares (memoized per node; `kept` collects the
    entries this request used, which are all the memo keeps afterwards: old versions
    of an edited node are not held on to)."""
    hit = _NODE_ATTRS.get(id(idents))
    if hit is not None and hit[0] is idents:
        kept[id(idents)] = hit
        return hit[1]
    names: dict[str, set[str]] = {}
    typed: list[tuple[int, str, str]] = []
    end = min(last, len(lines) - 1) + 1
    if end - first > CHUNKED_NODE_ROWS:
        _collect_chunked(lines, first, end, go, names, typed)
    else:
        collect_attributes(lines, first, first, end, go, names, typed)
    result = attributes_result(names, typed)
    kept[id(idents)] = (idents, result)
    return result


def collect_attributes(lines: Sequence[str], first: int, start: int, end: int, go: bool,
                       names: dict[str, set[str]], typed: list[tuple[int, str, str]]) -> None:
    """Add rows `start`..`end - 1` of the node that begins at row `first` to its
    tables (`first_tables` builds a huge node's in chunks of rows)."""
    # a fresh document's first request reads every row of it here (the per-line memos
    # all miss): one memo per line (`line_facts`), and a name's set made only when the
    # name is new
    get = names.get
    for row, line in enumerate(lines[start:end], start):  # a slice: no index per row
        pairs, found = line_facts(line, go)
        for q, n in pairs:
            got = get(n)
            if got is None:
                names[n] = {q}
            else:
                got.add(q)
        if found:
            typed.extend((row - first, v, t) for v, t in found)


_attributes = line_attributes.__wrapped__  # (`line_facts` memoizes their results)
_chained = chained_member.__wrapped__
_receivers = line_receivers.__wrapped__


@lru_cache(maxsize=LINE_MEMO_SIZE)
def line_facts(line: str, go) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """What `collect_attributes` reads in one line of a dialect (`receiver_dialect`):
    its (qualifier, name) pairs in the order they are added (`line_attributes`, a
    chain's member `.appendValue(..)` with no qualifier, Rust's turbofish paths
    `SmallVec::<[u8; 2]>::from_iter(..)`) and the receivers it declares."""
    pairs = _attributes(line)
    if go in CHAINING and (n := _chained(line)):
        pairs += (("", n),)
    if go == "rust" and "::<" in line:
        pairs += turbofish_paths(line)
    if go is True or go == "java" or ":" in line or "=" in line:
        return pairs, _receivers(line, go)
    return pairs, ()


# A long node (a Java or C++ class is one top-level node of hundreds of lines) changes
# with every edit inside it, and was read again whole: its rows are read in chunks
# whose tables are remembered by their text, so a new version re-reads the chunks
# that changed. A chunk ends at a blank line (after CHUNK_MIN_ROWS) or at
# CHUNK_MAX_ROWS, so a line inserted or deleted moves the chunk ends after it only
# up to the next blank line. Merged in row order, the tables equal a reading of all
# rows (any cut gives the same: `test_assembly_caches`).
CHUNK_MIN_ROWS = 16
CHUNK_MAX_ROWS = 64
CHUNKED_NODE_ROWS = 2 * CHUNK_MAX_ROWS  # shorter nodes are read whole (memo per node)
CHUNK_MEMO_SIZE = 1024  # chunks (64 rows or fewer each): 64k rows of long nodes
_CHUNKS: dict[tuple, tuple[dict[str, set[str]], tuple[tuple[int, str, str], ...]]] = {}


def chunk_ends(rows: Sequence[str]) -> list[int]:
    """Where `_collect_chunked` cuts these rows (exclusive ends, the last len(rows))."""
    ends = []
    start = 0
    for k, line in enumerate(rows):
        size = k + 1 - start
        if size >= CHUNK_MAX_ROWS or (size >= CHUNK_MIN_ROWS and not line.strip()):
            ends.append(k + 1)
            start = k + 1
    if start < len(rows):
        ends.append(len(rows))
    return ends


def _collect_chunked(lines: Sequence[str], first: int, end: int, go,
                     names: dict[str, set[str]], typed: list[tuple[int, str, str]]) -> None:
    rows = lines[first:end]
    start = 0
    for stop in chunk_ends(rows):
        text = tuple(rows[start:stop])
        key = (go, text)
        with _MEMO_LOCK:
            hit = _CHUNKS.pop(key, None)
            if hit is not None:
                _CHUNKS[key] = hit  # last again: the memo drops the oldest used first
        if hit is None:
            chunk_names: dict[str, set[str]] = {}
            chunk_typed: list[tuple[int, str, str]] = []
            collect_attributes(text, 0, 0, len(text), go, chunk_names, chunk_typed)
            hit = (chunk_names, tuple(chunk_typed))
            with _MEMO_LOCK:
                while len(_CHUNKS) >= CHUNK_MEMO_SIZE:
                    # the least recently used (a dict keeps its insertion order);
                    # clearing them all made every open file's chunks misses at once
                    del _CHUNKS[next(iter(_CHUNKS))]
                _CHUNKS[key] = hit
        chunk_names, chunk_typed = hit
        for n, qs in chunk_names.items():
            got = names.get(n)
            if got is None:
                names[n] = set(qs)
            else:
                got |= qs
        typed.extend((rel + start, v, t) for rel, v, t in chunk_typed)
        start = stop


def attributes_result(names: dict[str, set[str]], typed: list[tuple[int, str, str]]
                      ) -> tuple[dict[str, frozenset[str]], tuple[tuple[int, str, str], ...]]:
    return {n: frozenset(qs) for n, qs in names.items()}, tuple(typed)


def remember_node_attributes(found: dict[int, tuple[object, tuple]]) -> None:
    """Node attributes computed ahead of the first request (`first_tables`)."""
    with _MEMO_LOCK:
        _NODE_ATTRS.update(found)


# an identifier and whether a selector dot comes before it (`u.Upgrade`)
_SELECTED = re.compile(r"(\.\s*)?\b([A-Za-z_]\w*)")
_GO_NOT_CODE = re.compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`|\'(?:[^\'\\]|\\.)*\'|//.*$')
_GO_HEADER = re.compile(r"^\s*func\s*(?:\([^)]*\)\s*)?([A-Za-z_]\w*)")


@lru_cache(maxsize=LINE_MEMO_SIZE)
def line_plain(line: str) -> frozenset[str]:
    """Go: the identifiers a line uses without a selector dot before them (`Upgrade`
    of `Upgrade(w, r)`, not of `u.Upgrade(w, r)`), apart from the name a `func` header
    defines."""
    if '"' in line or "`" in line or "//" in line or "'" in line:
        line = _GO_NOT_CODE.sub(" ", line)  # a message string naming a call is no call
    out = {n for dot, n in _SELECTED.findall(line) if not dot}
    if "func" in line:
        m = _GO_HEADER.match(line)
        if m:
            out.discard(m.group(1))
    return frozenset(out)


def _plain_in(lines: Sequence[str], first: int, rows: Sequence[int], name: str) -> bool:
    """Whether one of a node's `rows` (relative to `first`) uses `name` plainly."""
    return any(name in line_plain(lines[first + rel]) for rel in rows
               if first + rel < len(lines))


def _note_plain(lines: Sequence[str], first: int, rows: Sequence[int], name: str,
                qs, plain: set[str], unread: list) -> None:
    """One node's part of `NameUse.plain`: a node with a selector use of `name` is
    read now; one without is read only if the name turns out to be used after a
    selector elsewhere (`_read_plain`)."""
    if not qs:
        unread.append((name, first, rows))
    elif _plain_in(lines, first, rows, name):
        plain.add(name)


def _read_plain(lines: Sequence[str], unread: list, attribute: set[str],
                plain: set[str]) -> None:
    """Add to `plain` the names used after a selector somewhere that a node without
    any selector use of them uses in code (not only in a string or a comment); a name
    never used after a selector needs no reading (`NameUse.plain` matters for those)."""
    for name, first, rows in unread:
        if name in attribute and name not in plain and _plain_in(lines, first, rows, name):
            plain.add(name)


_ALIAS = re.compile(r"\bas\s+([A-Za-z_$][\w$]*)")
_VERSION = re.compile(r"^v\d+$")


def bound_names(imports: Sequence, lines: Sequence[str], resolver: str) -> frozenset[str]:
    """What a file's imports bind: imported names, aliases, module names (`import a.b`
    binds `a`; a Go path binds its last segment; a Rust `use` binds its segments)."""
    out: set[str] = set()
    for imp in imports:
        out.update(imp.names)
        text = "\n".join(lines[imp.start:imp.end + 1]) if imp.start < len(lines) else ""
        out.update(_ALIAS.findall(text))
        path = imp.path.strip().strip("\"'")
        if resolver == "go":
            segs = [s for s in path.split("/") if s]
            while len(segs) > 1 and _VERSION.match(segs[-1]):
                segs.pop()
            if segs:
                last = segs[-1].split(".")[0]
                out.update({last, last.removeprefix("go-"), last.replace("-", "_")})
        elif resolver == "rust":
            out.update(_IDENTS.findall(path))
        elif resolver == "python" and not imp.names and path and not path.startswith("."):
            out.add(path.split(".")[0])
    out.discard("")
    return frozenset(out)


_IDENTS = re.compile(r"[A-Za-z_$][\w$]*")
DEF_SPAN = 4  # a definition's name sits on one of its first lines


def _own(row: int, name: str, items: Sequence, starts: Sequence[int]) -> bool:
    """Whether `row` is one of the first DEF_SPAN lines of a definition of `name` (a
    definition is not a use of itself). Items are in file order: the few starting just
    above the row are looked at, instead of indexing every definition per version."""
    k = bisect.bisect_right(starts, row) - 1
    while k >= 0 and starts[k] > row - DEF_SPAN:
        it = items[k]
        if it[0] == name and it[1] != "import":
            return True
        k -= 1
    return False


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def anchor_range(items: Sequence, cursor_line: int, lines: Sequence[str] = ()
                 ) -> tuple[int, int]:
    """The innermost outline item (function, method, class) around the cursor line;
    the cursor line itself when none encloses it. A cursor on an indented line just
    below a definition (the body's next line, not parsed into it yet) belongs to it."""
    indent = _indent(lines[cursor_line]) if cursor_line < len(lines) else 0
    best = (cursor_line, cursor_line)
    best_level = -1
    starts = item_starts(items)  # warm: moved items' first lines, not the items built
    at = bisect.bisect_right(starts, cursor_line)
    # items are in file order; containers precede their members
    for k in range(at - 1, -1, -1):
        it = items[k]
        if it.kind == "import":
            continue
        inside = it.start <= cursor_line <= it.end
        if not inside and indent and cursor_line - 2 <= it.end < cursor_line and \
                it.start < len(lines) and _indent(lines[it.start]) < indent:
            inside = True  # the line right after its body, indented into it
        if inside and it.level > best_level:
            best, best_level = (it.start, max(it.end, cursor_line)), it.level
            if it.level >= 2:
                break
        if it.level == 1 and it.end < cursor_line - 2 and best_level >= 1:
            break
    return best



def _note_receivers(typed, first: int, lo: int, hi: int, wanted, receiver_types: dict[str, int],
                    receivers: dict[str, set[str]]) -> None:
    """Receiver types a node declares (`var: Type`, `var = Type(...)`) for wanted names:
    the nearest row's distance to lo..hi per type, and the types each variable holds."""
    for rel, var, type_name in typed:
        if type_name not in wanted:
            continue
        row = first + rel
        d = 0 if lo <= row <= hi else (lo - row if row < lo else row - hi)
        if d < receiver_types.get(type_name, FAR):
            receiver_types[type_name] = d
        receivers.setdefault(var, set()).add(type_name)

def _note_fresh(typed, first: int, cursor_line: int, typing_line: int, wanted,
                fresh: dict[str, int]) -> None:
    """Types of receivers declared within FRESH_ROWS above the cursor line (not on the
    line being typed: half written), by their rows above it."""
    for rel, _, type_name in typed:
        row = first + rel
        up = cursor_line - row
        if 0 < up <= FRESH_ROWS and row != typing_line and type_name in wanted and \
                up < fresh.get(type_name, FAR):
            fresh[type_name] = up


def gather(analysis, cursor_line: int, names: Iterable[str], resolver: str = "",
           typing_line: int = -1) -> Evidence:
    """Evidence for `names` in the current file's `analysis` with the cursor at
    `cursor_line` (0-based). `typing_line`: a line being typed at its end, whose
    half-written names are not evidence yet (-1: none)."""
    lines = analysis.lines
    import_lines = analysis.import_lines
    import_idents: set[str] = set()
    star = False
    for row in import_lines:
        if row < len(lines):
            line = lines[row]
            import_idents |= line_identifiers(line)
            star = star or "*" in line
    bound = bound_names(analysis.imports, lines, resolver)
    items = analysis.items
    starts = item_starts(items)  # per items tuple (`moved_items`)
    anchor = anchor_range(anchor_items(analysis), cursor_line, lines)
    lo, hi = anchor
    wanted = frozenset(names)
    nodes: dict[str, int] = {}
    distance: dict[str, int] = {}
    qualified: set[str] = set()
    attribute: set[str] = set()
    quals: dict[str, set[str]] = {}
    go = receiver_dialect(resolver)
    kept: dict = {}
    receiver_types: dict[str, int] = {}
    receivers: dict[str, set[str]] = {}
    far_nodes: list = []
    fresh: dict[str, int] = {}
    far_sig: list = []
    plain: set[str] = set()  # Go: names used without a selector somewhere
    unread: list = []  # Go: (name, first row, rows) of nodes using it without a selector
    for node in analysis.usages:
        first, last, ident_set, idents = node
        gap = lo - last if last < lo else (first - hi if first > hi else 0)
        if gap > NEAR_ROWS and first not in import_lines:
            # far from the anchor: its part depends only on the node and its offset
            # from the anchor, which a keystroke inside the anchor leaves as they were
            far_nodes.append(node)
            far_sig.append((id(ident_set), id(idents), last < lo,
                            lo - first if last < lo else first - hi,
                            lo - last if last < lo else last - hi))
            continue
        hits = wanted & ident_set if len(wanted) < len(ident_set) else ident_set & wanted
        if not hits:
            continue
        attrs, typed = _node_attributes(lines, first, last, idents, go, kept)
        _note_receivers(typed, first, lo, hi, wanted, receiver_types, receivers)
        if typed and first <= cursor_line and last >= cursor_line - FRESH_ROWS:
            _note_fresh(typed, first, cursor_line, typing_line, wanted, fresh)
        cursor_here = first <= typing_line <= last
        for name in hits:
            if cursor_here:
                rows = idents[name]
                if len(rows) == 1 and rows[0] + first == typing_line:
                    continue  # the line being typed is not evidence yet (half a name)
            nodes[name] = nodes.get(name, 0) + 1
            qs = attrs.get(name)
            if qs:
                attribute.add(name)
                quals.setdefault(name, set()).update(qs)
                if not qs.isdisjoint(bound):
                    qualified.add(name)
            if go is True and name not in plain:
                _note_plain(lines, first, idents[name], name, qs, plain, unread)
            best = distance.get(name, FAR)
            if best == 0:
                continue
            if last < lo - best or first > hi + best:
                continue
            rows = idents[name]
            # the nearest rows to the anchor first (rows are ascending); all of them
            # only when those few are excluded (import lines, the definition itself)
            at = bisect.bisect_left(rows, lo - first)
            near = rows[max(0, at - 2):at + 2]
            for group in (near, rows):
                found = False
                for rel in group:
                    row = first + rel
                    if row in import_lines or row == typing_line or _own(row, name, items, starts):
                        continue
                    found = True
                    d = 0 if lo <= row <= hi else (lo - row if row < lo else row - hi)
                    if d < best:
                        best = d
                if found or len(near) == len(rows):
                    break
            distance[name] = best
    far = _far_part(lines, far_nodes, tuple(far_sig), lo, hi, wanted, bound, go, kept)
    _merge_far(far, nodes, distance, qualified, attribute, quals, receiver_types, receivers)
    plain |= far.plain
    if far.unread:  # by the far nodes' rows now (the memo holds for moved nodes)
        unread.extend((name, far_nodes[k][0], rows) for name, k, rows in far.unread)
    _read_plain(lines, unread, attribute, plain)
    with _MEMO_LOCK:
        _NODE_ATTRS.clear()
        _NODE_ATTRS.update(kept)
    measured = go is True
    uses = {n: NameUse(c, distance.get(n, FAR), n in qualified, n in attribute,
                       frozenset(quals.get(n, ())),
                       (n in plain or n not in attribute) if measured else None)
            for n, c in nodes.items()}
    return Evidence(anchor, frozenset(import_idents), bound, uses, star, receiver_types,
                    {v: frozenset(t) for v, t in receivers.items()}, fresh)


@dataclass(frozen=True)
class _FarPart:
    """What the nodes far from the anchor contribute to `gather` (they are measured
    whole, so their part is a function of the nodes and their offsets alone)."""
    nodes: tuple  # the usages it was computed from (keeps the keyed ids alive)
    per_name: dict[str, tuple[int, int, frozenset[str]]]  # name -> (nodes, distance, quals)
    attribute: frozenset[str]
    qualified: frozenset[str]
    receiver_types: dict[str, int]
    receivers: dict[str, frozenset[str]]
    plain: frozenset[str] = frozenset()  # Go: names used without a selector
    unread: tuple = ()  # Go: (name, far node index, rows) of nodes not using it after one


FAR_MEMO_SIZE = 8  # anchors (and name sets) whose far part is remembered
_FAR: list[tuple[tuple, _FarPart]] = []  # (key, part), most recently used last


def _far_part(lines: Sequence[str], far_nodes: list, sig: tuple, lo: int, hi: int,
              wanted: frozenset[str], bound: frozenset[str], go: bool, kept: dict) -> _FarPart:
    """The far nodes' part, memoized between keystrokes: typing inside the anchor
    changes no far node and none of their offsets to the anchor's range. (A short list
    scanned in order: hashing the long key on every lookup would cost more.)"""
    key = (go, bound, sig, wanted)
    with _MEMO_LOCK:
        for k in range(len(_FAR) - 1, -1, -1):
            if _FAR[k][0] == key:
                entry = _FAR.pop(k)
                _FAR.append(entry)
                return entry[1]
    part = _compute_far(lines, far_nodes, lo, hi, wanted, bound, go, kept)
    with _MEMO_LOCK:
        _FAR.append((key, part))
        del _FAR[:-FAR_MEMO_SIZE]
    return part


def _compute_far(lines: Sequence[str], far_nodes: list, lo: int, hi: int,
                 wanted: frozenset[str], bound: frozenset[str], go: bool,
                 kept: dict) -> _FarPart:
    counts: dict[str, int] = {}
    distance: dict[str, int] = {}
    quals: dict[str, set[str]] = {}
    attribute: set[str] = set()
    qualified: set[str] = set()
    receiver_types: dict[str, int] = {}
    receivers: dict[str, set[str]] = {}
    plain: set[str] = set()
    unread: list = []
    for k, (first, last, ident_set, idents) in enumerate(far_nodes):
        hits = wanted & ident_set if len(wanted) < len(ident_set) else ident_set & wanted
        if not hits:
            continue
        attrs, typed = _node_attributes(lines, first, last, idents, go, kept)
        _note_receivers(typed, first, lo, hi, wanted, receiver_types, receivers)
        gap = lo - last if last < lo else (first - hi if first > hi else 0)
        for name in hits:
            counts[name] = counts.get(name, 0) + 1
            qs = attrs.get(name)
            if qs:
                attribute.add(name)
                quals.setdefault(name, set()).update(qs)
                if not qs.isdisjoint(bound):
                    qualified.add(name)
            if go is True and name not in plain:
                if qs:
                    if _plain_in(lines, first, idents[name], name):
                        plain.add(name)
                else:  # by its index: a memoized part outlives the node's row numbers
                    unread.append((name, k, idents[name]))
            if gap < distance.get(name, FAR):
                distance[name] = gap
    per_name = {n: (c, distance.get(n, FAR), frozenset(quals.get(n, ())))
                for n, c in counts.items()}
    return _FarPart(tuple(far_nodes), per_name, frozenset(attribute), frozenset(qualified),
                    receiver_types, {v: frozenset(t) for v, t in receivers.items()},
                    frozenset(plain), tuple(unread))


def _merge_far(far: _FarPart, nodes: dict, distance: dict, qualified: set, attribute: set,
               quals: dict, receiver_types: dict, receivers: dict) -> None:
    """Add the far part to what the near nodes gave (sums, minima and unions: the
    order the nodes are visited in does not matter)."""
    for name, (count, d, qs) in far.per_name.items():
        nodes[name] = nodes.get(name, 0) + count
        if d < distance.get(name, FAR):
            distance[name] = d
        if qs:
            quals.setdefault(name, set()).update(qs)
    attribute |= far.attribute
    qualified |= far.qualified
    for type_name, d in far.receiver_types.items():
        if d < receiver_types.get(type_name, FAR):
            receiver_types[type_name] = d
    for var, types in far.receivers.items():
        receivers.setdefault(var, set()).update(types)


def forget_far() -> None:
    with _MEMO_LOCK:
        _FAR.clear()
