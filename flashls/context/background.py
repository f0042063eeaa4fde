"""Bringing a big document's tree and analysis up to date without holding the loop.

The first parse and the first full analysis of a big document cost hundreds of ms to
seconds. They run as a sequence of short steps (`preparation_steps`) that the server
interleaves with its other work; meanwhile requests for the document get the cursor
window only (`analysis_ready` says whether the full context can be had cheaply), and
once a version is analyzed every later one is an incremental update on the request.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Callable, Hashable, Iterator

from .analysis import analyze_steps, has_state
from .languages import LanguageSpec
from .symbols import node_queries_steps
from .syntax import REPARSE_SLICE_S, SLICE_S, ParsedDocument

EXTRACTION_QUERIES = ("definitions", "imports")  # what `analysis` matches per node


# a request holds the preparation back at most this long: one that waits longer is
# waiting on something else (the model, a debounce), not on the loop
HOLD_MAX_S = 0.5
HOLD_POLL_S = 0.001  # how often a held-back preparation looks again


class Foreground:
    """Requests being answered come before the background preparation.

    The server takes a hold when a request arrives and releases it once the request no
    longer needs the loop (its answer is sent, or its upstream call has left); a
    message still unread on the input counts too. Between two slices the preparation
    waits for its turn (`turn`), so a request's own steps are not each followed by a
    slice of background work (on the first completion after opening a big file, that
    was a third of the server's time). Holds expire after HOLD_MAX_S: a forgotten one
    delays the preparation, never stops it."""

    def __init__(self, max_hold_s: float = HOLD_MAX_S):
        self.max_hold_s = max_hold_s
        self.input_pending: Callable[[], bool] = lambda: False
        self._holds: dict[int, tuple[str, float]] = {}  # token -> (kind, expires at)
        self._tokens = itertools.count(1)
        self.waits = 0  # turns that had to wait (debugStats, tests)

    def hold(self, kind: str = "") -> int:
        token = next(self._tokens)
        self._holds[token] = (kind, time.monotonic() + self.max_hold_s)
        return token

    def release(self, token: int) -> None:
        self._holds.pop(token, None)

    def release_kind(self, kind: str, after_s: float = 0.0) -> None:
        """Every hold of this kind, `after_s` from now (an upstream call is on its
        way: the completion request behind it needs the loop only for its send)."""
        expires = time.monotonic() + after_s
        for token, (held, at) in list(self._holds.items()):
            if held == kind:
                self._holds[token] = (held, min(at, expires))

    def busy(self) -> bool:
        if self.input_pending():
            return True
        now = time.monotonic()
        for token, (_, expires) in list(self._holds.items()):
            if now >= expires:
                del self._holds[token]
        return bool(self._holds)

    async def turn(self) -> None:
        """Return when no request needs the loop (at once when none does)."""
        if not self.busy():
            return
        self.waits += 1
        while self.busy():
            await asyncio.sleep(HOLD_POLL_S)


def document_key(pdoc: ParsedDocument) -> Hashable:
    """The cache key of a document version's analysis."""
    text = pdoc.doc.text
    return (pdoc.doc.uri, pdoc.doc.version, len(text), hash(text))


def analysis_ready(pdoc: ParsedDocument) -> bool:
    """The full context costs no more than the edit since the last analyzed version:
    a small document, or a big one whose tree and some analyzed version exist."""
    if not pdoc.big:
        return True
    syntax = pdoc.syntax
    return syntax is not None and syntax.tree is not None and has_state(pdoc.doc.uri)


def needs_background(pdoc: ParsedDocument) -> bool:
    """A big document with no tree or no analyzed version yet. Later edits are not
    prepared in the background: work started on every keystroke would delay the
    request behind it (its debounce starts when it is handled), while the request
    does the edit's share inside its debounce wait, and a pause in the typing does it
    in the server's idle reparse."""
    return pdoc.parseable() and not analysis_ready(pdoc)


def query_steps(spec: LanguageSpec) -> Iterator[None]:
    """Compile the language's extraction queries (once per process), one part per
    step: each is a single call holding the GIL (TypeScript's definitions took
    50-140 ms in all), which used to land inside the first node's step."""
    for kind in EXTRACTION_QUERIES:
        yield
        yield from node_queries_steps(spec, kind)  # cached: free after the first time


def preparation_steps(pdoc: ParsedDocument, slice_s: float = SLICE_S) -> Iterator[None]:
    """Parse (if needed), then analyze the document as it is now, yielding every
    `slice_s` seconds. The document may change between steps: edits during the parse
    are replayed on its tree, and an analysis under way finishes on the version it
    began with (the next request updates it incrementally). Stops early when the text
    is replaced; the caller repeats while `needs_background` holds."""
    syntax = pdoc.syntax
    if syntax is None or not pdoc.parseable():
        return
    if syntax.tree is None:
        yield from syntax.parse_steps(pdoc.doc.source_bytes, slice_s)
        if syntax.tree is None:
            return
        yield
    if syntax.dirty:  # edits since: an incremental parse, also in slices
        yield from syntax.reparse_steps(pdoc.doc.source_bytes, max(slice_s, REPARSE_SLICE_S))
        if syntax.dirty:
            return
        yield
    doc = pdoc.doc
    if has_state(doc.uri):  # analyzed before: the next request updates it incrementally
        return
    yield from query_steps(syntax.spec)
    yield from analyze_steps(syntax.spec, doc.text, syntax.tree.copy(), document_key(pdoc),
                             doc.uri, slice_s)
