"""Python: `self` inside a subclass holds the members of its imported base classes.

`class CodeGenerator(NodeVisitor):` then `self.visit(node)` calls the base's method,
defined in another file: the current file does not define `visit`, so nothing but
the base tells which `visit` of the neighbor files is meant, and `_scored` counts it
as a member of a class with evidence at best (a name of three node classes is as
good). With the bases of the class around the cursor (and their bases among the
neighbor files, two levels), a member of one of them used as `self.m` / `cls.m`
scores as a typed member (`ranking.TYPED_MEMBER`, as near as its nearest use), and
marks the candidate typed (it is not held back as a repeated member name). (Scoring
the bases' unused public members as a receiver's near the cursor changed nothing on
the dev + tuning pool.)
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Sequence

from .brackets import split_top
from .evidence import FAR

RESOLVERS = frozenset({"python"})
SELF_NAMES = frozenset({"self", "cls"})
DEPTH = 2  # bases of bases followed through the neighbor files
RECEIVER_BASES = True  # `req: Request` holds the members of Request's bases too
UNUSED_OF_RECEIVERS = True  # ... and their unused public members, as Request's own
_HEADER = re.compile(r"^\s*class\s+\w+\s*(?:\[[^\]]*\])?\s*\((.*)")
_BASE = re.compile(r"^\s*(?:\w+\.)*([A-Za-z_]\w*)")


def class_bases(item) -> tuple[str, ...]:
    """The base class names of a class item's header (`class A(b.B, C[T], metaclass=M)`
    -> B, C), last dotted part, keyword arguments left out."""
    text = " ".join(line.strip() for line in item.lines if not line.lstrip().startswith("@"))
    m = _HEADER.match(text)
    if m is None:
        return ()
    body, depth, end = m.group(1), 0, None
    for k, ch in enumerate(body):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            if depth == 0:
                end = k
                break
            depth -= 1
    parts = split_top(body[:end], "([", ")]")
    out = []
    for p in parts:
        if "=" in p.split("[")[0]:
            continue  # metaclass=..., total=False
        b = _BASE.match(p)
        if b and b.group(1) not in ("object", "Generic", "Protocol"):
            out.append(b.group(1))
    return tuple(out)


def enclosing_class(items: Sequence, cursor_line: int):
    """The innermost class item whose lines hold the cursor, or None."""
    best = None
    for item in items:
        if item.kind == "class" and item.start <= cursor_line <= item.end:
            if best is None or item.start >= best.start:
                best = item
    return best


_BASES: dict[int, tuple[object, dict[str, tuple[str, ...]]]] = {}


def file_bases(items: Sequence) -> dict[str, tuple[str, ...]]:
    """class name -> its bases, for one neighbor file (memoized per items tuple)."""
    hit = _BASES.get(id(items))
    if hit is not None and hit[0] is items:
        return hit[1]
    out: dict[str, tuple[str, ...]] = {}
    for item in items:
        if item.kind == "class" and item.name:
            bases = class_bases(item)
            if bases:
                out[item.name] = out.get(item.name, ()) + bases
    if len(_BASES) > 512:
        _BASES.clear()
    _BASES[id(items)] = (items, out)
    return out


def inherited(start: dict[str, set[str]], files: Sequence) -> dict[str, set[str]]:
    """class -> qualifiers holding it, with each class's bases among the neighbor
    files (DEPTH levels) held by the same qualifiers."""
    tables = [file_bases(f.analysis.items) for f in files]
    out = {c: set(qs) for c, qs in start.items()}
    frontier = dict(out)
    for _ in range(DEPTH):
        nxt: dict[str, set[str]] = {}
        for c, qs in frontier.items():
            for t in tables:
                for b in t.get(c, ()):
                    if b != c and not qs <= out.get(b, set()):
                        nxt.setdefault(b, set()).update(qs)
        if not nxt:
            break
        for b, qs in nxt.items():
            out.setdefault(b, set()).update(qs)
        frontier = nxt
    return out


def holders(analysis, files: Sequence, ev, cursor_line: int) -> dict[str, set[str]]:
    """Base class -> the qualifiers that hold it: `self` / `cls` the bases of the class
    around the cursor, and a receiver declared with a neighbor class (`req: Request`)
    that class's bases (`Request(HTTPConnection)`: `req.headers`)."""
    start: dict[str, set[str]] = {}
    cls = enclosing_class(analysis.items, cursor_line)
    if cls is not None:
        for b in class_bases(cls):
            if b != cls.name:
                start.setdefault(b, set()).update(SELF_NAMES)
    if RECEIVER_BASES:
        for q, types in (ev.receivers or {}).items():
            for t in types:
                start.setdefault(t, set()).add(q)
    if not start:
        return {}
    out = inherited(start, files)
    if cls is not None:
        out.pop(cls.name, None)
    for t, qs in list(out.items()):
        # a declared receiver's own class is `ranking`'s evidence already
        qs -= {q for q in qs if t in (ev.receivers or {}).get(q, ())}
        if not qs:
            del out[t]
    return out


def _receiver_distances(ev) -> dict[str, int]:
    """receiver -> the distance `ranking` gives its declared types' unused members."""
    rt = ev.receiver_types or {}
    return {q: min((rt.get(t, FAR) for t in types), default=FAR)
            for q, types in (ev.receivers or {}).items()}


def _unused_distance(qs: set[str], ev, bound: dict[str, int]) -> int:
    """How near the cursor a receiver holding the base is declared (FAR: none is, or
    only `self`)."""
    return min((bound.get(q, FAR) for q in qs), default=FAR)



def lift(analysis, files: Sequence, ev, cands: list, cursor_line: int) -> list:
    """`cands` with the base classes' members that `self.m` (or `x.m`, x declared with
    a subclass) calls scored as typed members (the same list when there are none)."""
    if not files or analysis.spec.resolver not in RESOLVERS:
        return cands
    held = holders(analysis, files, ev, cursor_line)
    if not held:
        return cands
    from .evidence_members import _size_factor, held_members
    from .ranking import RECEIVER_MEMBER, TYPED_MEMBER, _freq, _near
    near = _receiver_distances(ev)
    out = cands
    for k, c, items, item, qs in held_members(cands, files, held):
        use = ev.uses.get(item.name)
        if use is None and UNUSED_OF_RECEIVERS and item.name[:1] != "_":
            d = _unused_distance(qs, ev, near)
            if d < FAR:  # as `ranking` scores the receiver's own class's unused members
                # (less for big classes, as `evidence_members` does)
                score = 100 * RECEIVER_MEMBER * _near(d) * \
                    _size_factor(items, items[item.parent].name)
                if score > c.score:
                    if out is cands:
                        out = list(cands)
                    out[k] = c.rescored(score)
            continue
        if use is None or not use.attribute or qs.isdisjoint(use.qualifiers):
            continue
        score = 100 * TYPED_MEMBER * _near(use.distance) + _freq(use.nodes)
        if score > c.score or not c.typed:
            if out is cands:
                out = list(cands)
            out[k] = replace(c, score=max(score, c.score), typed=True)
    return out
