"""C/C++ specifics of import resolution and ranking, called from the shared code.

* Includes: `#include "x.h"` is looked up next to the file, then in the include roots;
  `#include <lib/x.h>` in the include roots only (a system header is never in the
  workspace, so it resolves to nothing). Include roots are guessed the way a build's
  `-I` flags usually are: every workspace folder and its `include/` and `src/`, and
  every ancestor directory of the file inside the workspace (a header in
  `include/spdlog/sinks/` that includes `<spdlog/common.h>` finds `include/`).
* Ranking: a namespace is not a container. `fmt::detail::to_unsigned` is a free
  function whose name reaches an including file as a plain (or namespace-qualified)
  name, so it is scored like a top-level definition, not like a member of a class.
"""

from __future__ import annotations

import math
import os
import re
import threading
from dataclasses import replace
from typing import Sequence

from .memo import HEAVY_ITEMS_WEIGHT, IdentityMemo
from .workspace import Workspace

NAMESPACE_KINDS = frozenset({"module"})  # what queries/cpp/definitions.scm calls namespaces
MAX_ANCESTORS = 8  # directories above the file tried as include roots


def include_path(written: str) -> tuple[str, bool]:
    """(header, angled) from an include's path as captured: `"x.h"`, `x.h`, `<a/b.h>`."""
    text = written.strip()
    if text.startswith("<") and text.endswith(">"):
        return text[1:-1].strip(), True
    return text.strip('"'), False


def include_roots(path: str, workspace: Workspace) -> list[str]:
    """Directories an include is looked up in after the file's own, nearest first."""
    here = os.path.dirname(os.path.abspath(path))
    out: list[str] = []
    directory = os.path.dirname(here)
    for _ in range(MAX_ANCESTORS):
        if not workspace.contains(directory):
            break
        out.append(directory)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    for root in workspace.roots:
        out += [root, os.path.join(root, "include"), os.path.join(root, "src")]
    seen: set[str] = set()
    return [d for d in out if not (d in seen or seen.add(d))]


def include_candidates(path: str, written: str, roots: Sequence[str]) -> list[str]:
    """Where one include may be, in lookup order (quoted: the file's directory first)."""
    header, angled = include_path(written)
    if not header or os.path.isabs(header):
        return []
    here = os.path.dirname(os.path.abspath(path))
    bases = list(roots) if angled else [here, *roots]
    return [os.path.normpath(os.path.join(b, header)) for b in bases]


def scoring_parent(items: Sequence, item, resolver: str):
    """The container `item` is a member of for ranking: None for a top-level item and,
    in C/C++, for an item whose container is a namespace."""
    if item.parent == -1:
        return None
    parent = items[item.parent]
    if resolver == "c":
        while parent is not None and parent.kind in NAMESPACE_KINDS:
            parent = items[parent.parent] if parent.parent != -1 else None
    return parent


_ANCHOR_ITEMS: dict[int, tuple[object, tuple]] = {}


def anchor_items(analysis) -> Sequence:
    """The items a cursor can be anchored in (`evidence.anchor_range`): in C/C++ not
    namespaces, which wrap a whole header (every name would be "used in the anchor").
    Memoized per items tuple (the analysis shares it between versions)."""
    items = analysis.items
    if analysis.spec.resolver != "c":
        return items
    hit = _ANCHOR_ITEMS.get(id(items))
    if hit is not None and hit[0] is items:
        return hit[1]
    kept = tuple(it for it in items if it.kind not in NAMESPACE_KINDS)
    if len(_ANCHOR_ITEMS) > 64:
        _ANCHOR_ITEMS.clear()
    _ANCHOR_ITEMS[id(items)] = (items, kept)
    return kept


C_EXTRA_MARGIN_DIVISOR = 25  # 4 % more of the budget left unused for C/C++
# Long all-caps words (`RAPIDJSON_LITTLEENDIAN`, `GLM_FUNC_QUALIFIER`, licence text):
# DeepSeek splits them into ~3-letter tokens. The shared estimate (`tokens.py`) now
# counts all-caps humps in every language; what C/C++ headers still miss is in their
# longest words (the residual fitted on the benchmark's C/C++ lines with the shared
# weights fixed). With the shared estimate's new shapes, C/C++ far-context text is
# estimated 5 % high on average (60-line chunks: p99 real / estimate 1.11), so the
# extra margin went from 8 % to 4 % (C/C++ dev 81.0 %; 8 %: 79.5 % before the change).
_CAPS = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Z0-9]{3,}(?![a-z])")
CAPS_PER_CHAR = 0.07
CAPS_PER_WORD = -0.8


def macro_excess(spec, text: str) -> int:
    """Tokens the local estimate misses in C/C++ text (0 for other languages)."""
    if spec is None or spec.resolver != "c" or not text:
        return 0
    words = _CAPS.findall(text)
    extra = sum(CAPS_PER_CHAR * len(w) + CAPS_PER_WORD for w in words)
    return math.ceil(extra) if extra > 0 else 0


def extra_estimate_margin(spec, budget: int, window_text: str = "") -> int:
    """Budget held back beyond the shared margin where the local estimate may run
    low: C/C++ headers full of macro names, whose longest words `macro_excess` adds
    back for the window (the neighbor and outline parts get it in `corrected_parts`)."""
    if spec is None or spec.resolver != "c":
        return 0
    return budget // C_EXTRA_MARGIN_DIVISOR + macro_excess(spec, window_text)


def corrected_parts(spec, parts: list) -> list:
    """The parts with `macro_excess` added to their estimates, so that the final guard
    of `assemble_context` (drop parts while over budget) counts what DeepSeek will."""
    if spec is None or spec.resolver != "c":
        return parts
    out = []
    for p in parts:
        extra = macro_excess(spec, p.text)
        out.append(replace(p, tokens=p.tokens + extra) if extra else p)
    return out


# Tree depth a C/C++ definition may start at (`symbols.DEFINITION_START_DEPTH` is 5):
# headers wrap everything in an include guard (`#ifndef X_H`, one level) and nest
# namespaces (two levels each: the definition and its body), so a template function
# of `fmt::detail::dragonbox` starts at depth 6 and a method of a class there at 9.
C_DEFINITION_START_DEPTH = 10


def definition_start_depth(spec, default: int) -> int:
    return C_DEFINITION_START_DEPTH if spec.resolver == "c" else default


JUMP_LINES = 3  # an unanchored cursor this far from the last request's has moved away
_LAST_LINE: dict = {}  # document -> cursor line of its last request (C/C++ only)
_LAST_LOCK = threading.Lock()


def unanchored_key(analysis, cursor_line: int, doc_key, anchor):
    """The anchor key `ranking.select_stable` files a selection under, for a cursor no
    definition encloses (`anchor` None): None keeps the last selection frozen (a
    half-typed line the parser cannot place yet). In C/C++ macro-laden code the
    grammar cannot read (`FMT_BEGIN_NAMESPACE`, `GLM_FUNC_QUALIFIER ...`) leaves whole
    regions without definitions: a cursor inside a namespace, or one that moved more
    than JUMP_LINES from the document's previous request, is not typing a half line
    and gets its own key (its line), so a fresh selection and no other place's."""
    if analysis.spec.resolver != "c":
        return anchor
    with _LAST_LOCK:
        last = _LAST_LINE.pop(doc_key, None)
        _LAST_LINE[doc_key] = cursor_line
        while len(_LAST_LINE) > 64:
            del _LAST_LINE[next(iter(_LAST_LINE))]
    if anchor is not None:
        return anchor
    jumped = last is not None and abs(cursor_line - last) > JUMP_LINES
    if jumped or any(it.kind in NAMESPACE_KINDS and it.start <= cursor_line <= it.end
                     for it in analysis.items):
        return ("line", cursor_line)
    return None


# Names the grammar takes from a macro-laden declaration it misreads: fmt's
# `#define FMT_STRING_IMPL(s, base, explicit)` is an entry named `struct`, and
# `FMT_MODULE_EXPORT_BEGIN` one named `enum`; every operator overload is named
# `operator`. Each keyword is "used" all over a C++ file, so these entries ranked among
# the first (96 points) and took 20-50 tokens each from the definitions that are used.
KEYWORDS = frozenset("""struct class union enum typename template namespace public private
    protected static const constexpr inline virtual override final operator return void
    auto extern volatile mutable explicit friend using typedef default delete new this
    if else for while do switch case break continue goto sizeof decltype noexcept""".split())
KEYWORD_FACTOR = 0.1


_KEYWORD_ITEMS = IdentityMemo(512, HEAVY_ITEMS_WEIGHT)  # items -> keyword-named indices


def _keyword_items(items: Sequence) -> frozenset[int]:
    """Indices of the entries named by a keyword (memoized per items tuple)."""
    hit = _KEYWORD_ITEMS.get(items)
    if hit is None:
        hit = _KEYWORD_ITEMS.put(items, frozenset(
            k for k, it in enumerate(items) if it.name in KEYWORDS))
    return hit


def keyword_names(cands: list, analysis, files: Sequence) -> list:
    """C/C++: entries named by a keyword rank at KEYWORD_FACTOR of their score (the
    same list, unwalked, when no file has such an entry: most have none)."""
    if analysis.spec.resolver != "c":
        return cands
    named = [_keyword_items(f.analysis.items) for f in files] + \
        [_keyword_items(analysis.items)]  # index -1: the current file
    if not any(named):
        return cands
    out = list(cands)
    for k, c in enumerate(cands):
        if c.item in named[c.file]:
            out[k] = c.rescored(c.score * KEYWORD_FACTOR)
    return out

