"""Parse-once caches: a file's outline items, imports and package, kept incremental.

A file is analyzed one top-level node at a time. Each node's result is cached under
its own text (plus the comment/attribute lines right above it and its first and last
full lines, which rendering reads), with line numbers relative to the node; a second
cache places it at its current line and item index. Typing inside one function of a
5,000-line file therefore re-extracts that function only: the rest is dictionary hits.

Whole analyses are cached too: disk files by (real path, mtime, size), open buffers by
(uri, version, length, text hash), so an edit or a save is never served stale. The
current document is analyzed from its own incremental tree (`ParsedDocument.tree()`).
"""

from __future__ import annotations

import bisect
import threading
import time
from dataclasses import dataclass, field
from typing import (Any, Callable, Generator, Hashable, Iterator, Mapping, NamedTuple,
                    Sequence)

from cachetools import LRUCache
from tree_sitter import Node, Parser, Tree

from .bigfile_fastpath import note_splice
from .doc_lines import BlockLines
from .document import parse_bytes
from .edit_span import DocEdits
from .ident_counts import updated
from .ident_patch import patched_idents
from .languages import LanguageSpec
from .memo import line_identifiers
from .moved_items import MovedUsages, lazy_spliced, pieces_of, spliced
from .outline import Item, build_items, outline_levels, remember_levels
from .rust_comments import unread_rows
from .symbols import ImportRef, _extract_definitions, _extract_imports, _is_comment_line, \
    split_lines

LEAD_LINES = 20
_LEAD_CHARS = frozenset("#/;-*@")  # first characters of comment / attribute lines  # comment / attribute lines above a node that its rendering may read


# parses document bytes start..end alone, at their (row, column) points: a tree whose
# positions are the document's (`local_parse.region_parser`), or None
RegionParser = Callable[[int, int, tuple[int, int], tuple[int, int]], "Tree | None"]


class _Chunk(NamedTuple):
    """One top-level node's analysis, rows relative to its first line."""

    items: tuple[Item, ...]  # parent = chunk-local index or -1
    imports: tuple[ImportRef, ...]
    top_starts: tuple[int, ...]
    package: str | None
    idents: dict[str, tuple[int, ...]]  # identifier -> relative rows using it
    ident_set: frozenset[str]  # its keys (set & frozenset iterates the smaller side)
    has_error: bool = False  # the node holds a syntax error (ERROR or MISSING)


class _Placed(NamedTuple):
    items: tuple[Item, ...]
    imports: tuple[ImportRef, ...]
    top_starts: tuple[int, ...]


@dataclass(frozen=True)
class Analysis:
    spec: LanguageSpec
    lines: Sequence[str]
    items: tuple[Item, ...]
    imports: tuple[ImportRef, ...]
    package: str | None
    top_starts: tuple[int, ...]  # first lines of top-level definitions
    import_lines: frozenset[int] = field(default=frozenset())
    # (first line, last line, identifiers, identifier -> relative rows) per top-level node
    usages: tuple[tuple[int, int, frozenset[str], dict[str, tuple[int, ...]]], ...] = ()
    # identifier -> how many of `usages` use it (kept incrementally between versions)
    ident_counts: Mapping[str, int] | None = field(default=None, compare=False, repr=False)

    def usage_distances(self, names: set[str], cursor_line: int, far: int) -> dict[str, int]:
        """Nearest use of each of `names` to the cursor line; uses on import lines
        count `far` lines further away. Nodes are visited outward from the cursor, and
        a name stops being looked for once no farther node can bring it closer."""
        found: dict[str, int] = {}
        skip = self.import_lines
        usages = self.usages
        firsts = [u[0] for u in usages]
        below = bisect.bisect_right(firsts, cursor_line)  # first node starting after
        above = below - 1
        counts = self.ident_counts
        if counts is None:
            counts = _ident_counts(usages)
        # names used nowhere are never found; a name stops being looked for once the
        # last node using it was visited (names used on import lines only would
        # otherwise walk the whole file)
        remaining = {n: c for n in names if (c := counts.get(n))}
        pending = set(remaining)  # not final yet
        open_found: set[str] = set()  # found, but a nearer use may still come
        done: list[str] = []
        while pending and (above >= 0 or below < len(usages)):
            lb_above = max(0, cursor_line - usages[above][1]) if above >= 0 else None
            lb_below = usages[below][0] - cursor_line if below < len(usages) else None
            if lb_below is None or (lb_above is not None and lb_above <= lb_below):
                first, last, ident_set, idents = usages[above]
                bound = lb_above
                above -= 1
            else:
                first, last, ident_set, idents = usages[below]
                bound = lb_below
                below += 1
            if open_found:
                settled = [n for n in open_found if found[n] <= bound]
                pending.difference_update(settled)
                open_found.difference_update(settled)
            for name in pending & ident_set:
                open_found.add(name)
                rows = idents[name]
                at = bisect.bisect_left(rows, cursor_line - first)
                candidates = rows[max(0, at - 1):at + 1]
                if rows[0] + first in skip or rows[-1] + first in skip:
                    candidates = rows  # an import line may be the only use
                for rel in candidates:
                    row = first + rel
                    d = abs(row - cursor_line) + (far if row in skip else 0)
                    if d < found.get(name, 1 << 62):
                        found[name] = d
                left = remaining[name] - 1
                remaining[name] = left
                if not left:
                    done.append(name)
            if done:
                pending.difference_update(done)
                open_found.difference_update(done)
                done.clear()
        return found


def _ident_counts(usages) -> dict[str, int]:
    counts: dict[str, int] = {}
    for u in usages:
        for name in u[2]:
            counts[name] = counts.get(name, 0) + 1
    return counts


def _ident_counts_steps(recs: Sequence["_NodeRec"], slice_s: float
                        ) -> Generator[None, None, dict[str, int]]:
    """`_ident_counts` of the recs' identifier sets, yielding every `slice_s` seconds."""
    counts: dict[str, int] = {}
    deadline = time.perf_counter() + slice_s
    for rec in recs:
        if time.perf_counter() > deadline:
            yield
            deadline = time.perf_counter() + slice_s
        for name in rec.chunk.ident_set:
            counts[name] = counts.get(name, 0) + 1
    return counts


_LOCK = threading.RLock()
_FILES: LRUCache = LRUCache(maxsize=256)  # neighbor files and other open buffers
_CURRENT: LRUCache = LRUCache(maxsize=8)  # recent versions of documents being edited
# per-node memos: plain dicts (an LRU's bookkeeping would cost more than the lookups
# it guards, ~700 per request on a 5,000-line file); emptied when they grow too big
_CHUNKS: dict = {}
_PLACED: dict = {}
MEMO_LIMIT = 50_000
# ...and in (estimated) bytes: typing inside a big class re-extracts the whole class per
# keystroke, ~12x its source each time; entry counts alone let that grow to gigabytes
MEMO_BYTES = 8 << 20
_memo_used = {"chunks": 0, "placed": 0}


def _memo_cost(node_key: tuple) -> int:
    return 12 * len(node_key[4]) + 512


def _memo_put(memo: dict, name: str, key: tuple, value: Any, node_key: tuple) -> None:
    """Insert; evict the oldest entries past MEMO_LIMIT entries or MEMO_BYTES."""
    if key not in memo:
        _memo_used[name] += _memo_cost(node_key)
    memo[key] = value
    while memo and (len(memo) > MEMO_LIMIT or _memo_used[name] > MEMO_BYTES):
        old = next(iter(memo))
        del memo[old]
        _memo_used[name] -= _memo_cost(old if name == "chunks" else old[0])
def _memo_touch(memo: dict, key: tuple) -> None:
    """Mark an entry as just used, so eviction (oldest first) takes stale versions of
    edited code, not the unchanged code every analysis reuses (that was a p99 of
    200+ ms per keystroke on a 5,000-line file: the whole file re-extracted)."""
    with _LOCK:
        value = memo.pop(key, None)
        if value is not None:
            memo[key] = value


_PARSERS: dict[str, Parser] = {}
stats = {"chunks_extracted": 0, "chunks_reused": 0}


def _parse(spec: LanguageSpec, source: bytes) -> Tree:
    with _LOCK:
        parser = _PARSERS.get(spec.name)
        if parser is None:
            parser = _PARSERS[spec.name] = spec.parser()
        return parser.parse(source)


def _lead(spec: LanguageSpec, lines: Sequence[str], row: int) -> tuple[str, ...]:
    if row == 0 or lines[row - 1].lstrip()[:1] not in _LEAD_CHARS:
        return ()  # the usual case, decided without the full checks
    out = []
    r = row - 1
    while r >= 0 and len(out) < LEAD_LINES:
        stripped = lines[r].strip()
        if not (_is_comment_line(stripped, spec) or
                (spec.attribute_prefixes and stripped.startswith(spec.attribute_prefixes))):
            break
        out.append(lines[r])
        r -= 1
    return tuple(out)


def _extract_chunk(spec: LanguageSpec, tree: Tree, source: bytes, lines: Sequence[str],
                   node: Node, first: int) -> _Chunk:
    return _drain(_extract_chunk_steps(spec, tree, source, lines, node, first, None))


# a node's identifier table is built this many rows (names) at a time between two
# looks at the clock: a huge node (lodash's 17,000-line IIFE) is extracted in slices
_ROWS_PER_LOOK = 256
_NAMES_PER_LOOK = 4096
COMMENTS_UNREAD = frozenset({"rust"})  # comment rows that are no evidence (`rust_comments`)


def _extract_chunk_steps(spec: LanguageSpec, tree: Tree, source: bytes,
                         lines: Sequence[str], node: Node, first: int,
                         slice_s: float | None, prior: "_Prior | None" = None
                         ) -> Generator[None, None, _Chunk]:
    """`_extract_chunk`, yielding every `slice_s` seconds (never when None) while the
    node's rows are scanned for identifiers (the bulk of a huge node's cost).
    `prior`: the node's last version and the rows an edit changed in it, from which
    its identifier table is patched (`ident_patch`) instead of read again."""
    defs = _extract_definitions(spec, tree, source, lines, (node,))
    imports, package = _extract_imports(spec, tree, (node,))
    items = build_items(spec, lines, defs, imports)
    rel_items = tuple(it._replace(start=it.start - first, end=it.end - first)
                      for it in items)
    rel_imports = tuple(ImportRef(i.kind, i.path, i.names, i.start - first, i.end - first)
                        for i in imports)
    top = tuple(d.start - first for d in defs if d.parent == -1)
    last = min(node.end_point[0], len(lines) - 1)
    idents: dict[str, list[int]] = {}
    comments = spec.resolver in COMMENTS_UNREAD
    if slice_s is None and prior is not None and not comments:
        patched = patched_idents(prior.idents, prior.lines, lines, first, prior.lo,
                                 prior.old_hi, prior.new_hi, last + 1 - first)
        if patched is not None:
            return _Chunk(rel_items, rel_imports, top, package, patched, frozenset(patched),
                          node.has_error)
    if slice_s is None:
        _add_identifiers(lines, first, first, last + 1, idents, comments)
        return _Chunk(rel_items, rel_imports, top, package,
                      {k: tuple(v) for k, v in idents.items()}, frozenset(idents),
                      node.has_error)
    deadline = time.perf_counter() + slice_s
    for row in range(first, last + 1, _ROWS_PER_LOOK):
        if time.perf_counter() > deadline:
            yield
            deadline = time.perf_counter() + slice_s
        _add_identifiers(lines, first, row, min(row + _ROWS_PER_LOOK, last + 1), idents,
                         comments)
    names = list(idents)
    frozen: dict[str, tuple[int, ...]] = {}
    for at in range(0, len(names), _NAMES_PER_LOOK):
        if time.perf_counter() > deadline:
            yield
            deadline = time.perf_counter() + slice_s
        for name in names[at:at + _NAMES_PER_LOOK]:
            frozen[name] = tuple(idents[name])
    return _Chunk(rel_items, rel_imports, top, package, frozen, frozenset(frozen),
                  node.has_error)


def _add_identifiers(lines: Sequence[str], first: int, start: int, stop: int,
                     idents: dict[str, list[int]], skip_comments: bool = False) -> None:
    """Rows start..stop-1: each identifier -> the rows (relative to `first`) using it
    (`skip_comments`: not the comment rows `rust_comments.py` finds no evidence in)."""
    skip = unread_rows(lines, start, stop) if skip_comments else ()
    get = idents.get
    # one slice, not an index per row (`BlockLines` indexes in Python); no new list
    # per name already seen (`setdefault`'s default): a Java class is one node of
    # thousands of rows, re-read whenever a line of it changes
    for rel, line in enumerate(lines[start:stop], start - first):
        if skip and rel + first in skip:
            continue
        for name in line_identifiers(line):  # memoized: unchanged lines are free
            rows = get(name)
            if rows is None:
                idents[name] = [rel]
            else:
                rows.append(rel)


def _place(chunk: _Chunk, offset: int, base: int) -> _Placed:
    new = tuple.__new__  # 3x cheaper than Item(...): placing runs per added line
    items = tuple(new(Item, (it[0], it[1], it[2], it[3] + offset, it[4] + offset, it[5],
                             it[6], it[7] + base if it[7] != -1 else -1, it[8], it[9]))
                  for it in chunk.items)
    imports = tuple(ImportRef(i.kind, i.path, i.names, i.start + offset, i.end + offset)
                    for i in chunk.imports)
    return _Placed(items, imports, tuple(s + offset for s in chunk.top_starts))


class _NodeRec(NamedTuple):
    """One top-level node of the last analyzed version of a document."""

    key: tuple
    first: int
    last: int
    start: int  # bytes
    end: int
    chunk: _Chunk
    placed: "_Placed | None" = None  # the chunk placed at (first, base), when known
    base: int = -1


@dataclass
class _State:
    """What the next version of a document is diffed against."""

    source: bytes
    lines: Sequence[str]  # a BlockLines (patched per edit) or split_lines' list
    recs: list[_NodeRec]
    ident_counts: Mapping[str, int]  # identifier -> how many nodes use it (`ident_counts`)
    analysis: Analysis  # of this version
    # per node, how many items, imports, top-level starts and usages the nodes before
    # it contribute (len(recs) + 1 entries each): where a node's share of each starts
    at: tuple[list[int], list[int], list[int], list[int]]
    levels: list  # outline levels of analysis.items (see outline._levels)
    total: int  # token cost of all items
    packaged: bool  # whether any node declares a package
    # from a region parse with a syntax error (`_analyze_region`): it may differ from
    # the whole tree's; `exact` is the last version that does not, which the next
    # analysis from a whole tree diffs against instead
    provisional: bool = False
    exact: "_State | None" = None
    errors: tuple[int, ...] = ()  # indices of the nodes holding a syntax error
    # `recs[i]` for i >= rec_from is off by rec_shift (bytes, rows): an edit adds its
    # length to the following nodes lazily (read them through `_rec_at`)
    rec_from: int = 0
    rec_shift: tuple[int, int] = (0, 0)
    root_error: bool = False  # the whole parse failed at its root (`note_root`)
    serial: int = 0  # the document version's number (`Document.serial`), 0: unknown


_STATES: LRUCache = LRUCache(maxsize=16)  # document -> _State


class _Prior(NamedTuple):
    """A node's last version: its identifier table, the lines it was read from, and
    the rows (relative, inclusive) an edit replaced: lo..old_hi by lo..new_hi."""

    idents: dict[str, tuple[int, ...]]
    lines: Sequence[str]
    lo: int
    old_hi: int
    new_hi: int


def _chunk_rec(spec: LanguageSpec, tree: Tree, source: bytes, lines: Sequence[str],
               node: Node, prior: _Prior | None = None) -> _NodeRec | None:
    return _drain(_chunk_rec_steps(spec, tree, source, lines, node, None, prior))


def _chunk_rec_steps(spec: LanguageSpec, tree: Tree, source: bytes, lines: Sequence[str],
                     node: Node, slice_s: float | None, prior: _Prior | None = None
                     ) -> Generator[None, None, _NodeRec | None]:
    """`_chunk_rec`, a huge node's extraction yielding every `slice_s` seconds."""
    n = len(lines)
    first = node.start_point[0]
    if first >= n:
        return None
    last = min(node.end_point[0], n - 1)
    start, end = node.start_byte, node.end_byte
    key = (spec.name, _lead(spec, lines, first), lines[first], lines[last], source[start:end])
    chunk = _CHUNKS.get(key)
    if chunk is None:
        chunk = yield from _extract_chunk_steps(spec, tree, source, lines, node, first,
                                                slice_s, prior)
        stats["chunks_extracted"] += 1
        with _LOCK:
            _memo_put(_CHUNKS, "chunks", key, chunk, key)
    else:
        stats["chunks_reused"] += 1
        _memo_touch(_CHUNKS, key)
    return _NodeRec(key, first, last, start, end, chunk)


def _drain(steps: Generator[None, None, Any]) -> Any:
    """Run a sliced computation to its end at once; its result."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def _assemble(spec: LanguageSpec, lines: list[str], recs: list[_NodeRec],
              ident_counts: dict[str, int] | None = None) -> Analysis:
    """The file's analysis from its nodes' chunks (`recs` gets their placements)."""
    return _drain(_assemble_steps(spec, lines, recs, ident_counts, None))


def _assemble_steps(spec: LanguageSpec, lines: list[str], recs: list[_NodeRec],
                    ident_counts: dict[str, int] | None, slice_s: float | None
                    ) -> Generator[None, None, Analysis]:
    """`_assemble`, yielding every `slice_s` seconds (never when None)."""
    items: list[Item] = []
    imports: list[ImportRef] = []
    top_starts: list[int] = []
    usages: list[tuple[int, int, frozenset[str], dict[str, tuple[int, ...]]]] = []
    package = None
    deadline = time.perf_counter() + (slice_s or 0.0)
    for index, rec in enumerate(recs):
        if slice_s is not None and time.perf_counter() > deadline:
            yield
            deadline = time.perf_counter() + slice_s
        chunk = rec.chunk
        if chunk.idents:
            usages.append((rec.first, rec.last, chunk.ident_set, chunk.idents))
        if not chunk.items and not chunk.imports and chunk.package is None:
            continue
        base = len(items)
        if rec.placed is not None and rec.base == base:
            placed = rec.placed
        else:
            place_key = (rec.key, rec.first, base)
            placed = _PLACED.get(place_key)
            if placed is not None:
                _memo_touch(_PLACED, place_key)
            if placed is None:
                placed = _place(chunk, rec.first, base)
                with _LOCK:
                    _memo_put(_PLACED, "placed", place_key, placed, rec.key)
            recs[index] = _NodeRec(rec.key, rec.first, rec.last, rec.start, rec.end, chunk,
                                   placed, base)
        items.extend(placed.items)
        imports.extend(placed.imports)
        top_starts.extend(placed.top_starts)
        package = package or chunk.package
    import_lines = frozenset(i for imp in imports for i in range(imp.start, imp.end + 1))
    return Analysis(spec, lines, tuple(items), tuple(imports), package, tuple(top_starts),
                    import_lines, tuple(usages), ident_counts)


def _analyze_tree(spec: LanguageSpec, text: str, tree: Tree,
                  state_key: Hashable | None = None, source: bytes | None = None,
                  edits: DocEdits | None = None) -> Analysis:
    if source is None:
        source = parse_bytes(text)
    state = _STATES.get(state_key) if state_key is not None else None
    if state is not None:
        done = _analyze_incremental(spec, state, text, source, tree, edits=edits)
        if done is not None:
            analysis, new_state = done
            new_state.root_error = tree.root_node.is_error
            _noted(new_state, edits)
            _STATES[state_key] = new_state
            return analysis
    lines = split_lines(text)
    recs = [r for node in tree.root_node.children
            if (r := _chunk_rec(spec, tree, source, lines, node)) is not None]
    result = _full(spec, source, lines, recs, state_key)
    note_root(state_key, tree)
    with _LOCK:
        state = _STATES.get(state_key) if state_key is not None else None
    if state is not None and state.source is source:
        _noted(state, edits)
    return result


def _noted(state: _State, edits: DocEdits | None) -> _State:
    """`state` with the serial of the document version it is of, when known."""
    if edits is not None:
        state.serial = edits.serial
    return state


def _edited_span(state: _State, source: bytes, edits: DocEdits | None
                 ) -> tuple[int, int, int, int]:
    """(first changed byte, end of the changed old bytes, their rows) between the
    state's version and `source`: from the document's edit log when it reaches back
    to the state's version (`edit_span`), else by comparing the bytes."""
    old = state.source
    span = edits.since(state.serial) if edits is not None and state.serial else None
    # the log's rows are the document's lines, and so the tree's (a lone "\r" is parsed
    # as "\n", `document.parse_bytes`)
    if span is not None and span.holds(old, source):
        return span.start, span.old_end, span.start_row, span.old_end_row
    p = _common_prefix(old, source)
    s = _common_suffix(old, source, min(len(old), len(source)) - p)
    old_end = len(old) - s
    row_p = old.count(b"\n", 0, p)
    return p, old_end, row_p, row_p + old.count(b"\n", p, old_end)


def note_root(state_key: Hashable | None, tree: Tree) -> None:
    """Remember whether the analyzed version's whole parse failed at its root (its
    top-level children are then bare tokens that carry no error of their own)."""
    with _LOCK:
        state = _STATES.get(state_key) if state_key is not None else None
    if state is not None:
        state.root_error = tree.root_node.is_error


def _full(spec: LanguageSpec, source: bytes, lines: list[str], recs: list[_NodeRec],
          state_key: Hashable | None) -> Analysis:
    """The analysis of a full pass over every node, remembered for the next version."""
    return _drain(_full_steps(spec, source, lines, recs, state_key, None))


def _full_steps(spec: LanguageSpec, source: bytes, lines: list[str], recs: list[_NodeRec],
                state_key: Hashable | None, slice_s: float | None
                ) -> Generator[None, None, Analysis]:
    if state_key is None:
        return (yield from _assemble_steps(spec, lines, recs, None, slice_s))
    if slice_s is None:
        counts = _ident_counts([(0, 0, r.chunk.ident_set) for r in recs])
    else:  # 10-20 ms over 3,000 nodes: in slices too
        counts = yield from _ident_counts_steps(recs, slice_s)
        yield
    result = yield from _assemble_steps(spec, lines, recs, counts, slice_s)
    if slice_s is not None:
        yield
    levels = outline_levels(result.items)
    if slice_s is not None:
        yield
    state = _State(source, BlockLines.of(lines), recs, counts, result, _positions(recs), levels,
                   sum(it.tokens for it in result.items),
                   any(r.chunk.package is not None for r in recs),
                   errors=tuple(i for i, r in enumerate(recs) if r.chunk.has_error))
    with _LOCK:
        _STATES[state_key] = state
    return result


def _shares(chunk: _Chunk) -> tuple[int, int, int, int]:
    """Items, imports, top-level starts and usages a node contributes (`_assemble`)."""
    if not chunk.items and not chunk.imports and chunk.package is None:
        return 0, 0, 0, 1 if chunk.idents else 0
    return (len(chunk.items), len(chunk.imports), len(chunk.top_starts),
            1 if chunk.idents else 0)


def _positions(recs: Sequence[_NodeRec]) -> tuple[list[int], list[int], list[int], list[int]]:
    at: tuple[list[int], list[int], list[int], list[int]] = ([0], [0], [0], [0])
    a, b, c, d = 0, 0, 0, 0
    for rec in recs:
        i, m, t, u = _shares(rec.chunk)
        a += i
        b += m
        c += t
        d += u
        at[0].append(a)
        at[1].append(b)
        at[2].append(c)
        at[3].append(d)
    return at


_BLOCK = 4096


def _common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    lo = 0
    while lo + _BLOCK <= n and a[lo:lo + _BLOCK] == b[lo:lo + _BLOCK]:
        lo += _BLOCK
    hi = min(n, lo + _BLOCK)
    while lo < hi:  # a[:lo] == b[:lo] holds throughout
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    la, lb = len(a), len(b)
    k = 0
    while k + _BLOCK <= limit and a[la - k - _BLOCK:la - k] == b[lb - k - _BLOCK:lb - k]:
        k += _BLOCK
    hi = min(limit, k + _BLOCK)
    while k < hi:
        mid = (k + hi + 1) // 2
        if a[la - mid:la - k] == b[lb - mid:lb - k]:
            k = mid
        else:
            hi = mid - 1
    return k


def _align(children: list, recs: list[_NodeRec], n_before: int, n_after: int, delta: int
           ) -> tuple[int, int]:
    """The longest runs of old nodes (at most `n_before` leading, `n_after` trailing)
    whose byte ranges are those of the new tree's top-level nodes (shifted by `delta`
    after the edit). Every kept node is checked."""
    nc = len(children)
    n_before = min(n_before, nc)
    k = 0
    while k < n_before and children[k].start_byte == recs[k].start and \
            children[k].end_byte == recs[k].end:
        k += 1
    n_before = k
    n_after = min(n_after, nc - n_before)
    k = 0
    while k < n_after and children[nc - 1 - k].start_byte == recs[-1 - k].start + delta and \
            children[nc - 1 - k].end_byte == recs[-1 - k].end + delta:
        k += 1
    return n_before, k


def _shifted(rec: _NodeRec, dbytes: int, drows: int) -> _NodeRec:
    return tuple.__new__(_NodeRec, (rec[0], rec[1] + drows, rec[2] + drows, rec[3] + dbytes,
                                    rec[4] + dbytes, rec[5], None if drows else rec[6],
                                    -1 if drows else rec[7]))


def _rec_at(state: _State, index: int) -> _NodeRec:
    """Node `index` of the state's version, its pending shift applied."""
    rec = state.recs[index]
    if index >= state.rec_from and state.rec_shift != (0, 0):
        return _shifted(rec, *state.rec_shift)
    return rec


def _materialize(state: _State) -> list[_NodeRec]:
    """The state's nodes with the pending shift applied to all (a whole-tree pass)."""
    if state.rec_shift != (0, 0):
        f = state.rec_from
        state.recs = state.recs[:f] + [_shifted(r, *state.rec_shift) for r in state.recs[f:]]
        state.rec_shift = (0, 0)
    return state.recs


def _first_index(state: _State, value: int, field_index: int, right: bool) -> int:
    """`bisect_left` (or `bisect_right`) of `value` in the nodes' end (or start) bytes."""
    lo, hi = 0, len(state.recs)
    while lo < hi:
        mid = (lo + hi) // 2
        x = _rec_at(state, mid)[field_index]
        if x < value or (right and x == value):
            lo = mid + 1
        else:
            hi = mid
    return lo


def _analyze_incremental(spec: LanguageSpec, state: _State, text: str, source: bytes,
                         tree: Tree | None, region: RegionParser | None = None,
                         edits: DocEdits | None = None
                         ) -> tuple[Analysis, _State] | None:
    """Re-analyze only the top-level nodes an edit touched: nodes before the first
    changed byte are kept, nodes after the last one are kept and shifted. Returns None
    (do a full pass) whenever the new tree does not line up with that picture.

    Without a tree, `region` parses the edited nodes and one unchanged node on each
    side (`local_parse`); None when those two do not come out as they were."""
    if tree is not None and state.provisional:
        state = state.exact
        if state is None:
            return None
    old = state.source
    if old == source:
        return state.analysis, state
    p, old_end, row_p, row_old_end = _edited_span(state, source, edits)
    s = len(old) - old_end
    delta = len(source) - len(old)
    n_recs = len(state.recs)
    # kept: nodes ending before byte p and its line; nodes starting after the change,
    # its line and the comment lines a node's rendering may read above it
    n_before = _first_index(state, p, 4, False)
    while n_before and _rec_at(state, n_before - 1).last >= row_p:
        n_before -= 1
    first_after = _first_index(state, old_end, 3, True)
    while first_after < n_recs and \
            _rec_at(state, first_after).first <= row_old_end + LEAD_LINES + 1:
        first_after += 1
    if tree is None:
        return _analyze_region(spec, state, text, source, region, n_before, first_after,
                               delta, p, s, row_p, row_old_end)
    recs = _materialize(state)  # the whole tree's path checks nodes all over the file
    children = tree.root_node.children
    n_after = len(recs) - first_after
    n_mid = len(children) - n_before - n_after
    # with syntax errors in the file, error recovery may move nodes far from the edit
    # (an ERROR node absorbing its neighbor): every kept node is then checked
    if state.errors or n_mid < 0 or (n_before and (children[n_before - 1].end_byte != recs[n_before - 1].end or
                                   children[n_before - 1].start_byte != recs[n_before - 1].start)
                     ) or (n_after and (
                         children[n_before + n_mid].start_byte != recs[first_after].start + delta
                         or children[-1].end_byte != recs[-1].end + delta)):
        # the tree's top level changed around the edit (error recovery swallowing or
        # splitting nodes): keep the nodes that still line up, re-extract the rest
        n_before, n_after = _align(children, recs, n_before, n_after, delta)
        first_after = len(recs) - n_after
        n_mid = len(children) - n_before - n_after
    patched = _patch_lines(state, text, source, p, s, row_p, row_old_end)
    if patched is None:
        return None
    lines, delta_rows = patched
    return _respliced(spec, state, tree, source, lines, children[n_before:n_before + n_mid],
                      n_before, first_after, delta, delta_rows, (row_p, row_old_end))


def _patch_lines(state: _State, text: str, source: bytes, p: int, s: int, row_p: int,
                 row_old_end: int) -> tuple[Sequence[str], int] | None:
    """The new version's lines and how many rows the edit added (the last version's
    lines patched block by block, `doc_lines.BlockLines`)."""
    # the parse bytes end every line with "\n" (a lone "\r" is one, `parse_bytes`),
    # so their rows are the document's lines, also in a "\r\n" file
    row_new_end = row_p + source.count(b"\n", p, len(source) - s)
    start = source.rfind(b"\n", 0, p) + 1
    end = source.find(b"\n", len(source) - s)
    if end == -1:
        end = len(source)
    elif end > start and source[end - 1] == 13:  # the "\r" of the last line's "\r\n"
        end -= 1
    middle = source[start:end].decode("utf-8", "surrogatepass")
    middle_lines = split_lines(middle) if "\r" in middle else middle.split("\n")
    if len(middle_lines) != row_new_end - row_p + 1:
        return None
    old_lines = state.lines
    if not isinstance(old_lines, BlockLines):
        old_lines = BlockLines.of(old_lines)  # once per document
    return old_lines.patched(row_p, row_old_end, middle_lines), row_new_end - row_old_end


def _analyze_region(spec: LanguageSpec, state: _State, text: str, source: bytes,
                    region: RegionParser | None, n_before: int, first_after: int, delta: int,
                    p: int, s: int, row_p: int, row_old_end: int
                    ) -> tuple[Analysis, _State] | None:
    """`_analyze_incremental` from a parse of the edited region only: the old nodes
    `n_before`..`first_after` plus one unchanged node on each side (the sentinels).
    The region's parse stands for the whole file's when both sentinels come out
    exactly as they were (same bytes, no error): the parser then entered and left the
    region at a clean top-level boundary, as in the last full parse. A sentinel the
    edit changed (a line typed below a function joins its body) widens the region by
    a node on that side, a few times at most. Otherwise None."""
    if region is None:
        return None
    patched = _patch_lines(state, text, source, p, s, row_p, row_old_end)
    if patched is None:
        return None
    lines, delta_rows = patched
    for _ in range(REGION_TRIES):
        parsed = _parse_region(state, source, lines, region, n_before, first_after, delta,
                               delta_rows)
        if parsed is None:
            return None
        tree, before_ok, after_ok = parsed
        if before_ok and after_ok:
            break
        n_before -= not before_ok
        first_after += not after_ok
    else:
        return None
    kids = tree.root_node.children[1 if n_before else 0:]
    if first_after < len(state.recs):
        kids = kids[:-1]
    result, new_state = _respliced(spec, state, tree, source, lines, kids, n_before,
                                   first_after, delta, delta_rows, (row_p, row_old_end))
    if state.provisional or tree.root_node.has_error:
        # error recovery (an unterminated string, a bracket) may reach past the region
        # in the whole file's parse: exact again once the whole tree is reparsed
        new_state.provisional = True
        new_state.exact = state.exact if state.provisional else state
    return result, new_state


REGION_TRIES = 4  # region parses per request before the whole tree is reparsed


def _parse_region(state: _State, source: bytes, lines: Sequence[str], region: RegionParser,
                  n_before: int, first_after: int, delta: int, delta_rows: int
                  ) -> tuple[Tree, bool, bool] | None:
    """The parse of old nodes n_before - 1 .. first_after (shifted), and whether each
    sentinel came out as it was; None when the region cannot be parsed on its own."""
    before = _rec_at(state, n_before - 1) if n_before else None
    after = _rec_at(state, first_after) if first_after < len(state.recs) else None
    lo = before.start if before else 0
    hi = after.end + delta if after else len(source)
    lo_row = before.first if before else 0
    hi_row = after.last + delta_rows if after else len(lines) - 1
    lo_col = lo - (source.rfind(b"\n", 0, lo) + 1)
    hi_col = hi - (source.rfind(b"\n", 0, hi) + 1)
    if lo_row >= len(lines) or hi_row >= len(lines):
        return None
    # the region must begin and end where the whole file's parser is in its clean
    # top-level state: at a line start, after no syntax error (an indentation stack or
    # an error recovery under way there would parse the region differently)
    if lo_col or (after and after.start + delta != source.rfind(b"\n", 0, after.start + delta) + 1):
        return None
    if state.root_error or state.errors and (state.errors[0] < n_before
                                             or state.errors[-1] >= first_after):
        return None  # error recovery elsewhere may move nodes: the whole tree decides
    tree = region(lo, hi, (lo_row, lo_col), (hi_row, hi_col))
    if tree is None or tree.root_node.is_error:
        return None
    kids = tree.root_node.children
    before_ok = before is None or bool(kids) and _unchanged(kids[0], before.start, before.end)
    after_ok = after is None or len(kids) > (before is not None) and \
        _unchanged(kids[-1], after.start + delta, after.end + delta)
    return tree, before_ok, after_ok


def _unchanged(node: Node, start: int, end: int) -> bool:
    return node.start_byte == start and node.end_byte == end and not node.has_error


def _respliced(spec: LanguageSpec, state: _State, tree: Tree, source: bytes,
               lines: Sequence[str], mid_nodes: Sequence[Node], n_before: int, first_after: int,
               delta: int, delta_rows: int, edit_rows: tuple[int, int] | None = None
               ) -> tuple[Analysis, _State]:
    """The nodes before the edit kept, `mid_nodes` (of `tree`) extracted, the nodes
    from `first_after` on shifted by `delta` bytes and `delta_rows` rows.
    `edit_rows`: the old rows the edit replaced (first, last), when known: one node
    edited inside gets its identifier table patched (`_prior`)."""
    prior = _prior(state, lines, mid_nodes, n_before, first_after, delta_rows, edit_rows)
    recs = state.recs
    f = state.rec_from
    sb, sr = state.rec_shift
    if not (sb or sr):
        f = first_after
    # kept before the edit: exact values; after it: stored values under one shift,
    # the old one plus this edit's (only nodes stored exactly get rewritten: those
    # between a previous edit below and this one)
    new_recs = list(recs[:n_before]) if f >= n_before else \
        recs[:f] + [_shifted(r, sb, sr) for r in recs[f:n_before]]
    for node in mid_nodes:
        rec = _chunk_rec(spec, tree, source, lines, node, prior)
        if rec is not None:
            new_recs.append(rec)
    n_mid_recs = len(new_recs) - n_before
    rec_from = len(new_recs)
    if f > first_after:
        new_recs.extend([_shifted(r, -sb, -sr) for r in recs[first_after:f]])
        new_recs.extend(recs[f:])
    else:
        new_recs.extend(recs[first_after:])
    counts = updated(state.ident_counts,
                     (rec.chunk.ident_set for rec in recs[n_before:first_after]),
                     (rec.chunk.ident_set for rec in new_recs[n_before:n_before + n_mid_recs]))
    result, new_state = _splice(spec, state, source, lines, new_recs, counts, n_before,
                                first_after, n_mid_recs, delta_rows)
    new_state.rec_from = rec_from
    new_state.rec_shift = (sb + delta, sr + delta_rows)
    return result, new_state


def _prior(state: _State, lines: Sequence[str], mid_nodes: Sequence[Node], n_before: int,
           first_after: int, delta_rows: int, edit_rows: tuple[int, int] | None
           ) -> _Prior | None:
    """The last version of the one node an edit changed inside (same first row, the
    edited rows within it), for `ident_patch`; None otherwise."""
    if edit_rows is None or len(mid_nodes) != 1 or first_after - n_before != 1:
        return None
    old = _rec_at(state, n_before)
    node = mid_nodes[0]
    first = node.start_point[0]
    row_p, row_old_end = edit_rows
    last = min(node.end_point[0], len(lines) - 1)
    if old.first != first or row_p < first or row_old_end > old.last or \
            last != old.last + delta_rows:
        return None
    return _Prior(old.chunk.idents, state.lines, row_p - first, row_old_end - first,
                  row_old_end + delta_rows - first)


def _splice(spec: LanguageSpec, state: _State, source: bytes, lines: Sequence[str],
            new_recs: list[_NodeRec], counts: Mapping[str, int], n_before: int,
            first_after: int, n_mid: int, dr: int) -> tuple[Analysis, _State]:
    """The new analysis from the old one: the items (imports, top-level starts, usages,
    outline levels) of the nodes before the edit are kept as they are, the edited
    nodes' are placed, and the following nodes' are shifted by the lines the edit
    added and by the items the edited nodes gained. Equal to `_assemble`'s result."""
    old = state.analysis
    ia, im, it, iu = state.at
    ib, mb, tb, ub = ia[n_before], im[n_before], it[n_before], iu[n_before]
    mid_items: list[Item] = []
    mid_imports: list[ImportRef] = []
    mid_tops: list[int] = []
    mid_usages: list = []
    at = (ia[:n_before + 1], im[:n_before + 1], it[:n_before + 1], iu[:n_before + 1])
    for rec in new_recs[n_before:n_before + n_mid]:
        chunk = rec.chunk
        if chunk.idents:
            mid_usages.append((rec.first, rec.last, chunk.ident_set, chunk.idents))
        if chunk.items or chunk.imports or chunk.package is not None:
            base = ib + len(mid_items)
            place_key = (rec.key, rec.first, base)
            placed = _PLACED.get(place_key)  # nodes an edit hid and brought back
            if placed is not None:
                _memo_touch(_PLACED, place_key)
            else:
                placed = _place(chunk, rec.first, base)
                with _LOCK:
                    _memo_put(_PLACED, "placed", place_key, placed, rec.key)
            mid_items.extend(placed.items)
            mid_imports.extend(placed.imports)
            mid_tops.extend(placed.top_starts)
        at[0].append(ib + len(mid_items))
        at[1].append(mb + len(mid_imports))
        at[2].append(tb + len(mid_tops))
        at[3].append(ub + len(mid_usages))
    ia_f, im_f, it_f, iu_f = ia[first_after], im[first_after], it[first_after], iu[first_after]
    di = at[0][-1] - ia_f  # items the edited nodes gained
    dm, dt, du = at[1][-1] - im_f, at[2][-1] - it_f, at[3][-1] - iu_f
    for new_at, old_at, d in zip(at, state.at, (di, dm, dt, du)):
        tail = old_at[first_after + 1:]
        new_at.extend([x + d for x in tail] if d else tail)
    old_items = old.items
    # the following items move by dr rows (their parents by di items): lazily, as runs
    # of the last version's items (`moved_items.MovedItems`), not one new Item each
    tail_items = pieces_of(old_items, ia_f, len(old_items), dr, di)
    if dr:
        tail_imports = tuple(ImportRef(i.kind, i.path, i.names, i.start + dr, i.end + dr)
                             for i in old.imports[im_f:])
        tail_tops = tuple([x + dr for x in old.top_starts[it_f:]])
        tail_usages = pieces_of(old.usages, iu_f, len(old.usages), dr)  # lazily too
    else:
        tail_imports = old.imports[im_f:]
        tail_tops = old.top_starts[it_f:]
        tail_usages = pieces_of(old.usages, iu_f, len(old.usages))
    # typing inside a body changes no item: the last version's items stay the very
    # same object, and every table keyed on them (the ranking's, the outline's) holds
    same_items = not dr and _same_run(old_items, ib, ia_f, mid_items)
    if same_items:
        items = old_items
    else:
        items = spliced(pieces_of(old_items, 0, ib), tuple(mid_items), tail_items, bool(dr))
        note_splice(old_items, items, ib, len(old_items) - ia_f)  # the ranking's demand
    imports = old.imports[:mb] + tuple(mid_imports) + tail_imports
    if not dr and _same_run(old.top_starts, tb, it_f, mid_tops):
        top_starts = old.top_starts
    else:
        top_starts = old.top_starts[:tb] + tuple(mid_tops) + tail_tops
    # the usages are only ever iterated (evidence of a new anchor): kept as pieces,
    # built into one tuple by the first reader, not by every keystroke
    usages = lazy_spliced(pieces_of(old.usages, 0, ub), tuple(mid_usages), tail_usages,
                          MovedUsages)
    package = None
    packaged = False  # some node declares a package (Go, Java): look at every node
    if state.packaged or any(rec.chunk.package is not None
                             for rec in new_recs[n_before:n_before + n_mid]):
        for rec in new_recs:
            chunk = rec.chunk
            if chunk.package is not None:
                packaged = True
            if chunk.items or chunk.imports or chunk.package is not None:
                package = package or chunk.package
    import_lines = frozenset(i for imp in imports for i in range(imp.start, imp.end + 1))
    result = Analysis(spec, lines, items, imports, package, top_starts, import_lines, usages,
                      counts)
    if same_items:  # the same items: the same levels and total
        levels, total = state.levels, state.total
    else:
        levels, total = _spliced_levels(state, old_items, mid_items, ib, ia_f, di, dr)
    remember_levels(items, levels, total)
    shift = n_mid - (first_after - n_before)
    errors = tuple([i for i in state.errors if i < n_before]
                   + [i for i in range(n_before, n_before + n_mid)
                      if new_recs[i].chunk.has_error]
                   + [i + shift for i in state.errors if i >= first_after])
    return result, _State(source, lines, new_recs, counts, result, at, levels, total,
                          packaged, errors=errors)


def _same_run(old: Sequence, lo: int, hi: int, mid: Sequence) -> bool:
    """Whether `mid` equals old[lo:hi] (the edited nodes' entries came out as before)."""
    return len(mid) == hi - lo and tuple(old[lo:hi]) == tuple(mid)


def _spliced_levels(state: _State, old_items: Sequence[Item], mid_items: list[Item],
                    ib: int, ia_f: int, di: int, dr: int) -> tuple[list, int]:
    """The outline levels and total cost after the splice: the old levels cut at the
    edited items, the following ones shifted, the edited nodes' items put in."""
    levels = []
    for idx, starts, ends in state.levels:
        k1 = bisect.bisect_left(idx, ib)
        k2 = bisect.bisect_left(idx, ia_f)
        levels.append((idx[:k1] + ([x + di for x in idx[k2:]] if di else idx[k2:]),
                       starts[:k1] + ([x + dr for x in starts[k2:]] if dr else starts[k2:]),
                       ends[:k1] + ([x + dr for x in ends[k2:]] if dr else ends[k2:])))
    mids: list[tuple[list[int], list[int], list[int]]] = [([], [], []) for _ in range(3)]
    for j, item in enumerate(mid_items):
        m_idx, m_starts, m_ends = mids[item.level if item.level < 2 else 2]
        m_idx.append(ib + j)
        m_starts.append(item.start)
        m_ends.append(item.end)
    for (idx, starts, ends), (m_idx, m_starts, m_ends), (o_idx, _, _) in \
            zip(levels, mids, state.levels):
        if m_idx:
            k1 = bisect.bisect_left(o_idx, ib)
            idx[k1:k1] = m_idx
            starts[k1:k1] = m_starts
            ends[k1:k1] = m_ends
    total = state.total - sum(x.tokens for x in old_items[ib:ia_f]) + \
        sum(x.tokens for x in mid_items)
    return levels, total


def analyze(spec: LanguageSpec, text: str, key: Hashable, *, tree: Tree | None = None,
            current: bool = False, state_key: Hashable | None = None,
            source: bytes | None = None, edits: DocEdits | None = None) -> Analysis:
    """Outline items, imports and package of `text`, computed once per `key`.
    `state_key` names a document whose versions follow each other (edits): the next
    version is then analyzed by diffing against the previous one. `source`: `text`
    in UTF-8 when the caller has it (encoding a big text costs milliseconds)."""
    cache = _CURRENT if current else _FILES
    full_key = (spec.name, key)
    with _LOCK:
        hit = cache.get(full_key)
    if hit is not None:
        return hit
    if source is None:
        source = parse_bytes(text)
    if tree is None:
        tree = _parse(spec, source)
    result = _analyze_tree(spec, text, tree, state_key, source, edits)
    with _LOCK:
        cache[full_key] = result
    return result


def cached(spec: LanguageSpec, key: Hashable) -> Analysis | None:
    """`analyze(spec, text, key)`'s result if it is at hand, without computing it."""
    with _LOCK:
        return _FILES.get((spec.name, key))


def file_steps(spec: LanguageSpec, text: str, tree: Tree, key: Hashable,
               slice_s: float) -> Iterator[None]:
    """`analyze(spec, text, key, tree=tree)` (a file read from disk, another open
    buffer: no per-document state) in slices of about `slice_s` seconds."""
    source = parse_bytes(text)
    lines = split_lines(text)
    recs = yield from _node_recs_steps(spec, tree, source, lines, slice_s)
    result = yield from _full_steps(spec, source, lines, recs, None, slice_s)
    with _LOCK:
        _FILES[(spec.name, key)] = result


def _node_recs_steps(spec: LanguageSpec, tree: Tree, source: bytes, lines: list[str],
                     slice_s: float) -> Generator[None, None, list[_NodeRec]]:
    """Every top-level node's record, a big node's extraction in slices too."""
    children = tree.root_node.children
    yield  # 5-10 ms on 2 MB so far: the nodes start a slice of their own
    recs: list[_NodeRec] = []
    deadline = time.perf_counter() + slice_s
    for node in children:
        if node.end_point[0] - node.start_point[0] >= _ROWS_PER_LOOK:  # a big node
            rec = yield from _chunk_rec_steps(spec, tree, source, lines, node, slice_s)
        else:
            rec = _chunk_rec(spec, tree, source, lines, node)
        if rec is not None:
            recs.append(rec)
        if time.perf_counter() > deadline:
            yield
            deadline = time.perf_counter() + slice_s
    return recs


def analyze_region(spec: LanguageSpec, text: str, key: Hashable, state_key: Hashable,
                   source: bytes, region: RegionParser, edits: DocEdits | None = None
                   ) -> Analysis | None:
    """`analyze(..., current=True, state_key=...)` without the document's whole tree:
    the edit since the last analyzed version is parsed on its own (`region`). None
    when that cannot stand for the whole file's parse (the caller parses it all)."""
    full_key = (spec.name, key)
    with _LOCK:
        hit = _CURRENT.get(full_key)
        state = _STATES.get(state_key)
    if hit is not None:
        return hit
    if state is None:
        return None
    done = _analyze_incremental(spec, state, text, source, None, region, edits)
    if done is None:
        return None
    result, new_state = done
    _noted(new_state, edits)
    with _LOCK:
        _STATES[state_key] = new_state
        if not new_state.provisional:  # the whole tree's analysis replaces it
            _CURRENT[full_key] = result
    return result


def has_provisional(state_key: Hashable) -> bool:
    """Whether the last analyzed version came from a region parse with a syntax error
    (`_analyze_region`)."""
    with _LOCK:
        state = _STATES.get(state_key)
    return state is not None and state.provisional


def syntax_errors(state_key: Hashable, source: bytes) -> int | None:
    """How many top-level nodes of the analyzed version `source` hold a syntax error
    (inexact for a provisional one); None when that version is not the last analyzed
    one or its root failed."""
    with _LOCK:
        state = _STATES.get(state_key)
    if state is None or state.source is not source or state.root_error:
        return None
    return len(state.errors)


def analyzed_lines(state_key: Hashable, source: bytes) -> Sequence[str] | None:
    """`split_lines` of the text whose UTF-8 is `source`, when that is the document's
    last analyzed version (the analysis keeps them; splitting a big text again costs
    milliseconds per request). Read-only."""
    with _LOCK:
        state = _STATES.get(state_key)
    return state.lines if state is not None and state.source is source else None


def has_state(state_key: Hashable) -> bool:
    """Whether a version of this document was analyzed: the next one then costs its
    edit, not the file (see `_analyze_incremental`)."""
    with _LOCK:
        return state_key in _STATES


def analyze_steps(spec: LanguageSpec, text: str, tree: Tree, key: Hashable,
                  state_key: Hashable, slice_s: float) -> Generator[None, None, Analysis]:
    """`analyze(..., current=True, state_key=...)` of a document with no analyzed
    version yet, in slices of about `slice_s` seconds, yielding between them. `tree`
    must be a private copy (edits to the document edit its tree in place)."""
    source = parse_bytes(text)
    lines = split_lines(text)
    recs = yield from _node_recs_steps(spec, tree, source, lines, slice_s)
    result = yield from _full_steps(spec, source, lines, recs, state_key, slice_s)
    note_root(state_key, tree)
    with _LOCK:
        _CURRENT[(spec.name, key)] = result
    return result  # the preparation's last steps build its ranking tables


def forget_document(uri: str) -> None:
    """A closed document's analyzed versions: its last state (bytes, lines, node
    records: ~40 MB for a 2 MB file) and the versions kept per keystroke. Kept, they
    stayed until 16 other documents were analyzed; a reopened one is prepared
    afresh (its unchanged nodes still come from the per-node memos)."""
    with _LOCK:
        _STATES.pop(uri, None)
        for key in [k for k in _CURRENT if isinstance(k[1], tuple) and k[1][:1] == (uri,)]:
            del _CURRENT[key]


def clear() -> None:
    """Forget everything (tests, the benchmark's cold runs), the trees kept to seed a
    new document's parse included (`tree_seed`)."""
    with _LOCK:
        for cache in (_FILES, _CURRENT, _CHUNKS, _PLACED, _STATES):
            cache.clear()
        _memo_used.update(chunks=0, placed=0)
    from . import tree_seed
    tree_seed.forget()
