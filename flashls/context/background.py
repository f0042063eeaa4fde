"""Bringing a big document's tree and analysis up to date without holding the loop.

The first parse and the first full analysis of a big document cost hundreds of ms to
seconds. They run as a sequence of short steps (`preparation_steps`) that the server
interleaves with its other work; meanwhile requests for the document get the cursor
window only (`analysis_ready` says whether the full context can be had cheaply), and
once a version is analyzed every later one is an incremental update on the request.
"""

from __future__ import annotations

from typing import Hashable, Iterator

from .analysis import analyze_steps, has_state
from .syntax import REPARSE_SLICE_S, SLICE_S, ParsedDocument


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
    yield from analyze_steps(syntax.spec, doc.text, syntax.tree.copy(), document_key(pdoc),
                             doc.uri, slice_s)
