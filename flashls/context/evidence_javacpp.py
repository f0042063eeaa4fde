"""Java and C/C++ revisions of the ranking's scores, after the language-neutral ones.

Repeats, shadowing and focus (`evidence_lang.common_pass`, written for Go and Rust)
hold for Java and C/C++ as well:

* repeats: fmt's `core.h` has seventeen `value(...)` constructors and four `begin()` /
  `end()` pairs, Java's overloads (`ContextList.remove` twice, `findContext` twice),
  each scored like the first and taken before the next name; after the best entry of a
  name each further one in the same file is halved (×0.8 in another file);
* focus: a 1,000-line Java class or C++ header uses every neighbor name "in the
  anchor"; the names used only more than 40 lines from the cursor count 15 % less;
* shadowing: a neighbor's top-level name the current file defines itself is what the
  file's plain uses mean.

Measured on the dev half of `benchmarks.real_context`: C/C++ 82.5 → 86.0 %, Java
76.0 → 78.0 %.

Java also gets `_next_to_cursor`: the unused members of the types the lines around the
cursor reach score at least CURSOR_TYPE_MEMBER (Java dev 79.0 → 80.5 %, with the
locality bonus of `evidence_locality.py` at 20 points / 30 lines); since session 7
only for types of at most MAX_CURSOR_TYPE_MEMBERS members (LogManager's forty tied at
85 and crowded out the names the method uses).

Session 7, for both:

* `_family`: Go's name-family bonus (`name_family.bonuses`): `manager.getIntProperty`
  on the next line makes `getLevelProperty` likely, `detail::write_int` above makes
  `write_bytes` likely (dev: Java 81.5 -> 83.0 %, C/C++ 86.0 -> 88.5 %);
* `_span`: where no definition encloses the cursor (C/C++ at namespace level: lists
  of typedefs and macro calls) the anchor is the cursor's line alone, so nothing was
  "near"; the lines around the cursor are read instead (C/C++ dev -> 90.0 %);
* `_between_siblings`: an unused entry between two entries of its file that are used
  next to the cursor (`GLM_ALIGNED_TYPEDEF(lowp_int64_t, ..)` above, `(lowp_i16, ..)`
  below: `lowp_i8`) is likely the line being written.

`ranking.rank` calls `revise` through one hook line.
"""

from __future__ import annotations

import re
from typing import Sequence

from .evidence_c import keyword_names
from .evidence_java import declared_receivers
from .evidence_java_params import lift_params
from .evidence_java_field import lift_headers
from .evidence_java_twin import enclosing, lift_twins
from .evidence_java_pkg import in_class_header, lift as lift_guessed
from .evidence_lang import common_pass
from .family_ties import break_ties
from .receivers_c import declared as declared_c
from .name_family import KINDS as FAMILY_KINDS, ROWS, postings, relatives
from .name_family import _last_bonuses as last_bonuses  # Go's memo of the last bonuses
from .unused_lift import lift_unused
from .siblings_c import lift as lift_sibling_uses
from .namespace_c import lift as lift_namespace_members
from .macro_lines_c import lift as lift_macro_lines
from .memo import HEAVY_ITEMS_WEIGHT, IdentityMemo

COMMON_PASS = frozenset({"java", "c"})  # LanguageSpec.resolver values
CURSOR_TYPES = frozenset({"java", "c"})
CURSOR_ROWS = 3  # lines above and below the cursor whose types' members may be next
CURSOR_TYPE_MEMBER = 85.0  # an unused member of such a type scores at least this (dev: 75 79.0 %, 80 80.0, 85 80.5)
MAX_CURSOR_TYPE_MEMBERS = 60  # a bigger type's unused members are not lifted (dev: 30 83.0 %, 45-80 83.5, none 83.0)
_QUALIFIER = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*)\s*\.")
_C_QUALIFIER = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)\s*(?:\.|->)(?!\*)")  # `v.`, `p->`


def _cursor_types(analysis, ev, cursor_line: int) -> set[str]:
    """Types whose members the lines around the cursor reach: `ServerConfig.getX()`,
    `Sink<T> downstream`, `downstream.end()` with `downstream` declared a `Sink`
    (C/C++: `BigInteger d(..)`, `d.Sign()`, `node->first_attribute()`)."""
    lines = analysis.lines
    c = analysis.spec.resolver == "c"
    declare, qualifier = (declared_c, _C_QUALIFIER) if c else (declared_receivers, _QUALIFIER)
    out: set[str] = set()
    for row in range(max(0, cursor_line - CURSOR_ROWS),
                     min(len(lines), cursor_line + CURSOR_ROWS + 1)):
        line = lines[row]
        for v, t in declare(line):
            out.add(t)
            if c:  # the declared type's aliases and bases (`receivers_c.augment`)
                out.update(ev.receivers.get(v, ()))
        for q in qualifier.findall(line):
            out.update(ev.receivers.get(q, ()))
    return out


def _next_to_cursor(cands: list, analysis, files: Sequence, ev, cursor_line: int) -> list:
    """Unused members of the types the cursor's neighbor lines use score at least
    CURSOR_TYPE_MEMBER: next to `ServerConfig.getMaxIdleConnections()` and four more
    such lines, the next line is likely another `ServerConfig` getter; in a
    1,000-line class every name it uses anywhere scored above it."""
    types = _cursor_types(analysis, ev, cursor_line)
    if not types:
        return cands
    sizes: dict = {}
    lifted = []
    for k, c in enumerate(cands):
        if c.file >= 0 and 10.0 <= c.score < CURSOR_TYPE_MEMBER:
            items = files[c.file].analysis.items
            item = items[c.item]
            if item.parent != -1 and items[item.parent].name in types and \
                    item.name not in ev.uses and \
                    _members(sizes, c.file, items, item.parent) <= MAX_CURSOR_TYPE_MEMBERS:
                lifted.append(k)
    if analysis.spec.resolver == "c" and \
            sum(n for n in sizes.values() if n <= MAX_CURSOR_TYPE_MEMBERS) > MAX_CURSOR_TYPE_MEMBERS:
        # C/C++ receivers reach their class's bases too (`receivers_c`): all of them
        # together are no short list either (rapidxml's node, its base, the pool)
        return cands
    out = list(cands)
    for k in lifted:
        out[k] = cands[k].rescored(CURSOR_TYPE_MEMBER)
    return out


def _members(sizes: dict, file: int, items, parent: int) -> int:
    key = (file, parent)
    n = sizes.get(key)
    if n is None:
        n = sizes[key] = sum(1 for it in items if it.parent == parent)
    return n


FAMILY_RESOLVERS = frozenset({"java", "c"})


def _span(ev, cursor_line: int) -> tuple[int, int]:
    """The rows whose identifiers are near the cursor: the anchor's, or where no
    definition encloses the cursor (C/C++ at namespace level: typedef and macro
    lists, where the anchor is the cursor's line alone) the lines around it."""
    lo, hi = ev.anchor
    if lo >= cursor_line and hi <= cursor_line:
        return cursor_line - ROWS, cursor_line + ROWS
    return lo, hi


def _family(cands: list, files: Sequence, ev, near: dict[str, int]) -> list:
    """Neighbor entries not used in the file yet, lifted by the words they share with
    identifiers near the cursor (`near`: `name_family.relatives`; Go's rule, and its
    memo of the last bonuses: keystrokes on one line ask the same again)."""
    if not files or not near:
        return cands
    found = last_bonuses(near, postings(files))
    return lift_unused(cands, files, ev, found, FAMILY_KINDS)


SIBLING_RESOLVERS = frozenset({"java", "c"})  # C/C++ dev: +2 -2 tasks, Java +1
SIBLING_ROWS = 10  # both neighbors used this near the cursor (5: the same on C/C++ dev)
SIBLING_SCORE = 80.0  # (60: the same on C/C++ dev)


def _between_siblings(cands: list, files: Sequence, ev, near_rows: dict[str, int]) -> list:
    """An unused neighbor entry whose previous and next entries in its file (same
    container) are both used within SIBLING_ROWS of the cursor scores at least
    SIBLING_SCORE: code walking a list in order (`GLM_ALIGNED_TYPEDEF(lowp_i16, ..)`
    above, `(lowp_i32, ..)` below) skips none of it."""
    if not files:
        return cands
    near = {n for n, d in near_rows.items() if d <= SIBLING_ROWS}
    if not near:
        return cands
    lifted: set[tuple[int, int]] = set()
    for f_index, f in enumerate(files):
        after = _siblings(f.analysis.items)
        for name in near:
            for index, between, nxt in after.get(name, ()):
                if nxt in near and between not in near and between not in ev.uses:
                    lifted.add((f_index, index))
    if not lifted:
        return cands
    return [c.rescored(SIBLING_SCORE) if (c.file, c.item) in lifted and
            c.score < SIBLING_SCORE else c for c in cands]


_SIBLINGS = IdentityMemo(512, HEAVY_ITEMS_WEIGHT)


def _siblings(items) -> dict[str, tuple[tuple[int, str, str], ...]]:
    """name -> (index, name, next name) of each entry that follows an entry of that
    name in the same container (memoized per items tuple: a neighbor file's items
    are shared by every request that reads it)."""
    hit = _SIBLINGS.get(items)
    if hit is not None:
        return hit
    by_parent: dict[int, list[int]] = {}
    for i, it in enumerate(items):
        if it.kind != "import" and it.name:
            by_parent.setdefault(it.parent, []).append(i)
    out: dict[str, list[tuple[int, str, str]]] = {}
    for run in by_parent.values():
        for k in range(1, len(run) - 1):
            prev, i, nxt = items[run[k - 1]], items[run[k]], items[run[k + 1]]
            out.setdefault(prev.name, []).append((run[k], i.name, nxt.name))
    table = {n: tuple(v) for n, v in out.items()}
    _SIBLINGS.put(items, table)
    return table


def revise(resolver: str, analysis, files: Sequence, ev, cands: list, cursor_line: int
           ) -> list:
    """The candidates revised for Java and C/C++ (the same list for other languages)."""
    cands = keyword_names(cands, analysis, files)  # C/C++ misparses named `struct`
    if resolver == "c":  # `ns::` names; before the additive lifts, which rank among them
        cands = lift_namespace_members(analysis, files, ev, cands)
    if files and (resolver in FAMILY_RESOLVERS or resolver in SIBLING_RESOLVERS):
        near = relatives(analysis.lines, cursor_line, _span(ev, cursor_line))
        if resolver in FAMILY_RESOLVERS:
            cands = _family(cands, files, ev, near)
        if resolver in SIBLING_RESOLVERS:
            cands = _between_siblings(cands, files, ev, near)
    if resolver == "c":
        cands = lift_sibling_uses(analysis, files, ev, cands)  # the directory's files' uses
        cands = lift_macro_lines(analysis, files, ev, cands, cursor_line)  # `NS_BEGIN(x)` lines
    if resolver in CURSOR_TYPES:
        cands = _next_to_cursor(cands, analysis, files, ev, cursor_line)
        cands = lift_guessed(cands, files, ev, resolver == "java" and  # package files
                             in_class_header(analysis.lines, cursor_line))  # siblings use
    if files and resolver in FAMILY_RESOLVERS:  # after the floors above, which tie
        cands = break_ties(resolver, cands, files, ev, near)  # Java
        if resolver == "java":  # delegating calls: parameters passed on by name
            cands = lift_params(cands, files, ev, near, analysis.lines)
            cands = lift_twins(cands, analysis, files, ev, cursor_line)  # sibling classes' twins
            cands = lift_headers(cands, analysis, files,  # a field declared on this line
                                 enclosing(analysis.items, cursor_line) < 0)
    if resolver in COMMON_PASS:
        cands = common_pass(cands, analysis, files, ev, cursor_line)
    return cands
