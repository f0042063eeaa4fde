"""One budget for the same-file outline and the neighbor signatures, spent on merit.

Every entry (an import statement or definition of the current file outside the
window, a signature of an imported file) gets a score from the evidence of how its
name reaches the file and how near the cursor it is used (`evidence.py`); the entries
are then taken greedily, best first, with the containers they need, while they fit.
No tier has a fixed share.

Scores, roughly: a name on an import line (`from .m import Name`, `use a::Name`) or
used as a module attribute (`mod.Name`, `pkg.Name`) is the strongest evidence; a
plain use counts as much where the language merges the neighbor's names into the file
(Go / Java package, C include, star import); a method counts when its class has
evidence and the file calls `.method`; uses inside the definition around the cursor
add the most, other uses less with distance; the rest fills what is left, nearest
and top-level first.

**Stability.** While the cursor stays inside one definition (the anchor), the
previous selection is kept whole: entries with strong new evidence (a name just typed)
are added only in what it leaves free, and a keystroke that brings no new identifier
is answered without ranking (`rank_memo.py`). Consecutive prompts then share
their whole head and the prefix cache keeps hitting.
"""

from __future__ import annotations

import bisect
import math
import os
import re
from dataclasses import dataclass
from typing import Sequence

from cachetools import LRUCache

from .evidence import FAR, Evidence, NameUse, anchor_range, gather
from .evidence_c import scoring_parent
from .evidence_java import adjust as adjust_java
from .evidence_javacpp import revise as revise_javacpp
from .evidence_locality import with_locality
from .evidence_lang import adjust as adjust_for_language
from .evidence_pyjs import revise as revise_pyjs, revise_context as revise_pyjs_context
from .memo import IdentityMemo, line_identifiers
from .receivers_c import augment as augment_c
from .ties_c import order as order_ties_c
from .neighbors import NeighborFile, NeighborPlan, entry_cost, part_overhead
from .outline import CONTAINER_KINDS, Item, closure

# evidence weights (x100): how surely the name is this entry
NAMED = 1.0  # on an import line of the file
QUALIFIED = 1.0  # `mod.Name` with `mod` bound by an import
MERGED = 0.9  # plain use where the neighbor's names are in scope (Go package, C include)
TYPED_MEMBER = 0.85  # `.method` on a receiver declared with its container's type
MEMBER = 0.75  # `.method` of a container that has evidence
LOCAL = 0.4  # a definition of the current file used near the cursor
IMPORT_STATEMENT = 0.5  # an import statement of the current file, by its names' uses
CONSTRUCTOR = 0.5  # the constructor of a container that has evidence
MODULE = 0.45  # an unused top-level name of a module used as `mod.X`
USED = 0.35  # plain use, no other evidence (might be a local of the same name)
LOOSE_MEMBER = 0.2  # `.method` of a container without evidence (a shared name)
RECEIVER_MEMBER = 0.45  # a method of a type a receiver near the cursor is declared with
FRESH_RECEIVER_MEMBER = 0.7  # ... declared a few lines above the cursor (`x = T(...)`)
UNUSED_IMPORT = 0.85  # proximity of a name imported but used nowhere yet: likely next
MODULE_PRIVATE = 0.5  # ...and for a module's `_private` top-level names
PRIVATE = 0.25  # ...times this for its `_name` / dunder members (not called as `x._name`)
IMPL = 0.25  # an impl block's header alone (its used methods bring it along anyway)
STRONG = 30.0  # new evidence scoring above this (a name used in the anchor) changes a kept selection
PLAIN_NOT_MEMBER = True  # a member's name used only plainly: no use of the member
TYPED_NEAR = True  # a typed member's proximity: also its receiver's (flag: measured)
CONSTRUCTORS = frozenset({"__init__", "constructor", "new", "__new__", "New"})




def _near(distance: int) -> float:
    """Proximity of the nearest use to the anchor: 1 inside it, decaying to 0.3."""
    if distance >= FAR:
        return 0.1
    return 0.3 + 0.7 / (1.0 + distance / 60.0)


def _freq(nodes: int) -> float:
    return min(10.0, 2.5 * math.log2(1 + nodes))


@dataclass(frozen=True)
class Candidate:
    score: float
    file: int  # index into the neighbor files; -1 for the current file's outline
    item: int
    typed: bool = False  # a member a receiver declared with its container calls

    def rescored(self, score: float) -> "Candidate":
        """This candidate with another score: `dataclasses.replace(c, score=s)`, which
        the language passes call by the ten thousand per request, at a fifth of its
        cost (it reads the fields' metadata and runs the frozen `__init__` each time)."""
        new = object.__new__(Candidate)
        fields = new.__dict__  # the frozen instance's own dict: no `__setattr__` guard
        fields["score"] = score
        fields["file"] = self.file
        fields["item"] = self.item
        fields["typed"] = self.typed
        return new


def _has_evidence(name: str, ev: Evidence) -> bool:
    return name in ev.bound or name in ev.uses


def _typed(use, ev: Evidence, memo: dict | None) -> frozenset[str]:
    if memo is None:
        return _receiver_types(use, ev)
    hit = memo.get(id(use))
    if hit is None:
        hit = memo[id(use)] = _receiver_types(use, ev)
    return hit


def _receiver_types(use, ev: Evidence) -> frozenset[str]:
    out: set[str] = set()
    for q in use.qualifiers:
        out.update(ev.receivers.get(q, ()))
    return frozenset(out)


def _dunder(name: str) -> bool:
    return name[:2] == "__" and name[-2:] == "__" and len(name) > 4


def _module_use(file: NeighborFile, ev: Evidence, qualifiers: frozenset[str] | None = None):
    """How the file is used as a module (`types.IntRange`, `cobra.Command`): its name
    is bound by an import and used as a qualifier. None when it is not. `qualifiers`
    (Rust): the names the file uses as qualifiers; a module named only in a comment
    or on its `use` line (url's `use crate::parser::{..}` beside `#ipv4-parser` links)
    is no `parser::X` use."""
    name = module_name(file.path, file.analysis.package)
    if name not in ev.bound or qualifiers is not None and name not in qualifiers:
        return None
    use = ev.uses.get(name)
    if UNUSED_MODULE and (use is None or use.distance >= FAR) and \
            file.analysis.spec.resolver == "python":
        # `from . import _tracing` used nowhere yet: its names are likely next, as an
        # imported name used nowhere is (`UNUSED_IMPORT`)
        return _UNUSED_MODULE_USE
    return use


UNUSED_MODULE = True  # Python: a module imported and not used yet (flag: measured on the pool)
# the distance at which `_near` gives UNUSED_IMPORT's proximity
_UNUSED_MODULE_USE = NameUse(0, round(60 * (0.7 / (UNUSED_IMPORT - 0.3) - 1)), False, False)


def _qualifiers(ev: Evidence) -> frozenset[str]:
    """Every name the file uses as a qualifier (`quirks` in `quirks::href(..)`)."""
    out: set[str] = set()
    for use in ev.uses.values():
        out.update(use.qualifiers)
    return frozenset(out)


def module_name(path: str, package: str | None = None) -> str:
    """The name a file is usually imported under: its package clause (Go, Java), its
    stem, or its directory's for `__init__.py`, `index.ts`, `mod.rs`."""
    if package:
        return package.strip().split(".")[-1]
    directory, base = os.path.split(path)
    stem = base.split(".")[0]
    if stem in ("__init__", "index", "mod") or base.endswith(".go"):
        stem = os.path.basename(directory)
    return stem


_GO_RECEIVER = re.compile(r"^\s*func\s*\(\s*\w*\s*\*?\s*([A-Za-z_]\w*)")


def _receiver_of(item: Item) -> str | None:
    """The receiver type of a Go method (`func (c *Command) Name()` -> Command)."""
    for line in item.lines:
        m = _GO_RECEIVER.match(line)
        if m:
            return m.group(1)
    return None


def _neighbor_score(items: Sequence[Item], item: Item, file: NeighborFile, ev: Evidence,
                    merged: bool, module=None, typed_memo: dict | None = None) -> float:
    parent = scoring_parent(items, item, file.analysis.spec.resolver)
    owner = _receiver_of(item) if parent is None and item.kind == "method" else None
    return _scored(item, parent, owner, file, ev, merged, module, typed_memo)


def _scored(item: Item, parent: Item | None, owner: str | None, file: NeighborFile,
            ev: Evidence, merged: bool, module, typed_memo: dict | None) -> float:
    """`_neighbor_score` with the item's scoring parent and Go receiver at hand."""
    use = ev.uses.get(item.name)
    if owner is not None:
        # a Go method: a member of its receiver type
        if owner in ev.receiver_types and (use is None or not use.attribute or
                                           owner in _typed(use, ev, typed_memo)):
            d = ev.receiver_types[owner]
            if use is None:
                return 100 * RECEIVER_MEMBER * _near(d)
            return 100 * TYPED_MEMBER * _near(use.distance) + _freq(use.nodes)
    if _dunder(item.name):
        use = None  # `super().__init__` everywhere says nothing about one class
    elif PLAIN_NOT_MEMBER and use is not None and parent is not None and not use.attribute:
        use = None  # a plain `merge` (a local, a keyword argument) is no call of `x.merge`
    if use is None:
        if parent is not None and item.name in CONSTRUCTORS and \
                _has_evidence(parent.name, ev):
            p = ev.uses.get(parent.name)
            return 100 * CONSTRUCTOR * _near(p.distance if p else FAR)
        hidden = item.name[:1] == "_"  # dunders, private names: rarely called from outside
        if parent is not None and parent.name in ev.receiver_types:
            # a method of a type some receiver near the cursor has (`f: HelpFormatter`),
            # more so when it was declared just above the cursor (`url = URL(raw)`)
            weight = FRESH_RECEIVER_MEMBER if ev.fresh_receivers and \
                parent.name in ev.fresh_receivers else RECEIVER_MEMBER
            return 100 * weight * _near(ev.receiver_types[parent.name]) * \
                (PRIVATE if hidden else 1.0)
        if module is not None and module.distance < FAR and item.level <= 1:
            # a module this file uses as `mod.X`: its other names may be next (its
            # `_private` ones seldom: `nodes._binop_to_func` is the module's own)
            return (100 * MODULE * _near(module.distance) + _freq(module.nodes) / 2) * \
                (MODULE_PRIVATE if hidden else 1.0)
        # nothing points at it: fill what is left, top-level and early imports first
        return (3.0 if item.level <= 1 else 1.0) / (1.0 + file.rank / 4.0)
    near = _near(use.distance)
    if parent is None and item.name in ev.bound:
        weight = NAMED
        if use.distance >= FAR:
            near = UNUSED_IMPORT
    elif parent is None and use.qualified:
        weight = QUALIFIED
    elif parent is None and (merged or ev.star_import):
        weight = MERGED
    elif parent is None and item.kind == "method" and use.attribute:
        weight = MEMBER  # a Go method (declared at top level with its receiver)
    elif parent is not None:
        if use.attribute and parent.name in _typed(use, ev, typed_memo):
            # a receiver declared with this type calls it (`f: HelpFormatter`, `f.x()`)
            weight = TYPED_MEMBER
            if TYPED_NEAR and parent.name in ev.receiver_types:
                # ... and one is declared near the cursor: as near as that receiver
                near = max(near, _near(ev.receiver_types[parent.name]))
        elif use.attribute and parent.name in ev.receiver_types:
            weight = MEMBER
        elif use.attribute and _has_evidence(parent.name, ev):
            weight = MEMBER
        elif use.attribute:
            weight = LOOSE_MEMBER
        else:
            weight = LOOSE_MEMBER / 2
    else:
        weight = USED
        if module is not None and module.distance < FAR and item.level <= 1 and \
                file.analysis.spec.resolver == "rust":
            # Rust: a plain `name` does not reach a module's item (`quirks::name` does);
            # the module's use still points at it as much as at its unused names
            return max(100 * weight * near + _freq(use.nodes),
                       100 * MODULE * _near(module.distance) + _freq(module.nodes) / 2)
    if item.kind == "impl":
        weight *= IMPL  # `impl Trait for Type` headers: named after a used type, many
    return 100 * weight * near + _freq(use.nodes)


def _outline_score(items: Sequence[Item], index: int, ev: Evidence,
                   window: tuple[int, int]) -> float:
    item = items[index]
    lo, hi = window
    gap = lo - item.end if item.end < lo else max(0, item.start - hi)
    if item.kind == "import":
        nearest = min((u.distance for line in item.lines for name in _idents(line)
                       if (u := ev.uses.get(name)) is not None), default=FAR)
        return 100 * IMPORT_STATEMENT * _near(nearest) - index * 1e-4
    use = ev.uses.get(item.name)
    if use is not None and use.distance < FAR and not _dunder(item.name):
        weight = LOCAL * (0.5 if item.kind in CONTAINER_KINDS else 1.0)
        return 100 * weight * _near(use.distance) + _freq(use.nodes)
    return 8.0 / (1.0 + gap / 60.0) + (1.0 if item.level <= 1 else 0.0)


def _idents(line: str):
    from .memo import line_identifiers
    return line_identifiers(line)


def _merged(spec_resolver: str, path: str, file: NeighborFile) -> bool:
    if spec_resolver == "c":
        return True
    if spec_resolver in ("go", "java"):
        return os.path.dirname(os.path.abspath(file.path)) == \
            os.path.dirname(os.path.abspath(path))
    return False


MAX_OUTLINE_FILL = 160  # same-file entries without evidence beyond the nearest never fit


def _nearest_or_used(analysis, outline: list[int], window: tuple[int, int],
                     cursor_line: int) -> list[int]:
    """The outline candidates worth scoring in a long file: imports, names used in the
    definition around the cursor, and the MAX_OUTLINE_FILL nearest to the window."""
    items, lines = analysis.items, analysis.lines
    lo, hi = anchor_range(items, cursor_line, lines)
    used: set[str] = set()
    for row in range(max(0, lo), min(hi, lo + 400, len(lines) - 1) + 1):
        used |= line_identifiers(lines[row])
    starts = [items[i].start for i in outline]
    k = bisect.bisect_left(starts, window[0])
    near = set(outline[max(0, k - MAX_OUTLINE_FILL // 2):k + MAX_OUTLINE_FILL // 2])
    return [i for i in outline if i in near or items[i].kind == "import" or
            items[i].name in used]


def outline_candidates(items: Sequence[Item], window: tuple[int, int]) -> list[int]:
    """Current-file items the window does not already show (or head)."""
    lo, hi = window
    out = []
    for index, item in enumerate(items):
        if lo <= item.start and item.end <= hi:
            continue
        if item.kind not in CONTAINER_KINDS and item.start <= hi and item.end >= lo:
            continue  # overlaps the window, which shows (or heads) it already
        if item.kind == "import" and lo <= item.start <= hi:
            continue
        out.append(index)
    return out


@dataclass(frozen=True)
class NeighborRows:
    """What scoring a neighbor file's entries needs that depends on its items alone."""

    names: frozenset[str]  # every name it defines
    # (index, item, scoring parent, Go receiver, container's name) per non-import item
    rows: tuple[tuple[int, Item, Item | None, str | None, str | None], ...]


_ROWS = IdentityMemo(512)  # (items, resolver) -> NeighborRows


def neighbor_rows(items: Sequence[Item], resolver: str) -> NeighborRows:
    """Memoized per items tuple: a neighbor file's analysis is shared by the requests
    of every document that imports it, and its items are the same each time."""
    hit = _ROWS.get(items, resolver)
    if hit is not None:
        return hit
    rows = []
    for index, item in enumerate(items):
        if item.kind == "import":
            continue
        parent = scoring_parent(items, item, resolver)
        owner = _receiver_of(item) if parent is None and item.kind == "method" else None
        container = items[item.parent].name if item.parent != -1 else None
        rows.append((index, item, parent, owner, container))
    out = NeighborRows(frozenset(it.name for it in items if it.name), tuple(rows))
    return _ROWS.put(items, out, resolver)


@dataclass(frozen=True)
class RowIndex:
    """Which of a neighbor file's rows (positions in `NeighborRows.rows`) a request's
    evidence can reach, by the name it looks them up under; the rest are fill."""

    by_name: dict[str, tuple[int, ...]]  # the entry's name
    by_owner: dict[str, tuple[int, ...]]  # its Go receiver type
    by_parent: dict[str, tuple[int, ...]]  # its scoring parent's name
    constructors: dict[str, tuple[int, ...]]  # scoring parent's name, for constructors
    classes: dict[tuple[bool, bool], tuple[int, ...]]  # (level <= 1, hidden) -> rows
    class_of: tuple[tuple[bool, bool], ...]  # per row


def _grouped(pairs) -> dict[str, tuple[int, ...]]:
    out: dict = {}
    for key, position in pairs:
        out.setdefault(key, []).append(position)
    return {k: tuple(v) for k, v in out.items()}


_INDEXES = IdentityMemo(512)  # rows -> RowIndex


def row_index(rows: NeighborRows) -> RowIndex:
    """Memoized per rows (so per neighbor file version)."""
    hit = _INDEXES.get(rows)
    if hit is not None:
        return hit
    entries = rows.rows
    class_of = tuple((item.level <= 1, item.name[:1] == "_") for _, item, _, _, _ in entries)
    out = RowIndex(
        _grouped((item.name, p) for p, (_, item, _, _, _) in enumerate(entries)),
        _grouped((owner, p) for p, (_, _, _, owner, _) in enumerate(entries) if owner is not None),
        _grouped((parent.name, p) for p, (_, _, parent, _, _) in enumerate(entries)
                 if parent is not None),
        _grouped((parent.name, p) for p, (_, item, parent, _, _) in enumerate(entries)
                 if parent is not None and item.name in CONSTRUCTORS),
        _grouped((c, p) for p, c in enumerate(class_of)),
        class_of)
    return _INDEXES.put(rows, out, weight=len(rows.rows))


def _reached(index: RowIndex, ev: Evidence) -> set[int]:
    """Rows some evidence points at: the name used, the Go receiver or the scoring
    parent a receiver's type, or a constructor of a parent with evidence (the
    negation of `_file_candidates`' fill test, looked up instead of tested per row)."""
    uses, rtypes = ev.uses, ev.receiver_types
    out: set[int] = set()
    for name in index.by_name.keys() & uses.keys():
        out.update(index.by_name[name])
    for owner in index.by_owner.keys() & rtypes.keys():
        out.update(index.by_owner[owner])
    for parent in index.by_parent.keys() & rtypes.keys():
        out.update(index.by_parent[parent])
    for parent, positions in index.constructors.items():
        if _has_evidence(parent, ev):
            out.update(positions)
    return out


_FILL_LISTS = IdentityMemo(512)  # (rows, file index) -> (score signature, candidates)


def _fill_list(rows: NeighborRows, index: RowIndex, f_index: int,
               scores: dict[tuple[bool, bool], float]) -> list:
    """Every row's fill candidate (None for a class without a fill score this time:
    all its rows have evidence), the same list as last time while the scores are
    the same (Candidates are immutable: the objects serve again)."""
    signature = tuple(sorted(scores.items()))
    hit = _FILL_LISTS.get(rows, f_index)
    if hit is not None and hit[0] == signature:
        return hit[1]
    made = [Candidate(scores[c], f_index, i) if c in scores else None
            for (i, _, _, _, _), c in zip(rows.rows, index.class_of)]
    _FILL_LISTS.put(rows, (signature, made), f_index, weight=len(rows.rows))
    return made


def _file_candidates(f_index: int, f: NeighborFile, ev: Evidence, merged: bool, module,
                     typed_memo: dict) -> list[Candidate]:
    """A neighbor file's candidates, in the order of its rows. An entry nothing points
    at (its name unused, no receiver or constructor evidence for its container or Go
    receiver) gets the fill score `_scored` would give it, which depends on its class
    (top level, `_hidden`) only: computed once per class, and the fill candidates of
    the file come from a list kept per file version. Only the rows the evidence
    reaches (`_reached`, by lookups) are scored one by one."""
    rows = neighbor_rows(f.analysis.items, f.analysis.spec.resolver)
    index = row_index(rows)
    reached = _reached(index, ev)
    entries = rows.rows
    scores: dict[tuple[bool, bool], float] = {}
    for cls, positions in index.classes.items():
        p = next((p for p in positions if p not in reached), None)
        if p is not None:  # a fill row of this class
            _, item, parent, owner, _ = entries[p]
            scores[cls] = _scored(item, parent, owner, f, ev, merged, module, typed_memo)
    out = list(_fill_list(rows, index, f_index, scores))
    if not reached:
        return out
    uses, rtypes = ev.uses, ev.receiver_types
    for p in reached:
        i, item, parent, owner, container = entries[p]
        score = _scored(item, parent, owner, f, ev, merged, module, typed_memo)
        typed = False
        if container is not None and container in rtypes:
            use = uses.get(item.name)
            typed = use is not None and use.attribute and \
                container in _typed(use, ev, typed_memo)
        out[p] = Candidate(score, f_index, i, typed)
    return out


def rank(analysis, path: str, cursor_line: int, window: tuple[int, int],
         files: Sequence[NeighborFile], resolver: str, typing_line: int = -1
         ) -> tuple[list[Candidate], Evidence]:
    """Every candidate entry, best first."""
    outline = outline_candidates(analysis.items, window)
    if len(outline) > MAX_OUTLINE_FILL:
        outline = _nearest_or_used(analysis, outline, window, cursor_line)
    names = {analysis.items[i].name for i in outline if analysis.items[i].name}
    for f in files:
        names.update(neighbor_rows(f.analysis.items, resolver).names)
        names.add(module_name(f.path, f.analysis.package))
    ev = gather(analysis, cursor_line, names, resolver, typing_line)
    if resolver == "c":  # `this`, aliases and bases of declared receivers
        ev = augment_c(ev, analysis, files, cursor_line)
    cands = [Candidate(_outline_score(analysis.items, i, ev, window), -1, i) for i in outline]
    typed_memo: dict = {}
    qualifiers = _qualifiers(ev) if resolver == "rust" else None
    for f_index, f in enumerate(files):
        cands.extend(_file_candidates(f_index, f, ev, _merged(resolver, path, f),
                                      _module_use(f, ev, qualifiers), typed_memo))
    cands = with_locality(cands, analysis, cursor_line, files, resolver)  # Java, C/C++
    cands = adjust_java(cands, analysis, files, ev, resolver)  # private, unused imports
    cands = revise_javacpp(resolver, analysis, files, ev, cands, cursor_line)  # Java, C/C++
    cands = adjust_for_language(resolver, analysis, files, ev, cands, cursor_line, path)
    cands = revise_pyjs(resolver, files, cands)  # Python, JS/TS: overloads
    cands = revise_pyjs_context(analysis, files, ev, cands, cursor_line)  # receivers typed elsewhere
    # by score alone: weighing by cost (value per token) lets cheap noise (fields,
    # one-line constants) crowd out the signature that is needed (measured on dev)
    cands.sort(key=lambda c: (-c.score, c.file, c.item))
    if resolver == "c":  # ties cheapest first
        cands = order_ties_c(cands, analysis.items, files)
    return cands, ev


@dataclass(frozen=True)
class Selection:
    outline: frozenset[int]
    neighbors: NeighborPlan
    outline_used: int  # tokens of the outline part, its label included
    used: int  # tokens of everything selected, labels included
    demand: int
    dropped: bool = False  # kept entries of the anchor's memory left out (`rank_memo`)


def _key(files: Sequence[NeighborFile], outline_items: Sequence[Item], c: Candidate):
    item = files[c.file].analysis.items[c.item] if c.file >= 0 else outline_items[c.item]
    source = files[c.file].source if c.file >= 0 else ""
    return (source, item.name, item.kind, item.lines[:1])


def choose(cands: Sequence[Candidate], outline_items: Sequence[Item],
           files: Sequence[NeighborFile], outline_source: str, budget: int,
           keep: frozenset | None = None, *, frozen: bool = False
           ) -> tuple[Selection, frozenset]:
    """Greedy whole-entry selection within `budget`. With `keep` (the keys selected
    last time in the same anchor), kept entries and strong new ones go first;
    `frozen` takes the kept entries only (when they still exist)."""
    order: Sequence[Candidate] = cands
    if keep:
        # kept entries first (never evicted while the anchor holds), then strong new
        # evidence in what is left, then the rest; `frozen`: kept entries only
        held = [_key(files, outline_items, c) in keep for c in cands]
        kept = [c for c, h in zip(cands, held) if h]
        if frozen:
            order = kept
        else:
            strong = [c for c, h in zip(cands, held) if not h and c.score >= STRONG]
            rest = [c for c, h in zip(cands, held) if not h and c.score < STRONG]
            order = kept + strong + rest
    chosen_outline: set[int] = set()
    chosen: list[set[int]] = [set() for _ in files]
    used = 0
    outline_used = 0
    misses = 0
    members: dict[str, int] = {}  # member name taken -> its file
    for c in _deferring_repeats(order, files, members):
        if budget - used < 2 or misses > 64:
            break
        if c.file < 0:
            items, picked, source = outline_items, chosen_outline, outline_source
        else:
            items, picked, source = files[c.file].analysis.items, chosen[c.file], \
                files[c.file].source
        need = closure(items, c.item, picked)
        if not need:
            continue
        if c.file < 0:  # the current file's items are new with each version
            cost = sum(entry_cost(items[i]) for i in need)
        else:
            costs = entry_costs(items)
            cost = sum(costs[i] for i in need)
        cost += 0 if picked else part_overhead(source, "outline" if c.file < 0 else "neighbors")
        if used + cost > budget:
            misses += 1
            continue
        misses = 0
        picked.update(need)
        used += cost
        if c.file < 0:
            outline_used += cost
        elif items[c.item].parent != -1:
            members.setdefault(items[c.item].name, c.file)
    demand = whole_demand(outline_items, files)
    plan = NeighborPlan(tuple(files), tuple(frozenset(s) for s in chosen), used - outline_used,
                        demand, brief=True)
    keys = frozenset([_key(files, outline_items, Candidate(0.0, -1, i)) for i in chosen_outline]
                     + [_key(files, outline_items, Candidate(0.0, f, i))
                        for f, picked in enumerate(chosen) for i in picked])
    return Selection(frozenset(chosen_outline), plan, outline_used, used, demand), keys


def _deferring_repeats(order: Sequence[Candidate], files: Sequence[NeighborFile],
                       members: dict[str, int]):
    """`order`, but a neighbor member named like one already taken from another file
    (`copy` of a cookie jar, of a request, of a dict type) goes after the rest, unless
    a receiver declared with its class calls it: for an untyped `x.copy()` the first
    says what the call looks like, the others repeat it. (Same-named members in one
    file are usually a base class and its overrides, which belong together.)"""
    later: list[Candidate] = []
    for c in order:
        if c.file >= 0 and not c.typed:
            item = files[c.file].analysis.items[c.item]
            if item.parent != -1 and members.get(item.name, c.file) != c.file:
                later.append(c)
                continue
        yield c
    yield from later


_ENTRY_COSTS = IdentityMemo(512)  # items -> their entry costs


def entry_costs(items: Sequence[Item]) -> tuple[int, ...]:
    """`entry_cost` of each item, memoized per items tuple: a neighbor file's items
    are the same for every request that imports it (per file version)."""
    hit = _ENTRY_COSTS.get(items)
    if hit is not None:
        return hit
    return _ENTRY_COSTS.put(items, tuple(entry_cost(it) for it in items))


# (id(items), with imports) -> (items, cost): neighbor files, and the current document's
# versions (one per keystroke, `rank_memo._prime_demand`), each holding its items: 256
# of them kept every moved item an Enter had built
_COSTS: LRUCache = LRUCache(maxsize=64)


def _items_cost(items: Sequence[Item], with_imports: bool) -> int:
    """Cost of all of a file's entries (memoized per items tuple)."""
    key = (id(items), with_imports)
    hit = _COSTS.get(key)
    if hit is not None and hit[0] is items:
        return hit[1]
    cost = sum(entry_cost(it) for it in items if with_imports or it.kind != "import")
    _remember_cost(items, with_imports, cost)
    return cost


def file_demand(file: NeighborFile) -> int:
    """What a neighbor file's part would cost with every entry but its imports."""
    return _items_cost(file.analysis.items, False) + part_overhead(file.source, "neighbors")


def whole_demand(outline_items: Sequence[Item], files: Sequence[NeighborFile]) -> int:
    """What the current file's outline and `files` would cost whole (`choose` reports
    it; `evidence_java_fill` reads more files while it is small)."""
    return _items_cost(outline_items, True) + sum(file_demand(f) for f in files)


def _remember_cost(items: Sequence[Item], with_imports: bool, cost: int) -> None:
    """`_items_cost`'s memo; `rank_memo` fills it for the current file from the last
    version's cost and the few items a keystroke changed."""
    _COSTS[(id(items), with_imports)] = (items, cost)


def select_stable(doc_key: str, analysis, path: str, cursor_line: int,
                  window: tuple[int, int], files: Sequence[NeighborFile], resolver: str,
                  outline_source: str, budget: int, typing_line: int = -1) -> Selection:
    """`rank` + `choose`, keeping the previous selection while the anchor is the same
    (the rule and its memo: `rank_memo.py`)."""
    from . import rank_memo
    return rank_memo.select_stable(doc_key, analysis, path, cursor_line, window, files,
                                   resolver, outline_source, budget, typing_line)


def forget() -> None:
    from . import rank_memo
    rank_memo.forget()
