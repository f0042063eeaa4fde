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
import re
import threading
from dataclasses import dataclass, field
from typing import Hashable, NamedTuple, Sequence

from cachetools import LRUCache
from tree_sitter import Node, Parser, Tree

from .languages import LanguageSpec
from .outline import Item, build_items
from .symbols import ImportRef, _extract_definitions, _extract_imports, _is_comment_line, \
    split_lines

_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
LEAD_LINES = 20
_LEAD_CHARS = frozenset("#/;-*@")  # first characters of comment / attribute lines  # comment / attribute lines above a node that its rendering may read


class _Chunk(NamedTuple):
    """One top-level node's analysis, rows relative to its first line."""

    items: tuple[Item, ...]  # parent = chunk-local index or -1
    imports: tuple[ImportRef, ...]
    top_starts: tuple[int, ...]
    package: str | None
    idents: dict[str, tuple[int, ...]]  # identifier -> relative rows using it
    ident_set: frozenset[str]  # its keys (set & frozenset iterates the smaller side)


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
        pending = set(names)  # not final yet
        open_found: set[str] = set()  # found, but a nearer use may still come
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
        return found


_LOCK = threading.RLock()
_FILES: LRUCache = LRUCache(maxsize=256)  # neighbor files and other open buffers
_CURRENT: LRUCache = LRUCache(maxsize=8)  # recent versions of documents being edited
# per-node memos: plain dicts (an LRU's bookkeeping would cost more than the lookups
# it guards, ~700 per request on a 5,000-line file); emptied when they grow too big
_CHUNKS: dict = {}
_PLACED: dict = {}
MEMO_LIMIT = 50_000
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
    byte_range = (node.start_byte, node.end_byte)
    defs = _extract_definitions(spec, tree, source, lines, byte_range)
    imports, package = _extract_imports(spec, tree, byte_range)
    items = build_items(spec, lines, defs, imports)
    rel_items = tuple(it._replace(start=it.start - first, end=it.end - first)
                      for it in items)
    rel_imports = tuple(ImportRef(i.kind, i.path, i.names, i.start - first, i.end - first)
                        for i in imports)
    top = tuple(d.start - first for d in defs if d.parent == -1)
    last = min(node.end_point[0], len(lines) - 1)
    idents: dict[str, list[int]] = {}
    for row in range(first, last + 1):
        for name in set(_IDENT.findall(lines[row])):
            idents.setdefault(name, []).append(row - first)
    return _Chunk(rel_items, rel_imports, top, package,
                  {k: tuple(v) for k, v in idents.items()}, frozenset(idents))


def _place(chunk: _Chunk, offset: int, base: int) -> _Placed:
    items = tuple(Item(it.name, it.kind, it.level, it.start + offset, it.end + offset,
                       it.lines, it.tail, it.parent + base if it.parent != -1 else -1,
                       it.tokens) for it in chunk.items)
    imports = tuple(ImportRef(i.kind, i.path, i.names, i.start + offset, i.end + offset)
                    for i in chunk.imports)
    return _Placed(items, imports, tuple(s + offset for s in chunk.top_starts))


def _analyze_tree(spec: LanguageSpec, text: str, tree: Tree) -> Analysis:
    source = text.encode("utf-8", "surrogatepass")
    lines = split_lines(text)
    items: list[Item] = []
    imports: list[ImportRef] = []
    top_starts: list[int] = []
    usages: list[tuple[int, int, frozenset[str], dict[str, tuple[int, ...]]]] = []
    package = None
    n = len(lines)
    for node in tree.root_node.children:
        first = node.start_point[0]
        last = min(node.end_point[0], n - 1)
        if first >= n:
            continue
        key = (spec.name, _lead(spec, lines, first), lines[first], lines[last],
               source[node.start_byte:node.end_byte])
        chunk = _CHUNKS.get(key)
        if chunk is None:
            chunk = _extract_chunk(spec, tree, source, lines, node, first)
            stats["chunks_extracted"] += 1
            with _LOCK:
                if len(_CHUNKS) >= MEMO_LIMIT:
                    _CHUNKS.clear()
                _CHUNKS[key] = chunk
        else:
            stats["chunks_reused"] += 1
        if chunk.idents:
            usages.append((first, last, chunk.ident_set, chunk.idents))
        if not chunk.items and not chunk.imports and chunk.package is None:
            continue
        place_key = (key, first, len(items))
        placed = _PLACED.get(place_key)
        if placed is None:
            placed = _place(chunk, first, len(items))
            with _LOCK:
                if len(_PLACED) >= MEMO_LIMIT:
                    _PLACED.clear()
                _PLACED[place_key] = placed
        items.extend(placed.items)
        imports.extend(placed.imports)
        top_starts.extend(placed.top_starts)
        package = package or chunk.package
    import_lines = frozenset(i for imp in imports for i in range(imp.start, imp.end + 1))
    return Analysis(spec, lines, tuple(items), tuple(imports), package, tuple(top_starts),
                    import_lines, tuple(usages))


def analyze(spec: LanguageSpec, text: str, key: Hashable, *, tree: Tree | None = None,
            current: bool = False) -> Analysis:
    """Outline items, imports and package of `text`, computed once per `key`."""
    cache = _CURRENT if current else _FILES
    full_key = (spec.name, key)
    with _LOCK:
        hit = cache.get(full_key)
    if hit is not None:
        return hit
    if tree is None:
        tree = _parse(spec, text.encode("utf-8", "surrogatepass"))
    result = _analyze_tree(spec, text, tree)
    with _LOCK:
        cache[full_key] = result
    return result


def clear() -> None:
    """Forget everything (tests, the benchmark's cold runs)."""
    with _LOCK:
        for cache in (_FILES, _CURRENT, _CHUNKS, _PLACED):
            cache.clear()
