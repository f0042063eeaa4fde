"""Java: lift an unused neighbor method whose parameter names are all identifiers
near the cursor.

Delegating code passes its own parameters on under the same names:
`Nodes.collectDouble(helper, spliterator, flattenTree)` inside a method taking
`helper`, `spliterator` and `flattenTree`. The target scored 30-40 at rank 100-140
(nothing else named it); its parameter list, matched name for name by the
identifiers around the cursor, says it is the call being typed.
"""

from __future__ import annotations

import re
from typing import Sequence

PARAM_SCORE = 50.0  # floor for an entry whose parameters are all near identifiers
MIN_PARAMS = 1  # fewer named parameters say nothing
PARAM_KINDS = frozenset({"method", "function", "constructor"})
SINGLE_OVERLOAD = True  # a name declared twice among the neighbors: which one is unknown

_PARAMS = re.compile(r"\(([^()]*)\)")
_NAME = re.compile(r"([A-Za-z_$][\w$]*)\s*$")


def param_names(line: str) -> tuple[str, ...]:
    """The parameter names of the first parenthesized list on a declaration line
    (`int f(List<T> xs, int n)` -> ("xs", "n")); () when there is none."""
    m = _PARAMS.search(line)
    if not m or not m.group(1).strip():
        return ()
    out = []
    depth = 0
    part = ""
    for ch in m.group(1) + ",":
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            n = _NAME.search(part.replace("...", " "))
            if n:
                out.append(n.group(1))
            part = ""
        else:
            part += ch
    return tuple(out)


def lift_params(cands: list, files: Sequence, ev, near: dict[str, int]) -> list:
    """`cands` with each unused neighbor method whose parameter names are all in
    `near` raised to PARAM_SCORE."""
    if not files or not near:
        return cands
    items_of = [f.analysis.items for f in files]
    counts: dict[str, int] = {}
    if SINGLE_OVERLOAD:
        for c in cands:
            if c.file >= 0:
                it = items_of[c.file][c.item]
                if it.kind in PARAM_KINDS:
                    counts[it.name] = counts.get(it.name, 0) + 1
    out = list(cands)
    for k, c in enumerate(cands):
        if c.file < 0 or c.score >= PARAM_SCORE:
            continue
        item = items_of[c.file][c.item]
        if item.kind not in PARAM_KINDS or item.name in ev.uses or not item.lines:
            continue
        if counts.get(item.name, 0) > 1:
            continue
        head = " ".join(item.lines[:2])
        names = param_names(head[head.find(item.name):] if item.name in head else head)
        if len(names) >= MIN_PARAMS and all(n in near for n in names):
            out[k] = c.rescored(PARAM_SCORE)
    return out
