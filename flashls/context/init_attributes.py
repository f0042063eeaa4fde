"""Python: the classes a neighbor's `__init__` assigns to its attributes.

`request.url.password`: `url` is no annotated attribute and no property of
`Request`; its `__init__` says `self.url = URL(url)`, which is what types
`request.url`. Likewise `self.command: "Command" = command` (an annotated
assignment) and `self.ctx = ctx` with `ctx: "Context"` in the signature. The
attribute name then holds those classes wherever it is used as `x.url.m`
(`evidence_members.receiver_classes`, by annotation, like `attr: T` fields).

Read from the lines of each class's `__init__` in a neighbor file; memoized per
items tuple (so per file version).
"""

from __future__ import annotations

import re
from typing import Sequence

from .memo import HEAVY_ITEMS_WEIGHT, IdentityMemo

MAX_INIT_LINES = 200  # an `__init__` longer than this is read this far
_ASSIGN = re.compile(r"^\s*self\.([A-Za-z_]\w*)\s*(?::\s*([^=]+?))?\s*=\s*(.+?)\s*$")
_CALL = re.compile(r"^([A-Z]\w*)\s*\(")  # `URL(url)`: a capitalized callable
_PARAM = re.compile(r"([A-Za-z_]\w*)\s*:\s*([^=,)]+)")
_WORD = re.compile(r"[A-Za-z_]\w*")

_MEMO = IdentityMemo(256, HEAVY_ITEMS_WEIGHT)


def _capitalized(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text) if w[:1].isupper())


def init_attributes(analysis) -> dict[str, frozenset[str]]:
    """attribute name -> capitalized identifiers of what `__init__` assigns it
    (its annotation, the class it calls, or its parameter's annotation)."""
    items = analysis.items
    hit = _MEMO.get(items)
    if hit is not None:
        return hit
    out: dict[str, frozenset[str]] = {}
    lines = analysis.lines
    for item in items:
        if item.name != "__init__" or item.parent < 0:
            continue
        params = _parameters(item.lines)
        for row in range(item.start, min(item.end, item.start + MAX_INIT_LINES) + 1):
            if row >= len(lines):
                break
            words = _assigned(lines[row], params)
            if words:
                name = _ASSIGN.match(lines[row]).group(1)
                out[name] = out.get(name, frozenset()) | words
    _MEMO.put(items, out)
    return out


def _parameters(signature: Sequence[str]) -> dict[str, frozenset[str]]:
    """`__init__`'s annotated parameters: name -> capitalized words of the annotation."""
    text = " ".join(line.strip() for line in signature)
    return {m.group(1): _capitalized(m.group(2)) for m in _PARAM.finditer(text)
            if m.group(1) != "self"}


def _assigned(line: str, params: dict[str, frozenset[str]]) -> frozenset[str]:
    m = _ASSIGN.match(line)
    if m is None:
        return frozenset()
    annotation, value = m.group(2), m.group(3)
    if annotation:
        return _capitalized(annotation)
    call = _CALL.match(value)
    if call:
        return frozenset({call.group(1)})
    if value in params:
        return params[value]
    return frozenset()
