"""Java: lift an unused neighbor method whose parameter names are all parameters of
the method the cursor is in.

Delegating code passes its own parameters on under the same names:
`ZipCoder.get(charset)` inside `ZipOutputStream(OutputStream out, Charset charset)`,
`Year.isLeap(year)` inside `isValidYear(int year)`. The target scored 30-40 (nothing
else named it). The scope is the enclosing header's parameter list, not every
identifier near the cursor: a field `t` matched `get(ExchangeImpl t)`,
`WriteFinishedEvent(ExchangeImpl t)` and `Event(ExchangeImpl t)` and pushed the
`read` being typed out (session 14, pool +5 -2 with the near identifiers, +2 -0 with
the parameters). A name two matching overloads share (`read(b, off, len)` in two
streams) is not lifted: which one is called is unknown.
"""

from __future__ import annotations

import re
from typing import Sequence

from .memo import PerAnalysis

PARAM_SCORE = 50.0  # floor (40 gained nothing, 60 the same as 50 on the pool)
MIN_PARAMS = 1  # fewer named parameters say nothing
PARAM_KINDS = frozenset({"method", "function", "constructor"})
OWN_SCOPE = True  # the names are the enclosing method's parameters, not any near word
OVERLOADS = True  # two neighbor methods of one name both match: not lifted
HEADER_ROWS = 4  # a declaration's header spans at most this many lines
_ANNOTATION = re.compile(r"@[\w.]+(\([^()]*\))?")

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


def _own_params(lines: Sequence[str], anchor: tuple[int, int]) -> frozenset[str]:
    """The parameter names of the definition the cursor is in (its header: the anchor's
    first lines up to the body's `{`, annotations dropped); empty for a class."""
    lo = max(anchor[0], 0)
    head = " ".join(lines[lo:min(lo + HEADER_ROWS, len(lines))])
    head = _ANNOTATION.sub(" ", head.split("{", 1)[0])
    return frozenset(param_names(head))


def _compute_params(analysis) -> tuple[tuple[str, ...] | None, ...]:
    """Per item of a neighbor file: the parameter names of its declaration (the first
    two lines, from its name on), or None for an item that takes no parameters."""
    out: list[tuple[str, ...] | None] = []
    for item in analysis.items:
        if item.kind not in PARAM_KINDS or not item.lines:
            out.append(None)
            continue
        head = " ".join(item.lines[:2])
        out.append(param_names(head[head.find(item.name):] if item.name in head else head))
    return tuple(out)


# the neighbor files stay the same from keystroke to keystroke: parse their headers once
_params_of: PerAnalysis[tuple[tuple[str, ...] | None, ...]] = PerAnalysis(_compute_params)


def lift_params(cands: list, files: Sequence, ev, near: dict[str, int],
                lines: Sequence[str] = ()) -> list:
    """`cands` with each unused neighbor method whose parameter names are all
    parameters of the enclosing definition (OWN_SCOPE; else all in `near`) raised to
    PARAM_SCORE, unless another neighbor method of that name matches too."""
    if OWN_SCOPE:
        near = _own_params(lines, ev.anchor)  # type: ignore[assignment]
    if not files or not near:
        return cands
    params_of = [_params_of(f.analysis) for f in files]
    matched: dict[str, list[int]] = {}
    for k, c in enumerate(cands):
        if c.file < 0:
            continue
        names = params_of[c.file][c.item]
        if names is not None and len(names) >= MIN_PARAMS and all(n in near for n in names):
            matched.setdefault(files[c.file].analysis.items[c.item].name, []).append(k)
    out = list(cands)
    for name, ks in matched.items():
        if name in ev.uses or (OVERLOADS and len(ks) > 1):
            continue  # several overloads take these names: which one is unknown
        for k in ks:
            if cands[k].score < PARAM_SCORE:
                out[k] = cands[k].rescored(PARAM_SCORE)
    return out
