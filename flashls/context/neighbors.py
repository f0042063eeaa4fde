"""Tier 3: signatures from the files the current file imports.

Entries are outline items of the resolved files. Symbols this file actually uses come
first, ranked by how close to the cursor they are used (uses on import lines count as
far away); then the other signatures of those files, top-level ones first. Selected
entries are rendered per file in file order, members inside their container headers,
so the text of a file only changes when its selection does.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

from cachetools import LRUCache
from typing import Mapping, Sequence

from .analysis import Analysis, analyze
from .background import SpotBudget
from .evidence_java import max_files as java_max_files, order_neighbors
from .evidence_java_pkg import guesses as java_guesses
from .evidence_java_fill import fill as java_fill
from .evidence_lang import order_files
from .import_order import by_use_room
from .imports import resolve_imports
from .languages import LanguageSpec, language_for
from .memo import IDENT, line_identifiers
from .outline import closure, render
from .siblings_c import READS_PER_REQUEST, sibling_idents
from .rust_near_files import near_first
from .rust_reexports import deep_barrel, reexported_names
from .syntax import ParsedDocument
from .tokens import estimate_tokens
from .workspace import Workspace, path_from_uri

_IDENT = IDENT
IMPORT_LINE_DISTANCE = 100_000  # a name seen only on import lines: used, but far away
MAX_NEIGHBOR_FILES = 24


def identifiers(text: str) -> frozenset[str]:
    return frozenset(_IDENT.findall(text))


@dataclass(frozen=True)
class NeighborFile:
    path: str
    source: str  # workspace-relative
    analysis: Analysis
    rank: int  # order of its import
    guess: float = 0.0  # Java: a package file read for its siblings' use (the share)
    supertype: float = 0.0  # ... the share of them extending / implementing its type
    # C/C++: the identifier sets of the current file's directory files (`siblings_c`),
    # the same tuple on every neighbor of one request
    siblings: tuple = field(default=(), compare=False, repr=False)


def _guess_shares(guess) -> tuple[float, float]:
    """(share, supertype share) of a guessed Java package file; (0, 0) for the rest."""
    return (guess.share, guess.supertype) if guess is not None else (0.0, 0.0)


LINE_PREFIX_TOKENS = 1  # the FIM prompt sends parts as comments: `# ` / `// ` per line
# ... but a line that starts with punctuation loses its merge with what follows: DeepSeek's
# tokenizer reads `#define`, `@Override`, `<div>` or `(x)` as one piece, and `// #define`
# as three (measured: 2 tokens of prefix instead of 1). Closers merge either way.
_PUNCT_START = re.compile(r"^[!-(*-/:-@\[\\^`{|~]", re.M)


def prefix_tokens(text: str) -> int:
    """What the comment prefixes of `text`'s newline-terminated lines cost."""
    return LINE_PREFIX_TOKENS * text.count("\n") + len(_PUNCT_START.findall(text))


def lines_prefix_tokens(lines) -> int:
    """`prefix_tokens` of these lines (each one line, without its newline)."""
    return LINE_PREFIX_TOKENS * len(lines) + sum(
        1 for line in lines if _PUNCT_START.match(line))


# the label titles the FIM prompt puts before each part (`completion/prompt.py`
# TIER_TITLES; a test keeps the two equal); "window": the current file's label
LABEL_TITLES = {"neighbors": "from", "outline": "outline of", "recent": "recently edited in",
                "window": ""}


@lru_cache(maxsize=4096)
def part_overhead(source: str, tier: str = "recent") -> int:
    """Tokens the prompt spends to label a part of `tier` with its file (a comment
    line, as `completion/prompt.py` renders it). The default, recent code's, is the
    longest title."""
    title = LABEL_TITLES.get(tier, LABEL_TITLES["recent"])
    return estimate_tokens(f"// --- {title + ' ' if title else ''}{source} ---\n")


def entry_cost(item) -> int:
    """An outline item's cost as the completion context sends it (its brief form):
    its text plus the comment prefix of each line."""
    head, tail, tokens = item.brief
    return tokens + lines_prefix_tokens(head) + lines_prefix_tokens(tail)


def read_neighbor(file: str, workspace: Workspace, open_by_path: Mapping[str, ParsedDocument],
                  spot: "SpotBudget | None") -> "tuple[LanguageSpec, tuple, Analysis] | None":
    """(language, cache key, analysis) of a neighbor file: an open buffer wins over the
    disk; None when it cannot be read, is no language, or is left for the background."""
    real = workspace.real(file)
    pdoc = open_by_path.get(real)
    file_spec = (language_for(pdoc.doc.language_id, file) if pdoc else None) or \
        language_for("", file)
    if file_spec is None:
        return None
    if pdoc is not None:
        text = pdoc.doc.text
        if len(text) > workspace.max_bytes or "\0" in text[:8192]:
            return None
        key: tuple = ("buffer", pdoc.doc.uri, pdoc.doc.version, len(text), hash(text))
    else:
        text, stamp = workspace.read_stamped(file)  # one stat for both
        if text is None or stamp is None:
            return None
        key = ("disk", real, stamp)
    analysis = analyze(file_spec, text, key) if spot is None else \
        spot.analysis(file_spec, text, key)
    return None if analysis is None else (file_spec, key, analysis)


def neighbor_files(spec: LanguageSpec, path: str, symbols: Analysis,
                   workspace: Workspace,
                   open_by_path: Mapping[str, ParsedDocument], *,
                   background: bool = False, cursor_line: int | None = None
                   ) -> list[NeighborFile]:
    """The analyzed files `path` imports (open buffers win over disk).

    `background` (the server): only what is analyzed already, or small enough to be
    analyzed within the request's allowance (`context.background.SpotBudget`); the
    other files are analyzed in the background and join from a later request.
    `cursor_line`: Rust reads first the modules the code near it uses, when more are
    imported than are read (`rust_near_files`)."""
    spot = SpotBudget() if background else None
    cap = java_max_files(spec.resolver, MAX_NEIGHBOR_FILES)
    out: list[NeighborFile] = []
    wanted = _import_identifiers(symbols)
    direct, extra = by_use_room(spec, path, symbols,
                                resolve_imports(spec, path, symbols, workspace),
                                workspace, room=cap)  # Python, JS/TS: most used first
    cap += extra  # Python: files imported and not used yet, beyond the room
    named = order_neighbors(symbols, direct)
    queue = [(f, False) for f in near_first(spec.resolver, symbols, cursor_line, order_files(
        spec.resolver, symbols, named, workspace, room=cap, current=path), workspace, cap)]
    guessed = {g.path: g for g in java_guesses(
        path, symbols, direct, named, workspace, cap - len(queue))}
    queue += [(f, True) for f in guessed]  # Java: package files its siblings use
    seen = {workspace.real(path)} | {workspace.real(f) for f, _ in queue}
    rank = -1
    while queue:
        file, hopped = queue.pop(0)
        rank += 1
        if len(out) >= cap:
            break
        read = read_neighbor(file, workspace, open_by_path, spot)
        if read is None:  # unreadable, not a language, or left for the background
            continue
        file_spec, key, analysis = read
        out.append(NeighborFile(file, workspace.relative(file), analysis, rank,
                                *_guess_shares(guessed.get(file))))
        if not hopped and _is_barrel(file, analysis):
            # index.ts / __init__.py / mod.rs re-export their neighbors: follow once,
            # the files defining what this file imports first (a barrel of a hundred
            # files would otherwise fill every slot before reaching them)
            targets = resolve_imports(file_spec, file, analysis, workspace)
            if len(targets) > BARREL_SORT_MIN:
                index = _barrel_index(key, targets, workspace, spot)
                targets = sorted(targets, key=lambda t: (not (index.get(t, frozenset()) & wanted),
                                                         not _deep(spec, t)))
            room = cap - len(out) - len(queue)
            targets = near_first(spec.resolver, symbols, cursor_line, order_files(
                spec.resolver, symbols, targets, workspace, room=room), workspace, room)
            for nxt in targets:
                real_next = workspace.real(nxt)
                if real_next not in seen:
                    seen.add(real_next)
                    queue.append((nxt, True))
        elif hopped is True and _deep(spec, file) and _is_barrel(file, analysis):
            _second_hop(file_spec, file, analysis, key, workspace, spot, wanted, queue, seen)
    out += java_fill(spec, path, symbols, direct, out, workspace, open_by_path, spot, cap)
    if spec.resolver == "c" and out and SIBLING_USES:
        found = sibling_idents(path, workspace, READS_PER_REQUEST if background else None)
        if found:
            out = [replace(f, siblings=found) for f in out]
    return out


SIBLING_USES = True  # C/C++: read what the directory's other files use (flag: measured)


DEEP_BARRELS = True  # Python, JS/TS, Rust: a barrel a barrel re-exports is followed too


def _deep(spec: LanguageSpec, path: str) -> bool:
    """Whether `path` is a barrel by name worth a second hop (Python, JS/TS, Rust)."""
    if spec.resolver == "rust":
        return DEEP_BARRELS and deep_barrel(path)
    return DEEP_BARRELS and spec.resolver in ("python", "js") and \
        os.path.basename(path).split(".")[0] in ("index", "__init__")


def _second_hop(file_spec: LanguageSpec, file: str, analysis: Analysis, key: tuple,
                workspace: Workspace, spot, wanted: frozenset[str], queue: list,
                seen: set[str]) -> None:
    """A barrel reached through a barrel (`pkg/__init__.py` importing from
    `pkg/sub/__init__.py`, `index.ts` re-exporting `features/index.ts`): only the files
    defining a name the current file imports are queued, ahead of the first hop's
    files (which were queued for their barrel, not for a name)."""
    targets = resolve_imports(file_spec, file, analysis, workspace)
    index = _barrel_index(key, targets, workspace, spot)
    picks = []
    for nxt in targets:
        real_next = workspace.real(nxt)
        if real_next not in seen and index.get(nxt, frozenset()) & wanted:
            seen.add(real_next)
            picks.append((nxt, 2))
    if picks:
        at = next((i for i, (_, depth) in enumerate(queue) if depth), len(queue))
        queue[at:at] = picks


BARREL_STEMS = frozenset({"index", "__init__", "mod", "lib"})
BARREL_SORT_MIN = 4
_BARRELS: LRUCache = LRUCache(maxsize=64)  # barrel version -> {file: names it defines}


def _import_identifiers(symbols: Analysis) -> frozenset[str]:
    lines = symbols.lines
    return frozenset(name for row in symbols.import_lines if row < len(lines)
                     for name in line_identifiers(lines[row]))


def _barrel_index(barrel_key: tuple, targets: Sequence[str], workspace: Workspace,
                  spot: "SpotBudget | None" = None) -> dict[str, frozenset[str]]:
    """For each file a barrel re-exports, the names it defines (once per barrel
    version; the files' analyses are cached apart and may be evicted). With `spot`,
    files left for the background count as defining nothing, this time only."""
    hit = _BARRELS.get(barrel_key)
    if hit is not None and set(hit) >= set(targets):
        return hit
    index: dict[str, frozenset[str]] = {}
    complete = True
    for target in targets:
        spec = language_for("", target)
        text, stamp = workspace.read_stamped(target)
        if spec is None or text is None or stamp is None:
            index[target] = frozenset()
            continue
        key = ("disk", workspace.real(target), stamp)
        a = analyze(spec, text, key) if spot is None else spot.analysis(spec, text, key)
        if a is None:
            complete = False
            index[target] = frozenset()
            continue
        index[target] = frozenset(it.name for it in a.items if it.name)
        if spec.resolver == "rust":  # a module re-exporting a name leads to it
            index[target] |= reexported_names(a)
    if complete:
        _BARRELS[barrel_key] = index
    return index


def _is_barrel(path: str, analysis: Analysis) -> bool:
    """A file that mostly re-exports others (its definitions are elsewhere)."""
    if analysis.spec.resolver == "java":
        return False  # a one-class file (`class ClosedChannelException`) re-exports nothing
    stem = os.path.basename(path).split(".")[0]
    definitions = sum(1 for it in analysis.items if it.kind != "import")
    return stem in BARREL_STEMS or definitions <= 1


def usage_distances(lines: Sequence[str], cursor_line: int, names: set[str],
                    skip_lines: frozenset[int]) -> dict[str, int]:
    """For each of `names` used in `lines`: the distance (in lines) of its nearest use
    to the cursor. Names used only on `skip_lines` (imports) get a large distance."""
    found: dict[str, int] = {}
    if not names:
        return found
    for row, line in enumerate(lines):
        hits = line_identifiers(line) & names
        if not hits:
            continue
        distance = IMPORT_LINE_DISTANCE + abs(row - cursor_line) if row in skip_lines \
            else abs(row - cursor_line)
        for name in hits:
            old = found.get(name)
            if old is None or distance < old:
                found[name] = distance
    return found


@dataclass(frozen=True)
class NeighborPlan:
    """Selected items per file (by index into the file's items)."""

    files: tuple[NeighborFile, ...]
    selected: tuple[frozenset[int], ...]
    used: int
    demand: int  # cost of everything that could be selected
    brief: bool = False  # rendered in the items' brief forms (the completion context)

    def texts(self) -> list[tuple[NeighborFile, str]]:
        return list(self._texts)

    @cached_property
    def _texts(self) -> tuple[tuple[NeighborFile, str], ...]:
        out = []
        for file, chosen in zip(self.files, self.selected):
            if chosen:
                out.append((file, render(file.analysis.items, set(chosen), self.brief)))
        return tuple(out)


_ORDERS: dict = {}  # (files, distances) -> (their analyses, order): per keystroke,
# the neighbor files and the distances of their names rarely change
_PLANS: dict = {}  # (files, id(order), budget) -> (analyses, order, plan)
_DEMANDS: dict[int, tuple[Analysis, int]] = {}
MEMO_ENTRIES = 64


def _files_key(files: Sequence[NeighborFile]) -> tuple:
    return tuple((f.path, f.source, id(f.analysis), f.rank) for f in files)


def _same_analyses(files: Sequence[NeighborFile], analyses: tuple) -> bool:
    return len(files) == len(analyses) and all(f.analysis is a for f, a in zip(files, analyses))


def _bounded_put(memo: dict, key, value) -> None:
    if len(memo) >= MEMO_ENTRIES:
        memo.clear()
    memo[key] = value


def candidate_order(files: Sequence[NeighborFile], distances: Mapping[str, int]
                    ) -> list[tuple[int, int]]:
    """(file index, item index) in priority order: used symbols nearest the cursor
    first; then members of used containers (the methods of a class this file uses),
    by the container's distance; then the rest, top-level first, in import order.
    Memoized (the same list is returned for the same inputs: do not mutate it)."""
    key = (_files_key(files), frozenset(distances.items()))
    hit = _ORDERS.get(key)
    if hit is not None and _same_analyses(files, hit[0]):
        return hit[1]
    order = _candidate_order(files, distances)
    _bounded_put(_ORDERS, key, (tuple(f.analysis for f in files), order))
    return order


def _candidate_order(files: Sequence[NeighborFile], distances: Mapping[str, int]
                     ) -> list[tuple[int, int]]:
    ranked = []
    for f_index, file in enumerate(files):
        items = file.analysis.items
        for i_index, item in enumerate(items):
            if item.kind == "import":
                continue
            d = distances.get(item.name)
            if d is not None:
                key = (0, d, file.rank, item.start)
            elif item.parent != -1 and items[item.parent].name in distances:
                key = (1, distances[items[item.parent].name], file.rank, item.start)
            else:
                key = (2, item.level, file.rank, item.start)
            ranked.append((key, f_index, i_index))
    ranked.sort()
    return [(f, i) for _, f, i in ranked]


def _signature_cost(analysis: Analysis) -> int:
    hit = _DEMANDS.get(id(analysis))
    if hit is not None and hit[0] is analysis:
        return hit[1]
    cost = sum(it.tokens for it in analysis.items if it.kind != "import")
    if len(_DEMANDS) >= 4 * MEMO_ENTRIES:
        _DEMANDS.clear()
    _DEMANDS[id(analysis)] = (analysis, cost)
    return cost


def plan(files: Sequence[NeighborFile], order: Sequence[tuple[int, int]], budget: int
         ) -> NeighborPlan:
    """Greedy whole-entry selection within `budget`, counting each file's label once.
    Memoized per (files, order object, budget): the tiers ask again per keystroke."""
    key = (_files_key(files), id(order), budget)
    hit = _PLANS.get(key)
    if hit is not None and hit[1] is order and _same_analyses(files, hit[0]):
        return hit[2]
    result = _plan(files, order, budget)
    _bounded_put(_PLANS, key, (tuple(f.analysis for f in files), order, result))
    return result


def _plan(files: Sequence[NeighborFile], order: Sequence[tuple[int, int]], budget: int
          ) -> NeighborPlan:
    chosen: list[set[int]] = [set() for _ in files]
    used = 0
    demand = 0
    for f_index, file in enumerate(files):
        cost = _signature_cost(file.analysis)
        if cost:
            demand += cost + part_overhead(file.source)
    for f_index, i_index in order:
        items = files[f_index].analysis.items
        need = closure(items, i_index, chosen[f_index])
        if not need:
            continue
        cost = sum(items[i].tokens for i in need)
        if not chosen[f_index]:
            cost += part_overhead(files[f_index].source)
        if used + cost > budget:
            continue
        chosen[f_index].update(need)
        used += cost
    return NeighborPlan(tuple(files), tuple(frozenset(c) for c in chosen), used, demand)


def signatures_used_on(pdoc: ParsedDocument, analysis: Analysis, first: int, last: int,
                       workspace: Workspace, open_docs: Mapping[str, ParsedDocument],
                       budget: int) -> tuple[tuple[str, str], ...]:
    """(file, signatures) from the workspace files `pdoc` imports, for the names that
    lines first..last use, within `budget` tokens; for the requests that rewrite a
    region (code actions, next edits). Open buffers win over disk; a document outside
    the workspace gets none."""
    path = path_from_uri(pdoc.doc.uri)
    if not os.path.isabs(path) or not workspace.contains(path):
        return ()
    open_by_path = {os.path.realpath(path_from_uri(u)): p for u, p in open_docs.items()}
    files = neighbor_files(analysis.spec, path, analysis, workspace, open_by_path,
                           background=pdoc.background)
    if not files:
        return ()
    names = {it.name for f in files for it in f.analysis.items if it.name}
    used = usage_distances(list(analysis.lines[first:last + 1]), 0, names, frozenset())
    if not used:
        return ()
    order = [(f, i) for f, i in candidate_order(files, used)
             if files[f].analysis.items[i].name in used]
    chosen = plan(files, order, budget)
    return tuple((file.source, text) for file, text in
                 sorted(chosen.texts(), key=lambda ft: ft[0].source))
