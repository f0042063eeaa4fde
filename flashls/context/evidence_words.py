"""Python: a used module's tied names broken by the words written near the cursor.

The first use of a big module's name (`types.BoolParamType`, `nodes.MarkSafeIfAutoescape`)
has no evidence of its own: it ties with every other unused top-level name of the module
at the module's score (`ranking.MODULE`), and file order breaks the tie, so a module of
80 classes sends the first few. `name_family` (through `evidence_relatives`) lifts the
name when an identifier near the cursor shares half its words; often no one identifier
does, but the words are there among several, in comments too: "mark the return value as
safe if we are in an environment with autoescaping turned on" two rows above
`nodes.MarkSafeIfAutoescape(node)`, `self.is_flag: bool` and `types.ParamType` around
`types.BoolParamType`.

Per request: the lower-cased words (plurals folded, `name_family.words`) of every
identifier and comment word within ROWS rows of the cursor (its own line left out,
Python keywords dropped). Per unused top-level entry of a module the file uses as
`mod.X`: the share of its name's words found there, each word weighed by its rarity
among the module's top-level names (log(names / names having it): `type` in thirty
`*Type` names says less than `bool`); a name word of PREFIX letters or more also
matches a near word starting with all its letters but the last (`autoescape` in
"autoescaping", `parse` in "parser"). An entry with a share
of MIN_SHARE or more gains TIE x the share: a tie-breaker among the module's names,
not evidence against anything scored above them.
"""

from __future__ import annotations

import bisect
import math
import re
from typing import Sequence

from .evidence import FAR
from .memo import HEAVY_ITEMS_WEIGHT, IdentityMemo
from .name_family import words

RESOLVERS = frozenset({"python"})
ROWS = 20  # rows above and below the cursor read
TIE = 1.0  # points for a share of 1 (the module's names tie to the hundredth)
MIN_SHARE = 0.5  # below: a word or two of a long name, found by chance
PREFIX = 5  # a name word this long matches a near word it starts (but its last letter)
MIN_WORD = 3  # shorter name words (`if`, `ws`, `to`) are not weighed
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEYWORDS = frozenset("""self cls None True False return if else elif for in while try
    except finally with as def class pass raise import from not and or is lambda yield
    await async break continue global nonlocal del assert""".split())

_TABLES = IdentityMemo(256, HEAVY_ITEMS_WEIGHT)


def near_words(lines: Sequence[str], cursor_line: int) -> frozenset[str]:
    """The words of the ROWS lines above and below the cursor (not its own line)."""
    out: set[str] = set()
    lo, hi = max(0, cursor_line - ROWS), min(len(lines) - 1, cursor_line + ROWS)
    for row in range(lo, hi + 1):
        if row == cursor_line:
            continue
        for token in _TOKEN.findall(lines[row]):
            if token not in _KEYWORDS:
                out.update(words(token))
    return frozenset(out)


def module_table(items: Sequence) -> tuple[dict[int, frozenset[str]], dict[str, float]]:
    """(top-level entry index -> its name's weighed words, word -> its rarity weight)
    of one file; memoized per items tuple."""
    hit = _TABLES.get(items)
    if hit is not None:
        return hit
    names: dict[int, frozenset[str]] = {}
    df: dict[str, int] = {}
    for index, item in enumerate(items):
        if item.parent >= 0 or not item.name or item.kind == "import" or \
                item.name[:1] == "_":
            continue
        ws = frozenset(w for w in words(item.name) if len(w) >= MIN_WORD)
        if not ws:
            continue
        names[index] = ws
        for w in ws:
            df[w] = df.get(w, 0) + 1
    n = len(names)
    weight = {w: math.log(1.0 + n / k) for w, k in df.items()}
    out = (names, weight)
    _TABLES.put(items, out)
    return out


def _found(word: str, near: frozenset[str], prefixes: dict) -> bool:
    if word in near:
        return True
    if len(word) < PREFIX:
        return False
    hit = prefixes.get(word)
    if hit is None:
        stem = word[:-1]  # `autoescape` in "autoescaping", `parse` in "parsing"
        ordered = prefixes.get("")  # the near words sorted, once per request
        if ordered is None:
            ordered = prefixes[""] = sorted(near)
        at = bisect.bisect_left(ordered, stem)
        hit = prefixes[word] = at < len(ordered) and ordered[at].startswith(stem)
    return hit


def share(ws: frozenset[str], weight: dict[str, float], near: frozenset[str],
          prefixes: dict) -> float:
    """The rarity-weighed share of `ws` found among `near` (`prefixes`: the prefix
    lookups of this request, and under "" the near words sorted)."""
    total = found = 0.0
    for w in ws:
        x = weight.get(w, 1.0)
        total += x
        if _found(w, near, prefixes):
            found += x
    return found / total if total else 0.0


def lift(analysis, files: Sequence, ev, cands: list, cursor_line: int) -> list:
    """`cands` with the unused names of used modules tie-broken by the near words (the
    same list when nothing is lifted)."""
    if not files or analysis.spec.resolver not in RESOLVERS or not TIE:
        return cands
    from .ranking import module_name
    bonus: dict[tuple[int, int], float] = {}
    near: frozenset[str] | None = None
    prefixes: dict[str, bool] = {}
    for f_index, f in enumerate(files):
        qualifier = module_name(f.path, f.analysis.package)
        module = ev.uses.get(qualifier)
        if module is None or module.distance >= FAR or qualifier not in ev.bound:
            continue
        names, weight = module_table(f.analysis.items)
        if not names:
            continue
        if near is None:
            near = near_words(analysis.lines, cursor_line)
        items = f.analysis.items
        for index, ws in names.items():
            if items[index].name in ev.uses:
                continue
            s = share(ws, weight, near, prefixes)
            if s >= MIN_SHARE:
                bonus[(f_index, index)] = TIE * s
    if not bonus:
        return cands
    out = list(cands)
    for k, c in enumerate(cands):
        b = bonus.get((c.file, c.item))
        if b:
            out[k] = c.rescored(c.score + b)
    return out
