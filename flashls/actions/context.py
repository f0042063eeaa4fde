"""What a code action shows the model besides the selection.

Built from the context engine (`flashls.context`):

* scope: the smallest outline definition that strictly contains the selection, with
  the selection replaced by a marker (it is sent separately, once); when there is
  none or it is too large, the lines around the selection;
* outline: the same-file outline (imports, signatures, bodies elided) minus what the
  scope already shows, nearest first, within a token budget;
* signatures: outline entries of imported workspace files for the names the
  selection uses (needs a `Workspace`: only files inside it, never excluded ones).

Everything but the selection is redacted (the engine's outline and signatures are
already). The selection is sent as written: replacing a secret in it with a marker
would write the marker into the file. Context is best effort: a failure in the
engine leaves that part out and never fails the action.
"""

from __future__ import annotations

import bisect
import logging
from dataclasses import dataclass, field
from typing import Mapping

from ..context.analysis import Analysis
from ..context.background import current_analysis
from ..context.neighbors import signatures_used_on
from ..context.outline import outline_order, render, select
from ..context.secrets import redact
from ..context.symbols import split_lines
from ..context.syntax import ParsedDocument
from ..context.tokens import estimate_tokens
from ..context.workspace import Workspace

log = logging.getLogger(__name__)

MARKER = "<<<SELECTION>>>"
OUTLINE_TOKENS = 1200
SIGNATURE_TOKENS = 1000
SCOPE_TOKENS = 3000
WINDOW_LINES = 40  # each side of the selection, when there is no usable scope


@dataclass(frozen=True)
class ActionContext:
    path: str
    language: str  # for the Markdown fences
    outline: str  # "" when the file has no grammar or nothing outside the scope
    scope: str  # text around the selection, the selection itself replaced by MARKER
    scope_label: str  # what `scope` is, for the prompt
    signatures: tuple[tuple[str, str], ...] = field(default=())  # (file, text)


def _analysis(pdoc: ParsedDocument) -> Analysis | None:
    """The document's analysis when ready (a big one being prepared: none yet, the
    action gets its region without the outline rather than seconds of analysis)."""
    try:
        return current_analysis(pdoc)
    except Exception as err:  # best effort
        log.info("no outline for %s: %s", pdoc.doc.uri, err)
        return None


def _enclosing(analysis: Analysis | None, first: int, last: int
               ) -> tuple[int, int, str] | None:
    """(start, end, label) of the smallest definition strictly containing the lines."""
    if analysis is None:
        return None
    best = None
    for item in analysis.items:
        if item.kind == "import" or item.end <= item.start:
            continue
        if item.start <= first and item.end >= last and (item.start, item.end) != (first, last):
            if best is None or item.end - item.start < best.end - best.start:
                best = item
    if best is None:
        return None
    return best.start, best.end, f"the enclosing {best.kind} `{best.name}`"


def gather(pdoc: ParsedDocument, start: int, end: int, path: str, *,
           workspace: Workspace | None = None,
           open_docs: Mapping[str, ParsedDocument] = {},
           outline_tokens: int = OUTLINE_TOKENS, signature_tokens: int = SIGNATURE_TOKENS,
           scope_tokens: int = SCOPE_TOKENS) -> ActionContext:
    """The context for an action on `pdoc.doc.text[start:end]`."""
    doc = pdoc.doc
    text = doc.text
    starts = doc.starts
    spec = pdoc.spec
    language = spec.name if spec else (doc.language_id or "")
    first = bisect.bisect_right(starts, start) - 1
    last = bisect.bisect_right(starts, max(start, end - 1)) - 1
    analysis = _analysis(pdoc)
    lines = list(analysis.lines) if analysis is not None else split_lines(text)

    region = _enclosing(analysis, first, last)
    if region is not None:
        s_line, e_line, label = region
        cost = sum(estimate_tokens(lines[i] + "\n") for i in range(s_line, e_line + 1)
                   if (i < first or i > last) and i < len(lines))
        if cost > scope_tokens:
            region = None
    if region is None:
        s_line = max(0, first - WINDOW_LINES)
        e_line = min(len(lines) - 1, last + WINDOW_LINES)
        cost = {i: estimate_tokens(lines[i] + "\n") for i in range(s_line, e_line + 1)
                if i < first or i > last}
        used = sum(cost.values())
        while used > scope_tokens and (s_line < first or e_line > last):
            if s_line < first:  # shrink from both ends, one line at a time
                used -= cost[s_line]
                s_line += 1
            if e_line > last and used > scope_tokens:
                used -= cost[e_line]
                e_line -= 1
        label = f"lines {s_line + 1}-{e_line + 1} of the file"
    scope_start = min(starts[s_line], start)
    scope_end = max(starts[e_line + 1] if e_line + 1 < len(starts) else len(text), end)
    scope = redact(text[scope_start:start]) + MARKER + redact(text[end:scope_end])
    scope = scope.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
    if scope.strip() == MARKER:
        scope, label = "", ""

    outline = ""
    signatures: tuple[tuple[str, str], ...] = ()
    if analysis is not None:
        try:
            order = outline_order(analysis.items, (s_line, e_line))
            chosen, _ = select(analysis.items, order, outline_tokens)
            outline = render(analysis.items, chosen).rstrip("\n") if chosen else ""
            if workspace is not None:
                signatures = signatures_used_on(pdoc, analysis, first, last, workspace,
                                                open_docs, signature_tokens)
        except Exception as err:  # best effort
            log.info("context for an action on %s incomplete: %s", doc.uri, err)
    return ActionContext(path, language, outline, scope, label, signatures)
