"""Related signatures for a next edit: what the region calls from imported files.

From the context engine: the workspace files the document imports (open buffers win
over disk; never a file outside the workspace or excluded by it), and of those the
outline entries whose names the editable region uses, within a token budget. They go
first in the prompt, so their bytes stay the same while the user works in one place.
Best effort: any failure leaves them out.
"""

from __future__ import annotations

import logging
from typing import Mapping

from ..context.background import current_analysis
from ..context.neighbors import signatures_used_on
from ..context.syntax import ParsedDocument
from ..context.workspace import Workspace

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
    analysis = current_analysis(pdoc)  # None while a big document is prepared
    if analysis is None:
        return ()
    return signatures_used_on(pdoc, analysis, first, last, workspace, open_docs, budget)
