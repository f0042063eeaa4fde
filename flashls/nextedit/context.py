"""Related signatures for a next edit: what the region calls from imported files.

From the context engine: the workspace files the document imports (open buffers win
over disk; never a file outside the workspace or excluded by it), and of those the
outline entries whose names the editable region uses, within a token budget. They go
first in the prompt, so their bytes stay the same while the user works in one place.
Best effort: any failure leaves them out.
"""

from __future__ import annotations

import logging
import os
from typing import Mapping

from ..context.analysis import analyze
from ..context.neighbors import candidate_order, neighbor_files, plan, usage_distances
from ..context.syntax import ParsedDocument
from ..context.workspace import Workspace, path_from_uri

log = logging.getLogger(__name__)

SIGNATURE_TOKENS = 800


def related_signatures(pdoc: ParsedDocument, first: int, last: int,
                       workspace: Workspace | None, open_docs: Mapping[str, ParsedDocument],
                       budget: int = SIGNATURE_TOKENS) -> tuple[tuple[str, str], ...]:
    """(file, signatures) for names used on lines first..last of `pdoc`."""
    if workspace is None or pdoc.spec is None:
        return ()
    try:
        return _signatures(pdoc, first, last, workspace, open_docs, budget)
    except Exception as err:  # context is a nicety, never a failure
        log.info("no related signatures for %s: %s", pdoc.doc.uri, err)
        return ()


def _signatures(pdoc: ParsedDocument, first: int, last: int, workspace: Workspace,
                open_docs: Mapping[str, ParsedDocument], budget: int
                ) -> tuple[tuple[str, str], ...]:
    doc = pdoc.doc
    path = path_from_uri(doc.uri)
    if not os.path.isabs(path) or not workspace.contains(path):
        return ()
    tree = pdoc.tree()
    if tree is None:
        return ()
    analysis = analyze(pdoc.spec, doc.text, (doc.uri, doc.version, len(doc.text),
                                             hash(doc.text)), tree=tree, current=True,
                       state_key=doc.uri)
    open_by_path = {os.path.realpath(path_from_uri(u)): p for u, p in open_docs.items()}
    files = neighbor_files(analysis.spec, path, analysis, workspace, open_by_path)
    if not files:
        return ()
    names = {it.name for f in files for it in f.analysis.items if it.name}
    used = usage_distances(list(analysis.lines[first:last + 1]), 0, names, frozenset())
    if not used:
        return ()
    order = [(f, i) for f, i in candidate_order(files, used)
             if files[f].analysis.items[i].name in used]
    chosen = plan(files, order, budget)
    return tuple((file.source, text) for file, text in
                 sorted(chosen.texts(), key=lambda ft: ft[0].source))
