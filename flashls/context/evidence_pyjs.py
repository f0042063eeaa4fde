"""Python and JavaScript/TypeScript revisions of the neutral scores of `ranking.py`.

* **Overloads.** A TypeScript function or method declared with a dozen overload
  signatures (rxjs' `pipe`, `mergeMap`), or a Python `@overload` stack, is one name
  used once: the first signature says what the call looks like, the others repeat it.
  Each further entry of the same name under the same parent, right after the first,
  is worth OVERLOAD times the one before it, so twelve `pipe`s do not take the budget
  of six other names the line may need.

* **The window's unused share.** A window that does not reach the top of the file
  reserves its whole share (55 %) so the stable tier's budget does not move with every
  typed character; most windows stop a grid cell short of it. In the languages of
  `LENDERS` (Python and JS/TS since session 8, Java and C/C++ since session 10, Go and
  Rust since session 11) the window holds back its size rounded up to a step of
  budget/8 instead, as a window at the top of the file does (`budget.window_reservation`),
  for JS/TS, Java and Go 5 % of its size more against the estimate's error, and for
  Rust LEND_SLACK tokens more: what recent code would not use of the difference goes
  to the outline and neighbor signatures. The budget then
  changes only when the window crosses a step, and a kept selection is not re-ranked
  for a larger budget (`rank_memo`).
"""

from __future__ import annotations

from typing import Sequence

from .evidence_bases import lift as lift_bases
from .evidence_kin import lift as lift_kin
from .evidence_members import revise as revise_members
from .evidence_relatives import lift as lift_relatives
from .evidence_similar import lift as lift_similar
from .evidence_words import lift as lift_words
from .receiver_private import lift as lift_friends
from .memo import HEAVY_ITEMS_WEIGHT, IdentityMemo

OVERLOAD = 0.5  # each further consecutive entry of one name under one parent
RESOLVERS = frozenset({"python", "js"})


def lent_window(spec, freed: int, reserved: int, window_tokens: int, budget: int,
                whole_file: bool) -> int:
    """What the window gives back of its reservation (`assemble_context`'s hook):
    `freed` as computed, or for every language of LENDERS what its size in budget/8
    steps leaves of `reserved`, less WINDOW_ERROR of its size for JS/TS and Java
    (the estimate runs up to a fifth low on JSDoc- and type-heavy windows, which the 5 %
    margin of the budget covered only while the stable tier was smaller: redux toolkit's
    `createAsyncThunk.ts` sent 2,063 real tokens for 1,900 estimated without it,
    2,011 with it; Java's `CountedCompleter.java` 2,036 for 1,890), and less LEND_SLACK
    (room for the window to grow before the hold of `rank_memo.held_share` gives way)."""
    if spec is None or not lends(spec.resolver):
        return freed
    from .budget import window_reservation
    stepped = window_reservation(window_tokens, budget, whole_file=whole_file, top_fits=True)
    error = WINDOW_ERROR.get(spec.resolver, 0.0)
    slack = LEND_SLACK.get(spec.resolver, 0)
    return max(freed, reserved - stepped - int(window_tokens * error) - slack)


LEND_WINDOW = True


def lends(resolver: str) -> bool:
    """Whether a window of `resolver`'s language lends what it does not use of its
    share (`lent_window`, `hold_room`)."""
    return LEND_WINDOW and resolver in LENDERS
# the languages whose window lends what it does not use of its share. Session 10 added
# Java (pool 695 -> 704 of 800, replay_trace hit 0.872 -> 0.880) and C/C++ (with the
# sibling evidence of session 10: pool 622 -> 633 of 720, no project lower; replay_trace
# hit 0.907 -> 0.894, the same 44 requests). Go and Rust gained 2-3 of 725-800 pool
# tasks but lost prompt-cache hits on replay_trace (Go 0.898 -> 0.867, Rust 0.899 ->
# 0.893): a step of lent budget drops kept entries when the typed window grows past it.
# Session 11 added both with hysteresis (`hold_room.SETTLE`): pool Go 743 -> 745 of
# 800, Rust 599 -> 605 of 725, replay_trace hit Go 0.898 -> 0.898, Rust 0.899 -> 0.912.
LENDERS = RESOLVERS | frozenset({"java", "c", "go", "rust"})
# the window estimate's error held back (Python's largest request was 1,925 real
# tokens with the whole difference lent, JS/TS's 2,063; on the session 10 pools, lent,
# Java's 2,036, Go's 2,057 (go-cmp's test files run 8 % low; 2,007 with 0.05), Rust's
# 1,874, C/C++'s 1,905)
WINDOW_ERROR = {"js": 0.05, "java": 0.05, "go": 0.05}
# tokens the window may grow by before the lent amount no longer holds (Rust: its
# windows cross a step and back within a few keystrokes; replay_trace 6 tasks 0.874 ->
# 0.885 with 32, pool 605 either way; 64 lost 3 pool tasks. Go: pool 745 -> 743 with 32
# and no cache gained, so none)
LEND_SLACK = {"rust": 32}


def revise(resolver: str, files: Sequence, cands: list) -> list:
    """`cands` with the scores of overload repeats discounted (the same list for
    other languages)."""
    if resolver not in RESOLVERS:
        return cands
    out = cands
    repeats = _overload_ranks(files)
    if not repeats:
        return cands
    for k, c in enumerate(cands):
        if c.file < 0:
            continue
        n = repeats[c.file].get(c.item)
        if n:
            if out is cands:
                out = list(cands)
            out[k] = c.rescored(c.score * OVERLOAD ** n)
    return out


_RANKS = IdentityMemo(256, HEAVY_ITEMS_WEIGHT)


def _overload_ranks(files: Sequence) -> list[dict[int, int]] | None:
    """Per file: item index -> its place in a run of same-named siblings (1 for the
    second, 2 for the third...; first entries are left out). Memoized per items tuple."""
    out = []
    found = False
    for f in files:
        ranks = overload_ranks(f.analysis.items)
        found = found or bool(ranks)
        out.append(ranks)
    return out if found else None


def overload_ranks(items: Sequence) -> dict[int, int]:
    hit = _RANKS.get(items)
    if hit is not None:
        return hit
    ranks: dict[int, int] = {}
    last: dict[int, tuple[str, int, int]] = {}  # parent -> (name, index of its last sibling, run)
    for index, item in enumerate(items):
        if item.kind == "import" or not item.name:
            continue
        prev = last.get(item.parent)
        run = prev[2] + 1 if prev is not None and prev[0] == item.name else 0
        if run:
            ranks[index] = run
        last[item.parent] = (item.name, index, run)
    _RANKS.put(items, ranks)
    return ranks


OUTLINE_REPEAT = 0.5  # each further same-file entry of one name (flag: measured on dev)


def outline_repeats(cands: list, outline_items: Sequence) -> list:
    """`cands` with each further current-file entry of a name already offered worth
    OUTLINE_REPEAT times the one before: a file of twenty node classes each defining
    `as_const` sent all twenty when the anchor calls `as_const` (600 tokens of one
    signature), leaving no room for what the line needs from the imports."""
    if not OUTLINE_REPEAT or OUTLINE_REPEAT >= 1:
        return cands
    order = sorted((k for k, c in enumerate(cands) if c.file < 0),
                   key=lambda k: (-cands[k].score, cands[k].item))
    seen: dict[str, int] = {}
    out = cands
    for k in order:
        item = outline_items[cands[k].item]
        if item.kind == "import" or not item.name:
            continue
        n = seen.get(item.name, 0)
        seen[item.name] = n + 1
        if n:
            if out is cands:
                out = list(cands)
            out[k] = cands[k].rescored(cands[k].score * OUTLINE_REPEAT ** n)
    return out


def revise_context(analysis, files: Sequence, ev, cands: list, cursor_line: int) -> list:
    """Python and JS/TS revisions that need the current file (`ranking.rank`'s hook):
    same-file repeats, import statements (Python), receivers typed elsewhere
    (`evidence_members`), names of similar functions (`evidence_similar`, Python),
    classes akin to those used near the cursor (`evidence_kin`, Python), relatives near
    the cursor (`evidence_relatives`, Python), a friend class's private members
    (`receiver_private`, Python), a used module's ties broken by the words near the
    cursor (`evidence_words`, Python)."""
    if analysis.spec.resolver not in RESOLVERS:
        return cands
    cands = outline_repeats(cands, analysis.items)
    cands = _imports_weighed(cands, analysis)
    cands = lift_friends(analysis, files, ev, cands)  # `receiver_private`, Python
    cands = revise_members(analysis, files, ev, cands, cursor_line)
    cands = lift_bases(analysis, files, ev, cands, cursor_line)  # `evidence_bases`, Python
    cands = lift_similar(analysis, files, ev, cands, cursor_line)  # `evidence_similar`
    cands = lift_kin(analysis, files, ev, cands, cursor_line)  # `evidence_kin`, Python
    cands = lift_relatives(analysis, files, ev, cands, cursor_line)  # `evidence_relatives`
    return lift_words(analysis, files, ev, cands, cursor_line)  # `evidence_words`, Python


# of an import statement of the current file's score (measured on Python's dev pool:
# 0.6 and 0.3 alike, +2 of 750; JS/TS not measured)
IMPORT_FACTOR = {"python": 0.6}


def _imports_weighed(cands: list, analysis) -> list:
    """The current file's import statements at IMPORT_FACTOR of their score: a
    22-line `from .helpers import (...)` whose one name the anchor uses outranked the
    methods of a receiver declared there, and the signatures of what it binds are in
    the request on their own merit."""
    f = IMPORT_FACTOR.get(analysis.spec.resolver, 1.0)
    if f == 1.0:
        return cands
    items = analysis.items
    return [c.rescored(c.score * f) if c.file < 0 and items[c.item].kind == "import"
            else c for c in cands]
