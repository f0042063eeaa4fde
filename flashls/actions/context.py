"""What a code action shows the model besides the selection: outline and enclosing scope.

* outline: imports plus every top-level and class-level signature of the file (bodies
  elided to `...`), from `flashls.context.symbols`; it tells the model which names exist;
* scope: the smallest definition that strictly contains the selection, with the
  selection replaced by a marker (it is sent separately, once); when there is none or it
  is too large, the lines around the selection.

Everything but the selection goes through secret redaction. The selection is sent as
written: replacing a secret in it with a marker would write the marker into the file.
Pure: a frozen ParsedDocument in, text out.
"""

from __future__ import annotations

import bisect
import logging
from dataclasses import dataclass

from ..context.secrets import redact
from ..context.symbols import extract, split_lines
from ..context.syntax import ParsedDocument
from ..context.tokens import estimate_tokens

log = logging.getLogger(__name__)

MARKER = "<<<SELECTION>>>"
OUTLINE_TOKENS = 1200
SCOPE_TOKENS = 3000
WINDOW_LINES = 40  # each side of the selection, when there is no usable scope
MAX_HEADER_LINES = 4  # a longer signature / assignment is cut in the outline


@dataclass(frozen=True)
class ActionContext:
    path: str
    language: str  # for the Markdown fences
    outline: str  # "" when the file has no grammar or no definitions
    scope: str  # text around the selection, the selection itself replaced by MARKER
    scope_label: str  # what `scope` is, for the prompt


def _line_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset) - 1


def _outline(pdoc: ParsedDocument, budget: int) -> tuple[str, list]:
    spec, tree = pdoc.spec, pdoc.tree()
    if spec is None or tree is None:
        return "", []
    doc = pdoc.doc
    try:
        symbols = extract(spec, tree, doc.source_bytes, doc.text)
    except Exception as err:  # context is best effort: never fail an action over it
        log.info("outline unavailable for %s: %s", doc.uri, err)
        return "", []
    lines = list(symbols.lines)
    keep: set[int] = set(symbols.import_lines)
    for d in symbols.definitions:
        last = min(d.header_end, d.start + MAX_HEADER_LINES - 1)
        keep.update(range(d.start, last + 1))
        if d.doc_line >= 0:
            keep.add(d.doc_line)
    if not keep:
        return "", list(symbols.definitions)
    out: list[str] = []
    used = 0
    gap = False
    for row in range(len(lines)):
        if row not in keep:
            gap = gap or bool(lines[row].strip())
            continue
        if gap and out:
            nxt = lines[row]
            out.append(nxt[: len(nxt) - len(nxt.lstrip())] + "...")
        gap = False
        cost = estimate_tokens(lines[row] + "\n")
        if used + cost > budget:
            out.append("...")
            break
        used += cost
        out.append(lines[row])
    if gap:
        out.append("...")
    return redact("\n".join(out)), list(symbols.definitions)


def _enclosing(definitions: list, first: int, last: int) -> tuple[int, int, str] | None:
    """(start, end, label) of the smallest definition strictly containing the lines."""
    best = None
    for d in definitions:
        if d.start <= first and d.end >= last and (d.start, d.end) != (first, last) and \
                d.end > d.start:
            if best is None or d.end - d.start < best.end - best.start:
                best = d
    if best is None:
        return None
    return best.start, best.end, f"the enclosing {best.kind} `{best.name}`"


def gather(pdoc: ParsedDocument, start: int, end: int, path: str, *,
           outline_tokens: int = OUTLINE_TOKENS, scope_tokens: int = SCOPE_TOKENS
           ) -> ActionContext:
    """The context for an action on `pdoc.doc.text[start:end]`."""
    doc = pdoc.doc
    text = doc.text
    starts = doc.starts
    spec = pdoc.spec
    language = spec.name if spec else (doc.language_id or "")
    outline, definitions = _outline(pdoc, outline_tokens)
    first = _line_of(starts, start)
    last = _line_of(starts, max(start, end - 1))
    lines = split_lines(text)
    region = _enclosing(definitions, first, last)
    if region is not None:
        s_line, e_line, label = region
        cost = sum(estimate_tokens(lines[i] + "\n") for i in range(s_line, e_line + 1)
                   if i < first or i > last)
        if cost > scope_tokens:
            region = None
    if region is None:
        s_line = max(0, first - WINDOW_LINES)
        e_line = min(len(lines) - 1, last + WINDOW_LINES)
        label = f"lines {s_line + 1}-{e_line + 1} of the file"
        while s_line < first and sum(estimate_tokens(lines[i] + "\n") for i in
                                     range(s_line, e_line + 1)) > scope_tokens * 1.5:
            s_line += 5
            e_line = max(last, e_line - 5)
    scope_start = starts[s_line]
    scope_end = starts[e_line + 1] if e_line + 1 < len(starts) else len(text)
    scope_start = min(scope_start, start)
    scope_end = max(scope_end, end)
    scope = redact(text[scope_start:start]) + MARKER + redact(text[end:scope_end])
    scope = scope.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
    if scope.strip() == MARKER:
        scope, label = "", ""
    return ActionContext(path, language, outline, scope, label)
