"""Signature outlines: a file's imports and definitions with bodies elided.

A file becomes a list of `Item`s (one per import statement, definition header, class
member) that can be selected independently and rendered in file order. The same items
serve Tier 2 (the current file's outline) and Tier 3 (neighbor files' signatures).

Rendering rules, per definition:
* one-line definitions are shown as they are;
* definitions without a body (types, constants, prototypes) are shown whole, up to
  `MAX_FULL_LINES` lines;
* containers (classes, impls, traits, namespaces) show their header, their selected
  members, then their closing line;
* functions show their signature lines, their docstring's first line, an elision
  comment in the language's syntax, and their closing line (brace languages).
"""

from __future__ import annotations

import bisect
import re
import threading
from functools import lru_cache
from typing import Iterable, Iterator, NamedTuple, Sequence

from cachetools import LRUCache

from .brief_c import shorten as shorten_c
from .brief_lang import language_brief
from .languages import LanguageSpec
from .memo import CHUNK_MEMO_SIZE
from .secrets import redact
from .symbols import Definition, ImportRef
from .tokens import estimate_tokens

MAX_FULL_LINES = 10  # a body-less definition longer than this is cut with an elision
MAX_HEADER_LINES = 8
MAX_BRIEF_HEADER_LINES = 4  # brief form of a long signature: its first 3 lines, elided
MAX_BRIEF_BODY_LINES = 4  # a body-less definition's brief form keeps 3 lines and an elision
MIN_ENTRY_TOKENS = 2  # no entry is cheaper: selection stops when less is left
MAX_MISSES = 48  # ...or after this many entries in a row did not fit  # a signature longer than this keeps its first lines only
TRANSPARENT_KINDS = frozenset({"module"})  # namespaces don't count as a nesting level
CONTAINER_KINDS = frozenset({"class", "interface", "trait", "impl", "module", "struct",
                             "enum"})
_CLOSING = re.compile(r"^\s*[\]\)\}]+[;,]?\s*(//.*|/\*.*)?$")


class Item(NamedTuple):
    """One selectable piece of an outline (a NamedTuple: built by the thousand)."""

    name: str  # symbol name ("" for imports)
    kind: str  # definition kind, or "import"
    level: int  # 0 import, 1 top-level definition, 2 member of a container
    start: int  # first source line shown (file order)
    end: int  # last source line of the definition (or import)
    lines: tuple[str, ...]  # rendered lines before any members
    tail: tuple[str, ...]  # rendered after the members (a container's closing line)
    parent: int  # index of the container item (absolute), -1 if none
    tokens: int  # estimated cost of lines + tail
    # the brief form the completion context sends: (lines, tail, tokens) without the
    # docstring and the elision lines (see `_brief`)
    brief: tuple[tuple[str, ...], tuple[str, ...], int] = ((), (), 0)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _elision(spec: LanguageSpec, indent: str) -> str:
    return f"{indent}{spec.line_comment} ..."


def _body_indent(d: Definition, lines: tuple[str, ...]) -> str:
    for row in range(d.header_end + 1, min(d.end + 1, d.header_end + 6, len(lines))):
        if lines[row].strip():
            ind = _indent(lines[row])
            if len(ind) > len(_indent(lines[d.start])):
                return ind
            break
    head = _indent(lines[min(d.header_end, len(lines) - 1)])
    return head + ("\t" if head.startswith("\t") else "    ")


def _closing(d: Definition, lines: tuple[str, ...]) -> tuple[str, ...]:
    if d.end > d.header_end and d.end < len(lines) and _CLOSING.match(lines[d.end]):
        return (lines[d.end],)
    return ()


def _header(spec: LanguageSpec, d: Definition, lines: tuple[str, ...]) -> list[str]:
    """Signature lines (decorators/attributes included), capped, plus the docstring."""
    last = min(d.header_end, len(lines) - 1)
    head = list(lines[d.start:last + 1])
    if len(head) > MAX_HEADER_LINES:
        head = head[:MAX_HEADER_LINES - 1] + [_elision(spec, _indent(head[-1]) or "    ")]
    if d.doc is not None:
        if d.doc_line < d.start:
            head.insert(0, d.doc)
        elif d.doc_line > last:
            head.append(d.doc)
    return head


def _render(spec: LanguageSpec, d: Definition, lines: tuple[str, ...], container: bool
            ) -> tuple[list[str], list[str]]:
    if d.start == d.end:
        return _header(spec, d, lines), []
    if not d.has_body:
        body = list(lines[d.start:d.end + 1])
        if len(body) > MAX_FULL_LINES:
            closing = list(_closing(d, lines))
            body = body[:MAX_FULL_LINES - 1 - len(closing)] + \
                [_elision(spec, _body_indent(d, lines))] + closing
        if d.doc is not None and d.doc_line < d.start:
            body.insert(0, d.doc)
        return body, []
    head = _header(spec, d, lines)
    if container:
        return head, [_elision(spec, _body_indent(d, lines))] + list(_closing(d, lines))
    if d.end > d.header_end:
        head.append(_elision(spec, _body_indent(d, lines)))
    return head + list(_closing(d, lines)), []


def _brief(spec: LanguageSpec, d: Definition, lines: tuple[str, ...], container: bool,
           head: list[str], tail: list[str]) -> tuple[list[str], list[str]]:
    """The signature lines alone: no docstring, no body elision, and a function's
    closing line dropped with its body. A docstring's first line and the elisions cost
    about as much as the signature itself; without them about twice as many
    definitions fit the completion's budget (`benchmarks.real_context`)."""
    if d.doc is not None and d.doc in head:
        if d.doc_line < d.start:
            at = head.index(d.doc)
        else:
            at = len(head) - 1 - head[::-1].index(d.doc)
        head = head[:at] + head[at + 1:]
    elision = f"{spec.line_comment} ..."
    head = language_brief(spec.resolver, d.name, head, elision)  # Java, Go: brief_lang.py
    if not d.has_body and len(head) > MAX_BRIEF_BODY_LINES:
        # a long constant or type alias: its name and first lines say what it is (and
        # its last line, where a C `typedef struct {...} Name;` names it)
        kept = head[:MAX_BRIEF_BODY_LINES - 1]
        at = next((i for i, line in enumerate(head) if d.name in line), len(head) - 1)
        if len(kept) <= at < len(head) - 1:  # below attributes: `#[derive(..)] .. pub enum E {`
            kept.append(head[at])
        named = any(d.name in line for line in kept)
        head = kept + [_elision(spec, _body_indent(d, lines))] + ([] if named else head[-1:])
    if not d.has_body or d.start == d.end:
        return head, tail
    while len(head) > 1 and head[-1].strip().startswith(spec.line_comment) and \
            head[-1].strip() != elision:
        head = head[:-1]  # comments opening the body, read as part of the header
    # a long parameter list keeps its first lines (decorators above the name are free)
    keep = next((i for i, line in enumerate(head) if d.name and d.name in line), 0) + \
        MAX_BRIEF_HEADER_LINES - 1
    if len(head) > keep + 1:
        head = head[:keep] + [_elision(spec, _body_indent(d, lines))]
    if container:
        return head, [line for line in tail if line.strip() != elision]
    closing = _closing(d, lines)
    if closing and d.end > d.header_end and head and head[-1] == closing[0]:
        head = head[:-1]
    if head and head[-1].strip() == elision:
        head = head[:-1]
    return head, tail


def build_items(spec: LanguageSpec, lines: Sequence[str], defs: Sequence[Definition],
                imports: Sequence[ImportRef]) -> tuple[Item, ...]:
    """All outline items of a file (or chunk), in file order."""
    items: list[Item] = []
    seen_imports: set[tuple[int, int]] = set()
    for imp in imports:
        span = (imp.start, imp.end)
        if span in seen_imports or imp.start >= len(lines) or \
                lines[imp.start][:1] in (" ", "\t"):
            continue  # function-local imports are not part of the outline
        seen_imports.add(span)
        shown, cost = _finish(tuple(lines[imp.start:imp.end + 1]))
        items.append(Item("", "import", 0, imp.start, imp.end, shown, (), -1, cost,
                          (shown, (), cost)))
    import_lines = {i for imp in imports for i in range(imp.start, imp.end + 1)}

    # levels: top-level definitions 1, members of a container 2 (namespaces are
    # transparent); nested functions and anything deeper are left out
    level_of: dict[int, int] = {}
    has_members: set[int] = set()
    for index, d in enumerate(defs):
        if d.start in import_lines:
            continue
        if d.parent == -1:
            level_of[index] = 1
            continue
        p = defs[d.parent]
        if d.parent not in level_of or not p.has_body or p.kind not in CONTAINER_KINDS \
                or d.start <= p.header_end:  # a one-line container shows its members
            continue
        level = level_of[d.parent] + (0 if p.kind in TRANSPARENT_KINDS else 1)
        if level > 2:
            continue
        level_of[index] = level
        has_members.add(d.parent)
    item_of: dict[int, int] = {}
    for index, d in enumerate(defs):
        if index not in level_of:
            continue
        head_t, tail_t, cost, brief = _rendered(spec, d, lines, index in has_members)
        parent_item = -1
        p = d.parent
        while p != -1 and p not in item_of:
            p = defs[p].parent
        if p != -1:
            parent_item = item_of[p]
        item_of[index] = len(items)
        items.append(Item(d.name, d.kind, level_of[index], min(d.start, d.doc_line)
                          if d.doc_line != -1 else d.start, d.end, head_t, tail_t,
                          parent_item, cost, brief))
    return tuple(items)


# One definition's rendered forms, by what they are read from: a Java or C++ class is
# one top-level node, and all its members were rendered again whenever a line of it
# changed (the C/C++ brief form and the redaction per member). RENDER_ROWS: a body
# longer than this is read only at its first rows and its last line.
RENDER_MEMO_SIZE = 8192
RENDER_ROWS = 6
_RENDERED: LRUCache = LRUCache(maxsize=RENDER_MEMO_SIZE)
_RENDERED_LOCK = threading.Lock()


def _render_key(spec: LanguageSpec, d: Definition, lines: Sequence[str], container: bool
                ) -> tuple:
    """Everything `_render`, `_brief` and `shorten_c` read for `d`, rows relative to
    its start: the header rows and the few below it (`_body_indent`), the last line
    (`_closing`); a body-less definition or a short one whole. A slice past the end of
    `lines` is shorter, so where the file ends is in the key as well."""
    start, header_end, end = d.start, d.header_end, d.end
    if not d.has_body or end <= header_end + RENDER_ROWS:
        view = tuple(lines[start:max(end, header_end) + 1])
        last = None
    else:
        view = tuple(lines[start:header_end + RENDER_ROWS])
        last = lines[end] if end < len(lines) else None
    return (spec.name, spec.resolver, spec.line_comment, container, d.name, d.kind,
            d.has_body, d.doc, d.doc_line - start if d.doc_line != -1 else None,
            header_end - start, end - start, view, last)


def _rendered(spec: LanguageSpec, d: Definition, lines: Sequence[str], container: bool
              ) -> tuple[tuple[str, ...], tuple[str, ...], int, tuple]:
    """`d`'s redacted lines, tail, their cost and its brief form (memoized by
    `_render_key`)."""
    key = _render_key(spec, d, lines, container)
    with _RENDERED_LOCK:
        hit = _RENDERED.get(key)
    if hit is not None:
        return hit
    head, tail = _render(spec, d, lines, container)
    head_t, head_cost = _finish(tuple(head))
    tail_t, tail_cost = _finish(tuple(tail))
    # from the redacted lines: the brief form only leaves lines out (or adds an
    # elision), so it needs no redaction of its own
    short_head, short_tail = _brief(spec, d, lines, container, list(head_t), list(tail_t))
    short_head, short_tail = shorten_c(spec.resolver, d.kind, d.name, short_head, short_tail)
    if short_head == list(head_t) and short_tail == list(tail_t):
        brief = (head_t, tail_t, head_cost + tail_cost)
    else:
        brief = (tuple(short_head), tuple(short_tail),
                 _cost(tuple(short_head)) + _cost(tuple(short_tail)))
    out = (head_t, tail_t, head_cost + tail_cost, brief)
    with _RENDERED_LOCK:
        _RENDERED[key] = out
    return out


@lru_cache(maxsize=CHUNK_MEMO_SIZE)
def _cost(lines: tuple[str, ...]) -> int:
    """A brief form's cost (memoized like `_finish`: a Java or C++ class is one node,
    whose every member is built again when a line of it changes)."""
    return estimate_tokens("".join(line + "\n" for line in lines)) if lines else 0


@lru_cache(maxsize=CHUNK_MEMO_SIZE)
def _finish(lines: tuple[str, ...]) -> tuple[tuple[str, ...], int]:
    """Redacted lines and their token cost (memoized: unchanged code costs nothing)."""
    if not lines:
        return (), 0
    # redact the lines together: a private key block spans lines
    shown = tuple(redact("\n".join(lines)).split("\n"))
    return shown, estimate_tokens("".join(line + "\n" for line in shown))


def render(items: tuple[Item, ...], selected: set[int], brief: bool = False) -> str:
    """The selected items in file order; members inside their container. `brief`:
    their brief forms (signature lines only, as the completion context sends them)."""
    out: list[str] = []
    children: dict[int, list[int]] = {}
    for index in sorted(selected):
        parent = items[index].parent
        if parent != -1:
            children.setdefault(parent, []).append(index)

    def emit(index: int) -> None:
        item = items[index]
        head, tail = (item.brief[0], item.brief[1]) if brief else (item.lines, item.tail)
        out.extend(head)
        for child in children.get(index, ()):
            emit(child)
        out.extend(tail)

    for index in sorted(selected, key=lambda i: (items[i].start, i)):
        if items[index].parent == -1 or items[index].parent not in selected:
            if items[index].parent != -1:
                continue  # a member without its container is never rendered
            emit(index)
    del emit  # it refers to itself: a cycle left for the collector (see gc_policy)
    return "".join(line + "\n" for line in out)


def closure(items: tuple[Item, ...], index: int, selected: set[int]) -> list[int]:
    """`index` plus the containers it needs that are not selected yet."""
    need = []
    while index != -1 and index not in selected:
        need.append(index)
        index = items[index].parent
    return need


def select(items: tuple[Item, ...], order: Iterable[int], budget: int,
           selected: set[int] | None = None) -> tuple[set[int], int]:
    """Greedily take items in `order` (with their containers) while they fit `budget`.
    An item that does not fit is skipped whole; smaller ones after it may still fit
    (until `MAX_MISSES` in a row did not)."""
    chosen: set[int] = set(selected or ())
    used = 0
    misses = 0
    for index in order:
        if budget - used < MIN_ENTRY_TOKENS or misses >= MAX_MISSES:
            break
        if index in chosen:
            continue
        item = items[index]
        if item.parent == -1 or item.parent in chosen:  # the common cases
            if used + item.tokens <= budget:
                chosen.add(index)
                used += item.tokens
                misses = 0
            else:
                misses += 1
            continue
        need = closure(items, index, chosen)
        if not need:
            continue
        cost = sum(items[i].tokens for i in need)
        if used + cost > budget:
            misses += 1
            continue
        chosen.update(need)
        used += cost
        misses = 0
    return chosen, used


_LEVELS: dict[int, tuple[tuple[Item, ...], list[tuple[list[int], list[int], list[int]]]]] = {}


def _levels(items: tuple[Item, ...]) -> list[tuple[list[int], list[int], list[int]]]:
    """Per level: item indices, their starts and their ends (ascending: items of one
    level are in file order and do not overlap). Memoized per items tuple."""
    hit = _LEVELS.get(id(items))
    if hit is not None and hit[0] is items:
        return hit[1]
    levels: list[tuple[list[int], list[int], list[int]]] = [([], [], []) for _ in range(3)]
    for index, item in enumerate(items):
        idx, starts, ends = levels[item.level if item.level < 2 else 2]
        idx.append(index)
        starts.append(item.start)
        ends.append(item.end)
    if len(_LEVELS) > 32:
        _LEVELS.clear()
    _LEVELS[id(items)] = (items, levels)
    return levels


def outline_levels(items: tuple[Item, ...]) -> list[tuple[list[int], list[int], list[int]]]:
    """`_levels` (public: the incremental analysis splices them between versions)."""
    return _levels(items)


def remember_levels(items: tuple[Item, ...],
                    levels: list[tuple[list[int], list[int], list[int]]], total: int) -> None:
    """Levels and total cost of `items`, computed elsewhere (equal to what `_levels` and
    `outline_demand` would compute)."""
    if len(_LEVELS) > 32:
        _LEVELS.clear()
    _LEVELS[id(items)] = (items, levels)
    if len(_TOTALS) > 32:
        _TOTALS.clear()
    _TOTALS[id(items)] = (items, total)


def outline_order(items: tuple[Item, ...], window: tuple[int, int]) -> Iterator[int]:
    """Tier 2 priority: imports, then top-level signatures, then members, each nearest
    to the window first (ties: the one above). Items the window already shows are left
    out. Lazy: selection usually stops long before the end of a large file."""
    lo, hi = window
    for idx, starts, ends in _levels(items):
        first_inside = bisect.bisect_left(ends, lo)  # ends >= lo from here
        first_below = bisect.bisect_right(starts, hi)  # starts > hi from here
        for k in range(first_inside, max(first_inside, first_below)):
            item = items[idx[k]]
            if lo <= item.start and item.end <= hi:
                continue  # wholly inside the window
            if item.kind not in CONTAINER_KINDS and item.start <= hi and item.end >= lo:
                continue  # overlaps the window, which shows (or heads) it already; its
                #           docstring may be what is being typed (a prefix-cache killer)
            if item.kind == "import" and lo <= item.start <= hi:
                continue
            yield idx[k]
        a, b = min(first_inside, first_below) - 1, max(first_inside, first_below)
        n = len(idx)
        while a >= 0 or b < n:
            if b >= n or (a >= 0 and lo - ends[a] <= starts[b] - hi):
                yield idx[a]
                a -= 1
            else:
                yield idx[b]
                b += 1


def outline_demand(items: tuple[Item, ...], window: tuple[int, int]) -> int:
    """Cost of every item the window does not already show."""
    total = _TOTALS.get(id(items))
    if total is None or total[0] is not items:
        total = (items, sum(it.tokens for it in items))
        if len(_TOTALS) > 32:
            _TOTALS.clear()
        _TOTALS[id(items)] = total
    lo, hi = window
    inside = 0
    for idx, starts, ends in _levels(items):
        for k in range(bisect.bisect_left(starts, lo), bisect.bisect_right(starts, hi)):
            item = items[idx[k]]
            if item.end <= hi:
                inside += item.tokens
    return total[1] - inside


_TOTALS: dict[int, tuple[tuple[Item, ...], int]] = {}
