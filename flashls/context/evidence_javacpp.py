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
76.0 → 78.0 %. `ranking.rank` calls `revise` through one hook line.
"""

from __future__ import annotations

from typing import Sequence

from .evidence_lang import common_pass

COMMON_PASS = frozenset({"java", "c"})  # LanguageSpec.resolver values


def revise(resolver: str, analysis, files: Sequence, ev, cands: list, cursor_line: int
           ) -> list:
    """The candidates revised for Java and C/C++ (the same list for other languages)."""
    if resolver not in COMMON_PASS:
        return cands
    return common_pass(cands, analysis, files, ev, cursor_line)
