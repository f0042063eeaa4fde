"""Bringing a big document's tree and analysis up to date without holding the loop.

The first parse and the first full analysis of a big document cost hundreds of ms to
seconds. They run as a sequence of short steps (`preparation_steps`) that the server
interleaves with its other work; meanwhile requests for the document get the cursor
window only (`analysis_ready` says whether the full context can be had cheaply), and
once a version is analyzed every later one is an incremental update on the request
(`current_analysis`, for every kind of request).

Neighbor files (imports read from disk, other open buffers) follow the same rule in
the server: what a request cannot afford to analyze on the spot (`SpotBudget`) is
queued (`NEIGHBORS`) and analyzed in steps between requests.
"""

from __future__ import annotations

from typing import Callable, Hashable, Iterator

from .analysis import Analysis, analyze, analyze_steps, cached, file_steps, has_state
from .document import parse_bytes
from .languages import LanguageSpec
from .symbols import node_queries_steps
from .syntax import REPARSE_SLICE_S, SLICE_S, ParsedDocument, SyntaxState

EXTRACTION_QUERIES = ("definitions", "imports")  # what `analysis` matches per node
# documents analyzed in the background whose ranking tables are still being built
# (`first_tables`): until they are, requests get the window only, as during the analysis
_TABLES_PENDING: set[Hashable] = set()


def document_key(pdoc: ParsedDocument) -> Hashable:
    """The cache key of a document version's analysis. The text's serial names its
    content (a new one per change, `Document.serial`): hashing 2 MB cost 1-2.5 ms
    per keystroke."""
    doc = pdoc.doc
    return (doc.uri, doc.version, len(doc.text), doc.serial)


def analysis_ready(pdoc: ParsedDocument) -> bool:
    """The full context costs no more than the edit since the last analyzed version:
    a small document, or a big one whose tree and some analyzed version exist (and
    whose first ranking tables are built, `first_tables`)."""
    if not pdoc.big:
        return True
    syntax = pdoc.syntax
    uri = pdoc.doc.uri
    return syntax is not None and syntax.tree is not None and has_state(uri) and \
        uri not in _TABLES_PENDING


def current_analysis(pdoc: ParsedDocument) -> Analysis | None:
    """The analysis of the document as it is now, when it costs no more than the edit
    since the last analyzed version (incremental, per document); None while a big
    document is still being prepared, or without a grammar. Every request on an open
    document (completions, code actions, next edits) takes its analysis from here: a
    full analysis of a big document on the spot would hold the loop for seconds."""
    from .local_parse import current_analysis as region_or_whole  # it imports this module
    return region_or_whole(pdoc)  # a big document's edit is parsed on its own


def needs_background(pdoc: ParsedDocument) -> bool:
    """A big document with no tree or no analyzed version yet. Later edits are not
    prepared in the background: work started on every keystroke would delay the
    request behind it (its debounce starts when it is handled), while the request
    does the edit's share inside its debounce wait, and a pause in the typing does it
    in the server's idle reparse."""
    return pdoc.parseable() and not analysis_ready(pdoc)


def idle_reparse_wanted(pdoc: ParsedDocument) -> bool:
    """A pause in the typing on a big, prepared document whose whole tree is stale:
    its reparse goes in slices (`idle_reparse_steps`), not in one call."""
    syntax = pdoc.syntax
    return (pdoc.big and pdoc.parseable() and syntax is not None and syntax.dirty
            and syntax.tree is not None and analysis_ready(pdoc))


def idle_reparse_steps(pdoc: ParsedDocument,
                       slice_s: float = REPARSE_SLICE_S) -> Iterator[None]:
    """The whole tree's incremental reparse after the typing paused, yielding every
    `slice_s`: in one call it held the loop for the whole reparse (tens of ms on a
    2 MB file when tree-sitter recovers from a half-typed line), and a request that
    arrived meanwhile waited for it. A request between two slices finishes the
    halted parse itself (`SyntaxState._resume`); an edit meanwhile ends it (the next
    pause starts over)."""
    if not idle_reparse_wanted(pdoc):
        return
    yield from pdoc.syntax.reparse_steps(pdoc.doc.source_bytes, slice_s)


def query_steps(spec: LanguageSpec) -> Iterator[None]:
    """Compile the language's extraction queries (once per process), one part per
    step: each is a single call holding the GIL (TypeScript's definitions took
    50-140 ms in all), which used to land inside the first node's step."""
    for kind in EXTRACTION_QUERIES:
        yield
        yield from node_queries_steps(spec, kind)  # cached: free after the first time
    from .first_tables import cursor_query_steps  # it imports the ranking, which imports
    yield from cursor_query_steps(spec)  # this module


def preparation_steps(pdoc: ParsedDocument, slice_s: float = SLICE_S) -> Iterator[None]:
    """Parse (if needed), then analyze the document as it is now and build the
    ranking's first tables from that analysis, yielding every `slice_s` seconds. The
    document may change between steps: edits during the parse are replayed on its tree, and an analysis under way finishes on the version it
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
    from .first_tables import table_steps  # (see `query_steps`)
    _TABLES_PENDING.add(doc.uri)
    try:
        yield from query_steps(syntax.spec)
        analyzed = yield from analyze_steps(syntax.spec, doc.text, syntax.tree.copy(),
                                            document_key(pdoc), doc.uri, slice_s)
        yield
        # the tables the first full-context request would build in one call (a later
        # version's request shares every unchanged node's entry)
        yield from table_steps(analyzed, slice_s)
    finally:  # done, failed or abandoned: the document is ready either way
        _TABLES_PENDING.discard(doc.uri)


# -- neighbor files ------------------------------------------------------------------
# neighbor text (imports read from disk, other open buffers) one request may analyze on
# the spot, in all (cold analysis costs about 1 ms per 1,000 bytes); the rest is
# analyzed in the background and joins the context from a later request on
NEIGHBOR_SPOT_BYTES = 48_000
NEIGHBOR_QUEUE_MAX = 64


class NeighborQueue:
    """Neighbor analyses left for the background, oldest first (bounded). Passive:
    `on_added` (set by the server) is told when work arrives; the server runs each
    entry's `file_analysis_steps` between its requests."""

    def __init__(self) -> None:
        self.pending: dict[Hashable, tuple[LanguageSpec, str]] = {}
        self.on_added: Callable[[], None] = _nothing

    def add(self, spec: LanguageSpec, text: str, key: Hashable) -> None:
        if key in self.pending:
            return
        self.pending[key] = (spec, text)
        while len(self.pending) > NEIGHBOR_QUEUE_MAX:
            del self.pending[next(iter(self.pending))]
        self.on_added()

    def next_steps(self) -> Iterator[None] | None:
        """The steps of the oldest entry not analyzed meanwhile; None when empty."""
        while self.pending:
            key = next(iter(self.pending))
            spec, text = self.pending.pop(key)
            if cached(spec, key) is None:
                return file_analysis_steps(spec, text, key)
        return None


def _nothing() -> None:
    return None


NEIGHBORS = NeighborQueue()  # one per process: the server's loop runs it


def file_analysis_steps(spec: LanguageSpec, text: str, key: Hashable,
                        slice_s: float = SLICE_S) -> Iterator[None]:
    """Parse (in slices) and analyze (in slices) a neighbor file into the cache that
    `analyze(spec, text, key)` reads."""
    syntax = SyntaxState(spec, spec.parser())
    yield from syntax.parse_steps(parse_bytes(text), slice_s)
    if syntax.tree is None:
        return
    yield
    yield from file_steps(spec, text, syntax.tree, key, slice_s)


class SpotBudget:
    """One request's allowance of neighbor analysis on the spot (`neighbor_files` in
    the server): a cached analysis is free, a small file is analyzed now while the
    allowance lasts, anything else is queued for the background and skipped."""

    def __init__(self, allowance: int = NEIGHBOR_SPOT_BYTES,
                 queue: NeighborQueue | None = None):
        self.left = allowance
        self.queue = queue or NEIGHBORS
        self.deferred = 0

    def analysis(self, spec: LanguageSpec, text: str, key: Hashable) -> Analysis | None:
        hit = cached(spec, key)
        if hit is not None:
            return hit
        if len(text) <= self.left:
            self.left -= len(text)
            return analyze(spec, text, key)
        self.deferred += 1
        self.queue.add(spec, text, key)
        return None
