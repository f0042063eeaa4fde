"""Go: a neighbor's package-level variable that the anchor's uses do not mean.

A use of a name near the cursor is evidence for the neighbor entry of that name, but
two kinds of package-level `var` (and `const`) entries collect it without being used:

* `_`: `var _ Lstater = (*CopyOnWriteFs)(nil)`, a compile-time interface check; every
  `_, err := f()` in the current file "uses" it, so it scored 99 in afero's tests and
  took room from `NewOsFs`;
* a variable the anchor declares itself (`v := New()`, `func f(v *Viper)`, `for _, v
  := range`): viper's package variable `var v *Viper` scored 100 from the test's local
  `v`, which Go scoping says is what those uses mean.

Such an entry keeps only the score of an entry without evidence (`ranking`'s fill). A
name the anchor declares is read off its short declarations, `var` lines, `range`
clauses and the parameters and results of its header; uses outside the anchor could be
of the package variable, but the nearest use is what the score was made of.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from .brackets import split_top
from .memo import LINE_MEMO_SIZE

KINDS = frozenset({"variable", "constant"})
BLANK = "_"
MAX_SCAN_ROWS = 800  # rows of the anchor read for declarations (as `evidence_go`)
FILL = 3.0  # the score of a top-level entry nothing points at (`ranking._scored`)

# `a, b := ...`, `for k, v := range`: the names left of `:=`
_SHORT = re.compile(r"((?:[A-Za-z_]\w*\s*,\s*)*[A-Za-z_]\w*)\s*:=")
_VAR = re.compile(r"^\s*var\s+((?:[A-Za-z_]\w*\s*,\s*)*[A-Za-z_]\w*)\b")
_FUNC = re.compile(r"^\s*func\b")
_PARAM = re.compile(r"([A-Za-z_]\w*)(?=\s*(?:,|\s+[\[\]\*\.\w(]))")


@lru_cache(maxsize=LINE_MEMO_SIZE)
def declared_on(line: str) -> frozenset[str]:
    """Names a body line declares (`x, err := f()`, `var buf bytes.Buffer`)."""
    out: set[str] = set()
    for group in _SHORT.findall(line):
        out.update(n.strip() for n in group.split(","))
    m = _VAR.match(line)
    if m:
        out.update(n.strip() for n in m.group(1).split(","))
    return frozenset(out)


@lru_cache(maxsize=LINE_MEMO_SIZE)
def header_params(line: str) -> frozenset[str]:
    """Receiver, parameter and named result names of a `func` header line."""
    if not _FUNC.match(line):
        return frozenset()
    out: set[str] = set()
    depth = 0
    start = -1
    for i, ch in enumerate(line):
        if ch == "(":
            depth += 1
            if depth == 1:
                start = i + 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and start >= 0:
                out |= _names_in_list(line[start:i])
                start = -1
        elif ch == "{" and depth == 0:
            break
    return frozenset(out)


def _names_in_list(text: str) -> set[str]:
    """`a, b int, c *T` -> {a, b, c}; `int, error` (types alone) -> {}."""
    out: set[str] = set()
    pending: list[str] = []
    for part in split_top(text):
        words = part.split()
        if len(words) >= 2 and re.fullmatch(r"[A-Za-z_]\w*", words[0]):
            out.update(pending)
            out.add(words[0])
            pending = []
        elif len(words) == 1 and re.fullmatch(r"[A-Za-z_]\w*", words[0]):
            pending.append(words[0])  # `a, b int`: a name, or a type of `(int, error)`
        else:
            pending = []
    return out


def anchor_locals(lines: Sequence[str], anchor: tuple[int, int]) -> frozenset[str]:
    """The names the anchor declares: its header's parameters and its body's locals."""
    lo, hi = anchor
    first = max(0, lo)
    last = min(hi, len(lines) - 1, first + MAX_SCAN_ROWS)
    out: set[str] = set()
    for row in range(first, last + 1):
        line = lines[row]
        out |= header_params(line)
        if ":=" in line or "var" in line:
            out |= declared_on(line)
    out.discard(BLANK)
    return frozenset(out)


def demote(analysis, files: Sequence, ev, cands: list) -> list:
    """Neighbor variables and constants named `_` or like a local of the anchor, at the
    fill score."""
    locals_: frozenset[str] | None = None
    out = cands
    for k, c in enumerate(cands):
        if c.file < 0 or c.score <= FILL:
            continue
        item = files[c.file].analysis.items[c.item]
        if item.kind not in KINDS:
            continue
        name = item.name
        if name != BLANK:
            use = ev.uses.get(name)
            if use is None or use.qualified:
                continue
            if locals_ is None:
                locals_ = anchor_locals(analysis.lines, ev.anchor)
            if name not in locals_:
                continue
        if out is cands:
            out = list(cands)
        out[k] = c.rescored(FILL / (1.0 + files[c.file].rank / 4.0))
    return out
