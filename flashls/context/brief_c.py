"""C/C++ brief forms: one line per declaration where the rest says little.

Beside a 1,100-token window the stable tier of a C/C++ request gets about 720 tokens,
and header libraries spend them badly in their shared brief form (measured on the dev
half of `benchmarks.real_context`):

* a namespace is a container every member needs (`outline.closure`), and its brief
  form was three lines (`namespace detail`, `{`, `} // namespace detail`): headers
  reopen `detail` a dozen times, so a request sent 10-15 of them at 11-15 tokens each.
  Its line naming it is enough (the members' indentation shows what is inside);
* a class or struct whose base clause runs over lines
  (`struct is_specialized : std::integral_constant<bool,` and three lines of `||`)
  cost 50-100 tokens; the lines above the one naming it (its `template <...>` line
  stays) and that line say what it is;
* a macro's continuation lines (`#define X(a) \\` and the body below) are its body;
* (session 8) a namespace's `{` on its naming line, and a function's lone `{` line
  below its signature (Allman style: cereal, rapidxml, glm), say nothing the
  indentation does not: 1-2 tokens per entry, with the comment prefix;
* (session 9) a one-line `template <...>` head above the line naming the entry: 12 %
  of the stable tier's tokens on the dev + tuning pool (`template <typename Char,
  typename InputIt, typename OutputIt>` is 15 tokens beside a 20-token signature),
  and the naming line's parameter types already show the template's parameter names.
  Without them about four more entries fit a request: C/C++ dev + tuning pool
  (`benchmarks.real_context_pool --tuning`, 720 tasks) 612 -> 617, no project lower
  (functions only: 615). A multi-line template head is kept (rare, and cut mid-list
  it would read as broken code).

`outline.build_items` calls `shorten` through one hook line; the full form (code
actions) is unchanged.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from .memo import LINE_MEMO_SIZE, word_char

NAMESPACE_KINDS = frozenset({"module"})
ONE_LINE_KINDS = frozenset({"class", "struct", "enum", "macro", "type", "union"})
FUNCTION_KINDS = frozenset({"function", "method"})
_TEMPLATE = re.compile(r"^\s*template\s*<")
_TEMPLATE_HEAD = re.compile(r"^\s*template\s*<.*>\s*$")  # a whole `template <...>` line


def _names(line: str, name: str) -> bool:
    """Whether `name` stands in `line` as a whole word (not inside a longer one)."""
    at = line.find(name)
    while at >= 0:
        end = at + len(name)
        if (at == 0 or not word_char(line[at - 1])) and \
                (end == len(line) or not word_char(line[end])):
            return True
        at = line.find(name, at + 1)
    return False


def _naming_line(name: str, head: Sequence[str]) -> int | None:
    # a substring search, not a pattern compiled per name: `build_items` asks for
    # every entry of every node extracted, more names than `re`'s cache holds
    if not name:
        return None
    return next((i for i, line in enumerate(head) if _names(line, name)), None)


def shorten(resolver: str, kind: str, name: str, head: Sequence[str], tail: Sequence[str]
            ) -> tuple[list[str], list[str]]:
    """The C/C++ brief form of one entry (`head`, `tail`: the shared brief form);
    unchanged for the other languages and where no line names the entry. Remembered
    per entry text: an edit rebuilds every member of the long node it is in (a C++
    namespace or class), and all but one are as before."""
    if resolver != "c":
        return list(head), list(tail)
    short_head, short_tail = _shorten_c(kind, name, tuple(head), tuple(tail))
    return list(short_head), list(short_tail)


@lru_cache(maxsize=LINE_MEMO_SIZE)
def _shorten_c(kind: str, name: str, head: tuple[str, ...], tail: tuple[str, ...]
               ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    out_head, out_tail = _shortened(kind, name, list(head), list(tail))
    return tuple(out_head), tuple(out_tail)


def _shortened(kind: str, name: str, head: list[str], tail: list[str]
               ) -> tuple[list[str], list[str]]:
    at = _naming_line(name, head)
    if at is None:
        return head, tail
    if kind in NAMESPACE_KINDS:
        line = head[at].rstrip()
        return [line[:-1].rstrip() if line.endswith("{") and line[:-1].strip() else line], []
    if at > 0:
        kept = [line for line in head[:at] if not _TEMPLATE_HEAD.match(line)]
        head, at = kept + head[at:], len(kept)
    if kind in FUNCTION_KINDS and at < len(head) - 1 and head[-1].strip() == "{":
        return head[:-1], tail
    if kind in ONE_LINE_KINDS and at < len(head) - 1:
        kept = [line for line in head[:at] if _TEMPLATE.match(line)]
        return kept + [head[at]], tail
    return head, tail
