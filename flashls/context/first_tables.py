"""The ranking's first tables of a big document, built as its preparation's last steps.

The first full-context request after a preparation used to build them in one call:
every node's attribute map (`evidence._node_attributes`: the `q.name` qualifiers and
declared receivers of each line), the file's whole entry cost (`ranking._items_cost`)
and the cursor queries' compilation (`symbols._with_body`) — 250-700 ms holding the
loop on `lib.dom.d.ts` and the 15,000-line file. Here the same tables are computed in
slices of a few ms (a huge node's rows in chunks) and handed to the memos those
functions read, so the first request finds them, exactly as it would have computed
them. The memos are the owning modules' own; this module only fills them.
"""

from __future__ import annotations

import time
from typing import Generator, Iterator, Sequence

from . import ranking
from .evidence import (attributes_result, collect_attributes,
                       remember_node_attributes)
from .evidence_java import receiver_dialect
from .languages import LanguageSpec
from .neighbors import entry_cost

ROWS_PER_LOOK = 32  # rows (or items) between two looks at the clock
CURSOR_QUERIES = ("definitions", "scopes")  # what `symbols.enclosing_scopes` compiles


def cursor_query_steps(spec: LanguageSpec) -> Iterator[None]:
    """Compile the cursor queries (once per process: 25-45 ms each for TypeScript),
    one per step."""
    from .symbols import _with_body  # the memo `enclosing_scopes` reads
    for kind in CURSOR_QUERIES:
        yield
        _with_body(spec, kind)


def table_steps(analysis, slice_s: float) -> Iterator[None]:
    """Every table the first full-context request on `analysis` would build, in
    slices of about `slice_s` seconds."""
    yield from _items_cost_steps(analysis.items, slice_s)
    yield from node_attributes_steps(analysis, slice_s)


def _items_cost_steps(items: Sequence, slice_s: float) -> Iterator[None]:
    """`ranking._items_cost(items, True)` (the demand `choose` reports) in slices."""
    cost = 0
    deadline = time.perf_counter() + slice_s
    for start in range(0, len(items), ROWS_PER_LOOK):
        cost += sum(entry_cost(it) for it in items[start:start + ROWS_PER_LOOK])
        if time.perf_counter() > deadline:
            yield
            deadline = time.perf_counter() + slice_s
    ranking._remember_cost(items, True, cost)


def node_attributes_steps(analysis, slice_s: float) -> Iterator[None]:
    """`evidence._node_attributes` of every top-level node, in slices; the results
    join the evidence memo together at the end (a request in between replaces that
    memo with the entries it used)."""
    lines = analysis.lines
    go = receiver_dialect(analysis.spec.resolver)
    found: dict[int, tuple[object, tuple]] = {}
    clock = [time.perf_counter() + slice_s]
    for first, last, _, idents in analysis.usages:
        result = yield from _attributes_steps(lines, first, last, go, clock, slice_s)
        found[id(idents)] = (idents, result)
    remember_node_attributes(found)


def _attributes_steps(lines: Sequence[str], first: int, last: int, go, clock: list[float],
                      slice_s: float) -> Generator[None, None, tuple]:
    """One node's (name -> qualifiers, receivers), as `evidence._node_attributes`
    computes it, yielding between chunks of rows when the slice is over."""
    names: dict[str, set[str]] = {}
    typed: list[tuple[int, str, str]] = []
    end = min(last, len(lines) - 1) + 1
    for start in range(first, end, ROWS_PER_LOOK):
        collect_attributes(lines, first, start, min(start + ROWS_PER_LOOK, end), go,
                           names, typed)
        if time.perf_counter() > clock[0]:
            yield
            clock[0] = time.perf_counter() + slice_s
    return attributes_result(names, typed)
