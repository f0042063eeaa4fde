"""Stable selections while typing, and reusing them without ranking again.

A document remembers, per *anchor* (the innermost function, method or class around
the cursor), the keys of the entries its last selection took and the identifiers its
text had then. The rule (`select_stable`):

* **Same anchor.** The kept entries stay whole; if they no longer fit (the stable
  tier's budget shrank), the weak ones go first, from the end of the prompt, so
  the bytes that stay are the prompt's beginning. Entries with strong new evidence are
  added in what is left **only when the anchor's text has an identifier it did not
  have before that names a definition of the current file or of a neighbor file, or
  a neighbor module** (the line being typed at its end does not count: half-written
  names; nor do new local variables), typed since (on a row that changed: not a row
  the parser's recovery moved into the anchor, `typed_names`), and the entries added
  are the definitions of such names (`_named`). A larger budget alone adds nothing:
  the rest goes to recent code, which comes later in the prompt.
* **No definition around the cursor** (a half-typed line the parser cannot place):
  the last anchor's entries, as they are.
* **A new anchor nested in the last one, around it, or after none**: it starts from
  the last anchor's entries (the parser flips between a method and its `impl` /
  class while a signature or doc comment is typed; a variable is never an anchor),
  and adds strong entries named in its text.
* **Any other new anchor**: a fresh selection, best first.

The stable parts keep the order and text the last prompt of the document had; parts
new since go after them (`stable_order`, `part_layout`).

While entries are kept, so are the neighbor files they come from, even when an import
line far from the cursor stops parsing for a few keystrokes (the file's last analysis
is used until it is imported again or the anchor changes).

Because nothing but such new identifiers adds entries, a keystroke that brings none is
answered without ranking: the kept keys are resolved against the current items and
taken as they are (`_reuse`), exactly what ranking then choosing with them gives
whenever they all fit (the equivalence test replays random edits both ways).
"""

from __future__ import annotations

import bisect
import dataclasses
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Sequence

from cachetools import LRUCache

from .bigfile_fastpath import splice_ends, splice_of, typed_anchor
from .evidence import anchor_range
from .evidence_c import NAMESPACE_KINDS, anchor_items, unanchored_key
from . import item_keys
from .item_keys import key_counts
from .memo import HEAVY_ITEMS_WEIGHT, IdentityMemo, line_identifiers
from .moved_items import item_starts
from .neighbors import NeighborFile
from .outline import CONTAINER_KINDS, Item
from .part_layout import Layout, lay_out

ANCHORS_PER_DOCUMENT = 4
NOT_ANCHORS = frozenset({"import", "variable", "constant", "field", "type", "macro"})
FAST = True  # answer keystrokes without new identifiers without ranking (tests turn it off)


@dataclass(frozen=True)
class Anchor:
    key: tuple | None  # (kind, first line number, first line); None: no definition
    lo: int
    hi: int


@dataclass
class Kept:
    keys: frozenset  # ranking._key of every entry the last selection took
    idents: frozenset[str] | None  # the anchor's identifiers then (None: inherited)
    lo: int
    hi: int
    hint: dict  # outline key -> the indices it was selected at
    items_len: int
    files: tuple = ()  # (neighbor file, the indices taken from it) its entries come from
    lines: Sequence[str] | None = None  # the document's lines when `idents` were read
    typing: int = -1  # the row typed at its end then (its names were not read)


@dataclass
class _Doc:
    anchors: OrderedDict  # anchor key -> Kept, most recent last
    demand: tuple | None = None  # (items, their whole cost) of the last version seen
    layout: Layout = field(default_factory=Layout)  # the last prompt's stable parts
    carried: bool = False  # the last selection started from a remembered anchor's
    freed: int | None = None  # what the window at the top of the file last gave back
    stable_used: int | None = None  # the stable tier's tokens in the last prompt
    peak: int | None = None  # what the window gave back when the hold began
    lends: tuple = ()  # what the window offered back in the last requests (`settle`)


_DOCS: LRUCache = LRUCache(maxsize=64)
_LOCK = threading.Lock()
_STARTS = IdentityMemo(16, HEAVY_ITEMS_WEIGHT)


def _starts(items: Sequence[Item]) -> list[int]:
    hit = _STARTS.get(items)
    if hit is not None:
        return hit
    starts = item_starts(items)  # warm: moved items' first lines, not the items built
    _STARTS.put(items, starts)
    return starts


def stable_anchor(analysis, cursor_line: int) -> Anchor:
    """The definition the selection is anchored on: the item `anchor_range` finds
    (the innermost one around the cursor), or its nearest enclosing one when that is
    a variable, field or constant."""
    items = analysis.items
    lo, hi = anchor_range(anchor_items(analysis), cursor_line, analysis.lines)
    starts = _starts(items)
    k = bisect.bisect_left(starts, lo)
    index = -1
    while k < len(items) and items[k].start == lo:
        if items[k].kind != "import":
            index = k
            break
        k += 1
    not_anchors = NOT_ANCHORS | NAMESPACE_KINDS if analysis.spec.resolver == "c" \
        else NOT_ANCHORS  # a C/C++ namespace wraps a whole header
    while index != -1 and items[index].kind in not_anchors:
        index = items[index].parent
    if index == -1:
        return Anchor(None, cursor_line, cursor_line)
    it = items[index]
    return Anchor((it.kind, it.start, it.lines[:1]), it.start, max(it.end, cursor_line))


def anchor_identifiers(lines: Sequence[str], anchor: Anchor, typing_line: int) -> frozenset[str]:
    """Identifiers of the anchor's lines but the one being typed at its end."""
    out: set[str] = set()
    for row in range(max(0, anchor.lo), min(anchor.hi, len(lines) - 1) + 1):
        if row != typing_line:
            out |= line_identifiers(lines[row])
    return frozenset(out)


_NAMES: LRUCache = LRUCache(maxsize=64)  # id(items) -> (items, names it defines)


def _defined(items: Sequence[Item]) -> frozenset[str]:
    hit = _NAMES.get(id(items))
    if hit is not None and hit[0] is items:
        return hit[1]
    names = frozenset(it.name for it in items if it.name)
    _NAMES[id(items)] = (items, names)
    return names


def _names_new(new: frozenset[str], analysis, files: Sequence[NeighborFile]) -> bool:
    """Whether an identifier new in the anchor names something a selection could take:
    a definition of the current file or of a neighbor file, or a neighbor module
    (a new local variable or a half-typed word on a finished line does not)."""
    if not new:
        return False
    from .ranking import module_name
    if not new.isdisjoint(_defined(analysis.items)):
        return True
    for f in files:
        if not new.isdisjoint(_defined(f.analysis.items)) or \
                module_name(f.path, f.analysis.package) in new:
            return True
    return False


def typed_names(new: frozenset[str], kept: Kept, anchor: Anchor, lines: Sequence[str],
                typing_line: int) -> frozenset[str]:
    """The names of `new` (the anchor's identifiers it did not have when `kept` was
    stored) that are on rows typed since: rows that differ from the lines then, and
    the row then typed at its end. A half-typed line lets the parser move the anchor's
    end (a Go raw string opened: the function runs on over lines that were there all
    along, below it); their names are not what was typed, and taking them as new
    evidence added entries mid-anchor, each a miss of the whole window."""
    old = kept.lines
    if not new or old is None:
        return new
    lo, shift = anchor.lo, len(lines) - len(old)
    end_old = min(kept.hi, len(old) - 1)
    end_new = min(end_old + shift, len(lines) - 1)
    p = 0
    while lo + p <= min(end_old, end_new) and lines[lo + p] == old[lo + p]:
        p += 1
    q = 0
    while lo + p <= end_new - q and lo + p <= end_old - q and \
            lines[end_new - q] == old[end_old - q]:
        q += 1
    rows = set(range(lo + p, end_new - q + 1))
    t = kept.typing
    if t >= 0:
        rows.add(t if t < lo + p else t + shift if t > end_old - q else t)
    typed: set[str] = set()
    for row in rows:
        if row != typing_line and 0 <= row < len(lines) and anchor.lo <= row <= anchor.hi:
            typed |= line_identifiers(lines[row])
    return new & frozenset(typed)


def _common_ends(old: Sequence[Item], new: Sequence[Item]) -> tuple[int, int]:
    """Lengths of the longest equal prefix and suffix (not overlapping) of two item
    sequences, by bisection on slice equality (compared in C: a keystroke leaves
    nearly every item as it was, and one Python-level step per item costs as much as
    summing their costs)."""
    n, m = len(old), len(new)
    lo, hi = 0, min(n, m)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[:mid] == new[:mid]:
            lo = mid
        else:
            hi = mid - 1
    p = lo
    lo, hi = 0, min(n, m) - p
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[n - mid:] == new[m - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return p, lo


def _prime_demand(doc: _Doc, items: Sequence[Item]) -> None:
    """The current file's whole cost (`ranking._items_cost(items, True)`, which `choose`
    reports as demand), from the last version's: a keystroke gives a new items tuple
    but changes a few items only, found between the longest equal runs at both ends.
    Summing all of them is a millisecond in a 5,000-line file."""
    from . import ranking
    from .moved_items import cost_change
    cost = _spliced_cost(items)  # (also a version whose cost is known already)
    if cost is None and doc.demand is None:
        cost = ranking._items_cost(items, True)
    elif cost is None:
        old, cost = doc.demand
        n, m = len(old), len(items)
        p, q = splice_ends(old, items) or _common_ends(tuple(old), tuple(items))  # warm
        cost += cost_change(old[p:n - q], items[p:m - q])  # items an Enter only moved: free
        ranking._remember_cost(items, True, cost)
    doc.demand = (items, cost)


def _spliced_cost(items: Sequence[Item], depth: int = 3) -> int | None:
    """The whole cost of `items` from the versions it was spliced from, when one of
    them (a few splices back) has a known cost. After a whole-tree reparse the next
    version is spliced from the last exact one, and an idle reparse's version is one
    no request saw: `doc.demand`'s version is then not its base, and comparing the two
    built every item an Enter had moved (and kept them, in the memos of their costs)."""
    from . import ranking
    from .moved_items import cost_change
    known = ranking._COSTS.get((id(items), True))
    if known is not None and known[0] is items:
        return known[1]
    splice = splice_of(items)
    if splice is None or depth == 0:
        return None
    base, p, q = splice
    cost = _spliced_cost(base, depth - 1)
    if cost is None:
        return None
    cost += cost_change(base[p:len(base) - q], items[p:len(items) - q])
    ranking._remember_cost(items, True, cost)
    return cost


def _nested(a: Anchor, b: Kept) -> bool:
    return a.lo <= b.lo <= a.hi or b.lo <= a.lo <= b.hi


def _outline_shown(item: Item, window: tuple[int, int]) -> bool:
    """Whether the outline may show `item` (`ranking.outline_candidates`' test)."""
    lo, hi = window
    if lo <= item.start and item.end <= hi:
        return False
    if item.kind not in CONTAINER_KINDS and item.start <= hi and item.end >= lo:
        return False
    return not (item.kind == "import" and lo <= item.start <= hi)


# id(items) -> (items, {key: [indices]}): a neighbor file's, or the current document's
# when a kept entry is not where its hint says. Each entry holds a version's items and
# a list per key; when every keystroke built one (session 7's vanished-key check), 128
# versions of the 15,000-line file held 60-70 MB (RSS after `benchmarks.bigfiles`
# 195 MB instead of 124)
_FILE_KEYS = IdentityMemo(32, HEAVY_ITEMS_WEIGHT)


def _index_of(source: str, items: Sequence[Item]) -> dict:
    hit = _FILE_KEYS.get(items)
    if hit is not None:
        return hit
    index: dict = {}
    for i, it in enumerate(items):
        if it.kind != "import" or not source:
            index.setdefault((source, it.name, it.kind, it.lines[:1]), []).append(i)
    return _FILE_KEYS.put(items, index)


def _key(source: str, item: Item) -> tuple:
    return (source, item.name, item.kind, item.lines[:1])


def resolve(kept: Kept, items: Sequence[Item], files: Sequence[NeighborFile],
            window: tuple[int, int]) -> list[tuple[int, int]]:
    """(file, item) of every kept entry that exists now, in prompt order (neighbor
    files by path, then the outline; items in file order). A neighbor file's are the
    indices taken while its items are the same, else found by key; the outline's
    are looked up where they were, shifted by the items added or removed, then by key
    (keys repeat: `push` with the same doc comment in two `impl`s)."""
    want = kept.keys
    out: list[tuple[int, int]] = []
    by_source = sorted(range(len(files)), key=lambda f: files[f].source)
    sources = {k[0] for k in want}
    taken = {f.path: (f.analysis.items, chosen) for f, chosen in kept.files}
    for f in by_source:
        file = files[f]
        if file.source not in sources:
            continue
        was = taken.get(file.path)
        if was is not None and was[0] == file.analysis.items:
            found = sorted(was[1])  # the same items: exactly the ones taken
        else:  # a new version of the file: by key
            index = _index_of(file.source, file.analysis.items)
            found = sorted(i for k in want if k[0] == file.source for i in index.get(k, ()))
        out.extend((f, i) for i in dict.fromkeys(found))
    shift = len(items) - kept.items_len
    found_outline: set[int] = set()
    for k in want:
        if k[0] != "":
            continue
        hits = [j for at in kept.hint.get(k, ()) for j in (at, at + shift)
                if 0 <= j < len(items) and _key("", items[j]) == k]
        if not hits and k in key_counts(items):  # (a key gone from the items: no index)
            hits = list(_index_of("", items).get(k, ()))
        found_outline.update(i for i in hits if _outline_shown(items[i], window))
    out.extend((-1, i) for i in sorted(found_outline))
    return out


def _hint(sel_outline: frozenset[int], items: Sequence[Item]) -> dict:
    """outline key -> the indices it was selected at (names like `state` repeat)."""
    out: dict = {}
    for i in sorted(sel_outline):
        out.setdefault(_key("", items[i]), []).append(i)
    return out


def select_stable(doc_key: str, analysis, path: str, cursor_line: int,
                  window: tuple[int, int], files: Sequence[NeighborFile], resolver: str,
                  outline_source: str, budget: int, typing_line: int = -1):
    """The stable tier's selection under the rule of this module."""
    from . import ranking
    anchor = stable_anchor(analysis, cursor_line)
    key = unanchored_key(analysis, cursor_line, doc_key, anchor.key)  # C/C++ only
    if key != anchor.key:
        anchor = Anchor(key, cursor_line, cursor_line)
    with _LOCK:
        doc = _DOCS.get(doc_key)
        if doc is None:
            doc = _DOCS[doc_key] = _Doc(OrderedDict())
    anchors = doc.anchors
    anchor = typed_anchor(anchor, anchors, typing_line)  # warm: bigfile_fastpath
    last_key = next(reversed(anchors)) if anchors else "-"
    last = anchors.get(last_key) if anchors else None
    store_key = anchor.key
    frozen = False
    if anchor.key is None and last is not None:
        kept, store_key, frozen = last, last_key, True
        anchor = Anchor(last_key, last.lo, last.hi)  # still the last one's
    elif anchor.key in anchors:
        kept = anchors[anchor.key]
    elif last is not None and (last_key is None or _nested(anchor, last)):
        kept = Kept(last.keys, None, anchor.lo, anchor.hi, last.hint, last.items_len,
                    last.files)
    else:
        kept = None
    idents = None if frozen else anchor_identifiers(analysis.lines, anchor, typing_line)
    typed = None  # the names new entries may have (the new names typed in the anchor;
    #               in an anchor new since, all of its names)
    if kept is not None and not frozen:
        typed = idents if kept.idents is None else \
            typed_names(idents - kept.idents, kept, anchor, analysis.lines, typing_line)
    fresh_evidence = kept is not None and not frozen and (
        kept.idents is None or _names_new(typed, analysis, files))
    items = analysis.items
    _prime_demand(doc, items)
    doc.carried = kept is not None
    if kept is not None:
        files = _with_kept_files(files, kept)
        held = _in_prompt_order(resolve(kept, items, files, window), files,
                                doc.layout.order, outline_source)
        if FAST and not fresh_evidence:
            order = [ranking.Candidate(0.0, f, i) for f, i in held]
            sel, keys = ranking.choose(order, items, files, outline_source, budget)
            if keys == _held_keys(held, items, files):  # all of them fit: as ranked
                _store(anchors, store_key, kept, keys | _vanished(kept, items), idents,
                       anchor, sel, items, analysis.lines, typing_line)
                return sel
        cands, _ = ranking.rank(analysis, path, cursor_line, window, files, resolver,
                                typing_line)
        order = _keep_order(cands, held, kept, fresh_evidence, ranking.STRONG,
                            _named(typed, items, files))
        sel, keys = ranking.choose(order, items, files, outline_source, budget)
        if not _held_keys(held, items, files) <= keys:  # the budget left kept ones out
            sel = dataclasses.replace(sel, dropped=True)
        keys |= _vanished(kept, items)
    else:
        cands, _ = ranking.rank(analysis, path, cursor_line, window, files, resolver,
                                typing_line)
        sel, keys = ranking.choose(cands, items, files, outline_source, budget)
    _store(anchors, store_key, kept, keys, idents, anchor, sel, items, analysis.lines,
           typing_line)
    return sel


def _vanished(kept: Kept, items: Sequence[Item]) -> frozenset:
    """Kept outline entries the current parse does not have at all: a half-typed line
    (a `[` still open) lets the parser lose the rest of a class for a few keystrokes.
    They stay remembered, so they are taken again, where they were, once the parse
    has them back (the outline meanwhile keeps its last text, `part_layout`)."""
    counts = key_counts(items)  # warm: from the last version's (`item_keys`)
    return frozenset(k for k in kept.keys if k[0] == "" and k not in counts)


def _in_prompt_order(held: list[tuple[int, int]], files: Sequence[NeighborFile],
                     order: tuple, outline_source: str = "") -> list[tuple[int, int]]:
    """`held` (neighbor files by path, then the outline) with the files and the
    outline in the order the last prompt had them (`stable_order`; a file new since
    after them), so what does not fit goes from the end of the prompt."""
    if not order:
        return held
    place = {k: i for i, k in enumerate(order)}
    keys = [("neighbors", f.source, 0) for f in files]
    outline = place.get(("outline", outline_source, 0), len(order) + 1)
    return sorted(held, key=lambda h: place.get(keys[h[0]], len(order)) if h[0] >= 0
                  else outline)


def _with_kept_files(files: Sequence[NeighborFile], kept: Kept) -> Sequence[NeighborFile]:
    """`files`, plus the kept entries' files that are not among them now: an import
    far from the cursor can stop parsing while a line is half typed (a Rust
    `use super::*;` in `mod tests` at the end of the file), and the signatures it
    brought would leave the prompt and come back a few keystrokes later."""
    paths = {f.path for f in files}
    missing = [f for f, _ in kept.files if f.path not in paths]
    return list(files) + missing if missing else files


def _held_keys(held, items, files) -> set:
    return {_key(files[f].source, files[f].analysis.items[i]) if f >= 0 else _key("", items[i])
            for f, i in held}


def _keep_order(cands, held: list[tuple[int, int]], kept: Kept, fresh_evidence: bool,
                strong: float, named=None) -> list:
    """Kept entries first (strong ones, then weak ones, each in prompt order: what
    does not fit goes from the end), then strong new ones when there is new evidence:
    within an anchor, only those `named(candidate)` accepts (see `_named`)."""
    from .ranking import Candidate
    score = {(c.file, c.item): c.score for c in cands}
    held_set = set(held)
    kept_order = [Candidate(score.get(p, 0.0), p[0], p[1]) for p in held]
    order = [c for c in kept_order if c.score >= strong] + \
        [c for c in kept_order if c.score < strong]
    if fresh_evidence:
        order += [c for c in cands if (c.file, c.item) not in held_set and c.score >= strong
                  and (named is None or named(c))]
    return order


def _named(typed: frozenset[str] | None, items: Sequence[Item], files: Sequence[NeighborFile]):
    """The new entries a carried-over selection takes are definitions of `typed`'s
    names (within an anchor, the names typed since; in an anchor new since, which
    starts from the last one's entries, the names in its text): an entry that turned
    strong for another reason (the parser moved the anchor's end over uses of other
    names, `typed_names`; a signature being typed flips the anchor between a method
    and its class) waits for an unrelated anchor's fresh selection."""
    if typed is None:
        return None

    def named(c) -> bool:
        its = items if c.file < 0 else files[c.file].analysis.items
        return its[c.item].name in typed

    return named


def _store(anchors: OrderedDict, key, kept: Kept | None, keys: frozenset,
           idents: frozenset[str] | None, anchor: Anchor, sel, items,
           lines: Sequence[str] | None = None, typing_line: int = -1) -> None:
    base = kept.idents if kept is not None else None
    if idents is None:  # frozen: the identifiers (and the lines they were read from)
        merged = base   # stay the last ones
        lines, typing_line = (kept.lines, kept.typing) if kept is not None else (None, -1)
    else:
        merged = idents if base is None else base | idents
    used = tuple((f, chosen) for f, chosen in zip(sel.neighbors.files, sel.neighbors.selected)
                 if chosen)
    entry = Kept(keys, merged, anchor.lo, anchor.hi, _hint(sel.outline, items), len(items),
                 used, lines, typing_line)
    with _LOCK:
        anchors.pop(key, None)
        anchors[key] = entry
        while len(anchors) > ANCHORS_PER_DOCUMENT:
            del anchors[next(iter(anchors))]


def stable_order(doc_key: str, parts: list, make_part=None, room: int = 0,
                 broken=None, strict_room: int | None = None) -> list:
    """`parts` (neighbors by path, outline, recent code) laid out after the document's
    last prompt (`part_layout.lay_out`): its stable parts in its order and with the
    text it sent, parts and entries new since after all of them, recent code last.
    With no earlier prompt: `parts` unchanged.

    `make_part(tier, source, text)` builds a part (the addenda's and a kept outline's);
    `room`: what the addenda's labels may add; `strict_room`: what a kept outline may
    add; `broken()`: whether the document's parse has an error (asked only when the
    selection was carried over from the last anchor)."""
    with _LOCK:
        doc = _DOCS.get(doc_key)
    if doc is None:
        return parts
    keep = doc.carried and broken is not None and _has_outline(doc.layout) and broken()
    out, doc.layout = lay_out(parts, doc.layout, make_part, room, keep, strict_room)
    return out


def _has_outline(layout: Layout) -> bool:
    return any(k[0] == "outline" for k in layout.order)


def held_share(doc_key: str, share, freed: int, room: int, at_top: bool, narrow=None,
                settle: int = 1):
    """`share(freed)` (`budget.share_out` over the stable tier and recent code), with
    what a window reaching the top of the file gives back to the stable tier held
    while the window grows. Its reservation grows in steps of budget/8: a step takes
    256 tokens from the stable tier at once, the kept entries that no longer fit
    leave the prompt, and every byte after them misses the prefix cache. Held, the
    stable tier gives back only what the window really took (`room`: the reservation
    it leaves unused) while the last selection still fits in that; when it does not,
    the step is taken as before (dropping entries one at a time instead would change
    the prompt again at every next line). Before it is, `narrow(shortfall)` may offer
    the window with a suffix shorter by what the hold lacks (`suffix_hold`): (its
    share, freed, room, how to take it), taken when the selection fits beside it.
    A document's first request, a window off the top, one that shrinks:
    `share(freed)` unchanged. With `settle` > 1 (`hold_room.settle_for`) a larger
    `freed` is taken only once the window has offered it `settle` requests in a row
    (the least of the last `settle` is lent): a window that dips under a step for a
    keystroke does not add entries that the next keystroke drops again."""
    with _LOCK:
        doc = _DOCS.get(doc_key)
        if doc is None and at_top:
            doc = _DOCS[doc_key] = _Doc(OrderedDict())
    if doc is None:
        return share(freed)  # (outside the lock: the stable filler takes it)
    if settle > 1 and at_top:
        with _LOCK:
            doc.lends = (doc.lends + (freed,))[-settle:]
            freed = min(doc.lends)
    settled = freed
    held = freed
    if at_top and doc.freed is not None:
        held = max(freed, min(doc.freed, room))
    before = _memory(doc)
    fills = share(held)
    if held != freed and doc.stable_used is not None and _dropped(fills):
        # the held value shrinks with the room while the selection still fits (an
        # outline the parse lost for a keystroke needs less): the suffix gives back
        # what the hold began with
        target = max(doc.freed, doc.peak or 0)
        retry = narrow(target - room) if narrow is not None else None
        if retry is not None:
            share2, freed2, room2, take = retry
            if settle > 1:  # a shorter suffix does not lend what has not settled
                freed2 = min(freed2, settled)
            held2 = max(freed2, min(target, room2))
            _restore(doc, before)  # the selection that left entries out is not kept
            fills2 = share2(held2)
            if not _dropped(fills2):
                take()
                held, fills = held2, fills2
                retry = True
        if retry is not True:
            held = freed  # the hold no longer keeps the selection: take the step
            _restore(doc, before)
            fills = share(freed)
    used = _stable_tokens(fills)
    with _LOCK:
        doc.freed = held if at_top else None
        doc.peak = (held if held == freed else doc.peak) if at_top else None
        doc.stable_used = used
    return fills


def _memory(doc: _Doc) -> tuple:
    """What a stable selection changes in a document's memory (`select_stable`)."""
    with _LOCK:
        return OrderedDict(doc.anchors), doc.carried, doc.demand


def _restore(doc: _Doc, memory: tuple) -> None:
    with _LOCK:
        anchors, doc.carried, doc.demand = memory
        doc.anchors.clear()
        doc.anchors.update(anchors)


def _dropped(fills: dict) -> bool:
    """Whether the stable tier's selection left out entries the anchor kept (the held
    budget no longer holds them). Not its size against the last one's: while the parse
    has an error the outline's items come and go (their last text is sent in the
    meantime, `part_layout`), and the size with them."""
    sel = fills["stable"].result if "stable" in fills else None
    return bool(getattr(sel, "dropped", False))


def _stable_tokens(fills: dict) -> int:
    return fills["stable"].used if "stable" in fills else 0


def forget() -> None:
    """Drop every remembered selection (the other memos here are exact, keyed on the
    objects they were computed from, and bounded)."""
    with _LOCK:
        _DOCS.clear()
    item_keys.forget()
