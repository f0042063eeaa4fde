"""Python and JS/TS: the class of a receiver the current file does not declare.

`evidence.py` types a receiver from what the current file says (`x: T`, `x = T(...)`,
`except T as x`). Many receivers are typed elsewhere: an attribute a neighbor class
annotates (`template_class: t.Type["Template"]`, `def jinja_env(self) -> Environment`),
or a name that is its class's name (`self.environment`, `session_interface`). For a
call `q.m` with such a `q`:

* a member `m` of that class used as `.m` in the file scores as a typed member
  (`ranking.TYPED_MEMBER`) instead of a loose one;
* the class's public members not used yet score as the members of a receiver near the
  cursor (`ranking.RECEIVER_MEMBER`), as near as the nearest use of `q`.

Python: local variables typed by a call's annotated return type or a conditional
value (`receiver_returns`) hold their classes too; as fresh as `x = T(..)` when
assigned a few rows above the cursor (RETURNED_FRESH), their used members as near as
the receiver (RETURNED_NEAR), and a member the file calls only on other receivers is
unused by them (OTHERS_UNUSED: `key.as_string()` elsewhere, `key_str.as_string()` next).

Only classes of the neighbor files count; `self`, `this` and `cls` are never typed
here. Tables per neighbor file (its classes and members, its annotated attributes) are
memoized on its items tuple.
"""

from __future__ import annotations

import re
from .init_attributes import init_attributes
from .receiver_returns import receivers as returned_receivers
from .memo import HEAVY_ITEMS_WEIGHT, IdentityMemo
from dataclasses import replace
from typing import Sequence

RESOLVERS = frozenset({"python", "js"})
NAME_MATCH = True  # `environment` is an `Environment` (flag: measured on dev)
ANNOTATED = True  # a neighbor's `attr: T` / `def attr(self) -> T` types `x.attr`
UNUSED_MEMBERS = True  # a typed receiver's members not used yet, at its nearest use
DECLARED_NEAR = True  # a declared receiver's unused members at its nearest use too
DECLARED_RESOLVERS = frozenset({"python"})  # measured on Python's dev tasks only
INIT_ASSIGNED = True  # Python: a neighbor's `self.q = T(..)` in `__init__` types `x.q`
INIT_HERE = True  # ... and the current file's own `__init__` (Python)
ATTRIBUTES_TOO = True  # an attribute used as `x.q` is a receiver too
RETURNED = True  # Python: receivers typed by `receiver_returns` (flag: measured on the pool)
RETURNED_NEAR = True  # ... their used members as near as the receiver's nearest use
OTHERS_UNUSED = True  # ... a member called on other receivers only is unused by them
RETURNED_FRESH = True  # ... assigned a few rows above the cursor: as fresh as `x = T(..)`
PLAIN_UNUSED = True  # a member's name used only plainly (a local `password`) is unused
SMALL_CLASS = 12  # public members a class may have before each is worth less
MIN_NAME = 4  # shorter receiver names (`app`, `req`, `ctx`) are not matched by name
_SKIP = frozenset({"self", "this", "cls", "super"})
_CLASS_KINDS = frozenset({"class", "interface"})
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_FIELD = re.compile(r"^\s*(?:(?:public|private|protected|readonly|static|declare)\s+)*"
                    r"([A-Za-z_$][\w$]*)\s*[?!]?\s*:\s*(.+)$")
_RETURNS = re.compile(r"(?:->|\)\s*:)\s*(.+?)\s*(?::|\{|;)?\s*$")

_PROPERTY = re.compile(r"^\s*(?:@(?:\w+\.)*(?:property|cached_property)\b|"
                       r"(?:(?:public|private|protected|static)\s+)*get\s+[A-Za-z_$])")

_TABLES = IdentityMemo(256, HEAVY_ITEMS_WEIGHT)


class FileTables:
    """One neighbor file's classes (name -> member item indexes) and annotated
    attributes (attribute name -> identifiers of its annotation)."""

    __slots__ = ("classes", "attributes", "sizes")

    def __init__(self, items: Sequence) -> None:
        self.classes: dict[str, list[int]] = {}
        self.attributes: dict[str, frozenset[str]] = {}
        self.sizes: dict[str, float] = {}  # class -> `_size_factor`, as asked
        class_at: dict[int, str] = {}
        for index, item in enumerate(items):
            if item.kind in _CLASS_KINDS and item.name:
                class_at[index] = item.name
                self.classes.setdefault(item.name, [])
        for index, item in enumerate(items):
            owner = class_at.get(item.parent)
            if owner is None or not item.name:
                continue
            self.classes[owner].append(index)
            words = _annotation(item)
            if words:
                self.attributes[item.name] = self.attributes.get(item.name, frozenset()) | words


def _annotation(item) -> frozenset[str]:
    """Capitalized identifiers of a field's annotation or a method's return type."""
    text = " ".join(line.strip() for line in item.lines if not line.lstrip().startswith("@"))
    if item.kind in ("function", "method"):
        # a property's type (`x.jinja_env.m`); a method's return type would type
        # `x.q().m`, which the file's uses (`x.q`) do not tell apart from `x.q.m`
        if not _is_property(item):
            return frozenset()
        m = _RETURNS.search(text)
    else:
        m = _FIELD.match(text)
        m = m if m and m.group(1) == item.name else None
    if m is None:
        return frozenset()
    body = m.group(m.lastindex or 1).split("=", 1)[0]
    return frozenset(w for w in _WORD.findall(body) if w[:1].isupper())


def _is_property(item) -> bool:
    return any(_PROPERTY.match(line) for line in item.lines)


def tables(items: Sequence) -> FileTables:
    hit = _TABLES.get(items)
    if hit is not None:
        return hit
    t = FileTables(items)
    _TABLES.put(items, t)
    return t


def _normal(name: str) -> str:
    return name.replace("_", "").replace("$", "").lower()


_CLASS_INDEX: list = [None]  # [(items of each file, (tables, classes, by_normal))]


def _class_index(files: Sequence) -> tuple[list[FileTables], set[str], dict[str, set[str]]]:
    """The neighbor files' tables, all their class names, and those by normalized
    name: the same for both `receiver_classes` calls of a request, and for the next
    request while the neighbor files are (memoized for the last files asked about)."""
    items = [f.analysis.items for f in files]
    hit = _CLASS_INDEX[0]
    if hit is not None and len(hit[0]) == len(items) and \
            all(a is b for a, b in zip(hit[0], items)):
        return hit[1]
    per_file = [tables(i) for i in items]
    classes: set[str] = set()
    for t in per_file:
        classes.update(t.classes)
    by_normal: dict[str, set[str]] = {}
    for c in classes:
        by_normal.setdefault(_normal(c), set()).add(c)
    out = (per_file, classes, by_normal)
    _CLASS_INDEX[0] = (items, out)
    return out


def receiver_classes(qualifiers, ev, files: Sequence, *, by_name: bool = True,
                     current=None) -> dict[str, frozenset[str]]:
    """qualifier -> the neighbor classes it holds, for the qualifiers the current file
    does not type itself. `current` (Python): the current file's analysis, whose
    `__init__` assignments type attributes too (`self.symbols = Symbols(..)`)."""
    per_file, classes, by_normal = _class_index(files)
    if not classes:
        return {}
    inits: list | None = None  # the `__init__` tables, looked up once (not per qualifier)
    declared = ev.receivers or {}
    out: dict[str, frozenset[str]] = {}
    for q in qualifiers:
        if q in _SKIP or not q or q[:1].isupper():
            continue  # `Control.move()`: the class itself (`ranking` has its evidence)
        found: set[str] = set()
        if q in declared:
            continue  # typed by the file itself (`ranking`)
        if by_name and NAME_MATCH and len(q) >= MIN_NAME:
            found |= by_normal.get(_normal(q.lstrip("_")), set())
        if ANNOTATED:
            for t in per_file:
                words = t.attributes.get(q)
                if words:
                    found |= words & classes
        if INIT_ASSIGNED:
            if inits is None:
                inits = _init_tables(files, current)
            for table in inits:  # `self.url = URL(url)` in an `__init__` (Python)
                words = table.get(q)
                if words:
                    found |= words & classes
        if found:
            out[q] = frozenset(found)
    return out


def _init_tables(files: Sequence, current) -> list[dict[str, frozenset[str]]]:
    """The Python analyses' `init_attributes`, neighbor files first, then `current`."""
    assigning = [f.analysis for f in files] + ([current] if current is not None else [])
    return [init_attributes(a) for a in assigning if a.spec.resolver == "python"]


def revise(analysis, files: Sequence, ev, cands: list, cursor_line: int) -> list:
    """`cands` with the members of receivers typed elsewhere scored as typed ones (the
    same list when there are none)."""
    if not files or analysis.spec.resolver not in RESOLVERS:
        return cands
    qualifiers: set[str] = set()
    attributes: set[str] = set()
    for name, use in ev.uses.items():
        if use.attribute:
            qualifiers |= use.qualifiers
            attributes.add(name)  # `x.template_class` itself: `x.template_class.m`
    here = analysis if INIT_HERE and analysis.spec.resolver == "python" else None
    typed = receiver_classes(qualifiers, ev, files, current=here)
    declared = _declared(qualifiers, ev) if DECLARED_NEAR and \
        analysis.spec.resolver in DECLARED_RESOLVERS else {}
    if ATTRIBUTES_TOO:
        # by their annotations only: a name match (`x.console`) would bring every
        # method of an 80-method `Console` as near as the attribute
        for q, cs in receiver_classes(attributes - set(typed), ev, files,
                                      by_name=False, current=here).items():
            typed[q] = cs
    fresh_q: dict[str, int] = {}
    returned: set[str] = set()
    if RETURNED and analysis.spec.resolver == "python":  # `receiver_returns`
        before = typed
        typed, fresh_q = _with_returned(analysis, files, ev, cursor_line, typed)
        returned = {q for q in typed if q not in before}
    if not typed and not declared:
        return cands
    from .ranking import FRESH_RECEIVER_MEMBER, PRIVATE, RECEIVER_MEMBER, TYPED_MEMBER, \
        _freq, _near
    from .evidence import FAR
    holders: dict[str, set[str]] = {}  # class -> qualifiers holding it
    for q, cs in typed.items():
        for c in cs:
            holders.setdefault(c, set()).add(q)
    near_use = analysis.usage_distances(set(typed) | set(declared), cursor_line, FAR) \
        if UNUSED_MEMBERS else {}
    plain_unused = PLAIN_UNUSED and analysis.spec.resolver == "python"  # JS/TS: not measured
    if declared:
        cands = _declared_near(cands, files, ev, declared, near_use)
    out = cands
    for k, c, items, item, held in held_members(cands, files, holders):
        use = ev.uses.get(item.name)
        if plain_unused and use is not None and not use.attribute:
            use = None  # as `ranking.PLAIN_NOT_MEMBER`: a local is no call of `x.m`
        if use is not None and use.attribute and held.isdisjoint(use.qualifiers) and \
                OTHERS_UNUSED and returned and not held.isdisjoint(returned):
            use = None  # called on other receivers only: unused by this one
        if use is not None and use.attribute:
            if held.isdisjoint(use.qualifiers):
                continue
            near = _near(use.distance)
            if RETURNED_NEAR and returned and not held.isdisjoint(returned):
                # as `ranking.TYPED_NEAR`: as near as the receiver's nearest use
                near = max(near, _near(min(near_use.get(q, FAR) for q in held)))
            score = 100 * TYPED_MEMBER * near + _freq(use.nodes)
            typed_use = True
        elif UNUSED_MEMBERS and use is None and item.name[:2] != "__":
            d = min((near_use.get(q, FAR) for q in held), default=FAR)
            if d >= FAR:
                continue
            weight = FRESH_RECEIVER_MEMBER if fresh_q and not held.isdisjoint(fresh_q) \
                else RECEIVER_MEMBER
            score = 100 * weight * _near(d) * \
                (PRIVATE if item.name[:1] == "_" else 1.0) * \
                _size_factor(files[c.file].analysis.items, items[item.parent].name)
            typed_use = False
        else:
            continue
        if score > c.score:
            if out is cands:
                out = list(cands)
            out[k] = replace(c, score=score, typed=c.typed or typed_use)
    return out


def _with_returned(analysis, files: Sequence, ev, cursor_line: int,
                   typed: dict[str, frozenset[str]]
                   ) -> tuple[dict[str, frozenset[str]], dict[str, int]]:
    """`typed` with the variables `receiver_returns` types (annotated return types,
    conditional values) that nothing else here types, and which of those are fresh."""
    skip = set(typed) | _SKIP
    found, fresh = returned_receivers(analysis, files, ev, cursor_line, skip)
    if not found:
        return typed, {}
    classes = _class_index(files)[1]
    out = dict(typed)
    for q, cs in found.items():
        cs = cs & classes
        if cs:
            out[q] = cs
    return out, {q: d for q, d in fresh.items() if q in out} if RETURNED_FRESH else {}


def held_members(cands: list, files: Sequence, holders: dict[str, set[str]]):
    """(position, candidate, its file's items, its item, the qualifiers holding its
    class) for each neighbor member whose class `holders` names."""
    for k, c in enumerate(cands):
        if c.file < 0:
            continue
        items = files[c.file].analysis.items
        item = items[c.item]
        if item.parent < 0 or not item.name:
            continue
        held = holders.get(items[item.parent].name)
        if held:
            yield k, c, items, item, held


def _declared(qualifiers: set[str], ev) -> dict[str, frozenset[str]]:
    """Qualifiers the file declares with a class (`self.type: ParamType`, `ctx: Context`)."""
    declared = ev.receivers or {}
    return {q: declared[q] for q in qualifiers if q in declared and q not in _SKIP}


def _declared_near(cands: list, files: Sequence, ev, declared: dict, near_use: dict) -> list:
    """A declared receiver's unused public members as near as the receiver's nearest
    use, not its declaration (`self.type` declared in `__init__`, called 300 lines
    below), scaled down for big classes like the members typed elsewhere."""
    from .ranking import RECEIVER_MEMBER, _near
    from .evidence import FAR
    holders: dict[str, int] = {}
    for q, cs in declared.items():
        d = near_use.get(q, FAR)
        for c in cs:
            if d < holders.get(c, FAR):
                holders[c] = d
    if not holders:
        return cands
    out = cands
    for k, c in enumerate(cands):
        if c.file < 0:
            continue
        items = files[c.file].analysis.items
        item = items[c.item]
        if item.parent < 0 or not item.name or item.name[:1] == "_" or item.name in ev.uses:
            continue
        cls = items[item.parent].name
        d = holders.get(cls)
        if d is None:
            continue
        score = 100 * RECEIVER_MEMBER * _near(d) * _size_factor(items, cls)
        if score > c.score:
            if out is cands:
                out = list(cands)
            out[k] = c.rescored(score)
    return out


def _size_factor(items: Sequence, class_name: str) -> float:
    """1 for a class of up to SMALL_CLASS public members, less for bigger ones: which
    of `Console`'s 80 methods comes next is a guess 80 ways, and all of them at the
    receiver's score would fill the budget."""
    t = tables(items)
    hit = t.sizes.get(class_name)
    if hit is None:  # once per class and file version, not per candidate
        public = sum(1 for i in t.classes.get(class_name, ()) if items[i].name[:1] != "_")
        hit = t.sizes[class_name] = 1.0 if public <= SMALL_CLASS else \
            (SMALL_CLASS / public) ** 0.5
    return hit
