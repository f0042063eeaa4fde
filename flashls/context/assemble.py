"""The context engine's entry point: everything sent with one completion request.

`assemble_context` is pure apart from reading workspace files (through `Workspace`,
which enforces the boundary) and caches. Tiers: the cursor window (verbatim), the
same-file outline and neighbor signatures (one budget, entries ranked on merit:
`ranking.py`), recent code; in the output, parts are ordered
most stable first (neighbors, outline, recent; the neighbor parts in the order the
document's last prompt had them) so consecutive prompts share the longest possible
byte-identical beginning.
"""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

from .analysis import Analysis
from .background import analysis_ready
from .evidence import anchor_range
from .evidence_c import anchor_items, corrected_parts, extra_estimate_margin, macro_excess
from .evidence_pyjs import lent_window
from .local_parse import current_analysis, has_error, tree_near
from .memo import TEXT_MEMO_SIZE
from .budget import Fill, share_out, window_cap, window_reservation
from .neighbors import neighbor_files, part_overhead, prefix_tokens
from .outline import outline_demand, render
from .ranking import Selection, select_stable
from .hold_room import hold_room, settle_for
from .suffix_hold import suffix_cap_for, suffix_kept
from .rank_memo import held_share, stable_order
from .recent import RecentEdits, Snippet, recent_snippets, source_for
from .symbols import enclosing_scopes, split_lines
from .syntax import ParsedDocument
from .tokens import estimate_tokens
from .window import Window, build_window
from .workspace import Workspace, path_from_uri

__all__ = ["ContextPart", "AssembledContext", "assemble_context", "render_breakdown",
           "RecentEdits", "Workspace"]


@dataclass(frozen=True)
class ContextPart:
    tier: str  # "outline" | "neighbors" | "recent"
    source: str  # workspace-relative path the text comes from
    text: str  # exact text, already redacted, whole lines
    tokens: int  # estimate of text as the prompt sends it: label line, comment prefixes


@dataclass(frozen=True)
class AssembledContext:
    parts: tuple[ContextPart, ...]  # most stable first: neighbors (in the document's
    # last prompt's order, new ones after: `rank_memo.stable_order`), outline, recent
    prefix: str  # window text before the cursor, ends exactly at the cursor (redacted)
    suffix: str  # window text after the cursor (redacted)
    window_start_line: int
    tokens: int  # estimated total of parts + prefix + suffix (<= budget)
    budget: int


TIER_ORDER = ("neighbors", "outline", "recent")
ESTIMATE_MARGIN_DIVISOR = 20  # 5 % of the budget left unused against estimate error
# ... per language where the estimate's error is known to be smaller. Rust: DeepSeek's
# count / the estimate has p50 0.93, p99 1.006 and max 1.033 over the 725 requests of
# the Rust dev + tuning pool (the worst: regex-syntax's pattern strings); a request
# estimated at budget - budget/30 is then at most 0.999 of the budget in real tokens
MARGIN_DIVISORS = {"rust": 30}


def estimate_margin(spec, budget: int) -> int:
    """Budget left unused against the local estimate's error (for the language of
    `spec`): the stable tier gets what a smaller margin frees."""
    resolver = spec.resolver if spec is not None else ""
    return budget // MARGIN_DIVISORS.get(resolver, ESTIMATE_MARGIN_DIVISOR)


@lru_cache(maxsize=4 * TEXT_MEMO_SIZE)
def _part(tier: str, source: str, text: str) -> ContextPart:
    """A part and its cost (memoized: consecutive prompts repeat their parts)."""
    return ContextPart(tier, source, text, estimate_tokens(text) + part_overhead(source, tier)
                       + prefix_tokens(text))


def _current_analysis(pdoc: ParsedDocument) -> Analysis | None:
    return current_analysis(pdoc)  # None while a big document is prepared; a big
    # document's edit is parsed on its own (`local_parse`)


def prepare_document(pdoc: ParsedDocument) -> None:
    """Bring the document's tree and per-version analysis up to date now (a pause in
    the typing), so the next request finds them instead of computing them."""
    if pdoc.parseable() and analysis_ready(pdoc):
        pdoc.tree()  # the whole tree: requests may have parsed only their edits
    _current_analysis(pdoc)


def assemble_context(pdoc: ParsedDocument, offset: int, *, budget_tokens: int,
                     workspace: Workspace | None = None,
                     open_docs: Mapping[str, ParsedDocument] = {},
                     recent: RecentEdits | None = None) -> AssembledContext:
    """Everything to send for a completion at str offset `offset` of `pdoc`.

    With a workspace, a document that is excluded (`flashls.exclude`, .gitignore) gets
    an empty context: callers should not ask the model at all (see `Workspace.allowed`).
    A document outside every workspace folder gets its window and outline only."""
    budget = max(0, int(budget_tokens))
    doc = pdoc.doc
    text = doc.text
    offset = max(0, min(int(offset), len(text)))
    if "\r" in text:
        starts = doc.starts
        cursor_line = bisect.bisect_right(starts, offset) - 1
        line_start = starts[cursor_line]
    else:  # counting is cheaper than the line table on large documents
        cursor_line = text.count("\n", 0, offset)
        line_start = text.rfind("\n", 0, offset) + 1
    analysis = _current_analysis(pdoc)
    lines = analysis.lines if analysis is not None else split_lines(text)
    cursor_line = min(cursor_line, len(lines) - 1)
    cursor_col = offset - line_start
    path = path_from_uri(doc.uri)
    source = workspace.relative(path) if workspace and workspace.contains(path) \
        else os.path.basename(path) or doc.uri
    if workspace is not None and workspace.contains(path) and workspace.excluded(path):
        # an excluded or git-ignored file (.env, a key, build output) is never sent,
        # not even as the text around the cursor
        return AssembledContext((), "", "", 0, 0, budget)

    scopes: list[tuple[int, int]] = []
    top_starts: list[int] = []
    definition_indent = None
    if analysis is not None:
        source_bytes = doc.source_bytes
        byte = doc.byte_at(offset)
        tree = tree_near(pdoc, byte)
        scopes = enclosing_scopes(analysis.spec, tree, source_bytes, byte,
                                  cursor_line, lines)
        top_starts = list(analysis.top_starts)
        definition_indent = _definition_indent(analysis, cursor_line)

    def make_window(suffix_cap: int | None = None) -> Window:
        return build_window(lines, cursor_line, cursor_col, window_cap(budget),
                            spec=pdoc.spec, scopes=scopes, top_level_starts=top_starts,
                            text=text, offset=offset,
                            starts=doc.starts if "\r" in text else None,
                            definition_indent=definition_indent, suffix_cap=suffix_cap)

    window = make_window()
    terms = _window_terms(pdoc.spec, window, budget, len(lines), source)
    window_range = (window.start_line, window.range_end)  # what the outline leaves out

    fillers = {}
    if analysis is not None:
        files: list = []
        if workspace is not None and workspace.contains(path):
            open_by_path = {workspace.real(path_from_uri(u)): p for u, p in open_docs.items()}
            files = neighbor_files(analysis.spec, path, analysis, workspace, open_by_path,
                                   background=pdoc.background, cursor_line=cursor_line)
        # typing at the end of a line: its half-written names are not evidence yet
        rest = lines[cursor_line][cursor_col:]
        typing_line = cursor_line if not rest.strip() else -1
        fillers["stable"] = _stable_filler(doc.uri, analysis, path, cursor_line,
                                           window_range, files, source, typing_line)
    snippets = recent_snippets(current=pdoc, window_lines=window_range,
                               prefix=window.prefix, suffix=window.suffix,
                               open_docs=open_docs, recent=recent, workspace=workspace,
                               source_of=lambda uri: source_for(uri, workspace))
    if snippets:
        fillers["recent"] = _recent_filler(snippets)

    def share_for(w: Window, t: WindowTerms):
        return lambda given: share_out(t.remaining, fillers.get("stable"), fillers.get("recent"),
                                       recent_extra=t.reserved - w.tokens, freed=given)

    def narrow(shortfall: int):
        """The window with a suffix `shortfall` tokens shorter (`suffix_hold`), its
        share and budget terms, and how to take it; None when it cannot give that."""
        cap = suffix_cap_for(window, shortfall, window_cap(budget))
        smaller = make_window(cap) if cap is not None else None
        if smaller is None or smaller.prefix != window.prefix or \
                window.tokens - smaller.tokens < shortfall or \
                not suffix_kept(smaller, window_cap(budget)):
            return None
        t = _window_terms(pdoc.spec, smaller, budget, len(lines), source)

        def take() -> None:
            nonlocal window
            window = smaller
        return share_for(smaller, t), t.freed, t.room, take

    fills = held_share(doc.uri, share_for(window, terms), terms.freed, terms.room,
                       terms.stepped, narrow, settle_for(pdoc.spec))
    parts = _parts(fills, source, analysis.items if analysis is not None else ())
    # whole-entry trimming keeps the total within budget; this guards the invariant
    parts = corrected_parts(pdoc.spec, parts)  # C/C++: what the estimate misses
    total = sum(p.tokens for p in parts) + window.tokens + \
        macro_excess(pdoc.spec, window.prefix + window.suffix)
    while parts and total > budget:
        drop = max(range(len(parts)), key=lambda i: (TIER_ORDER.index(parts[i].tier), i))
        total -= parts[drop].tokens
        parts = parts[:drop] + parts[drop + 1:]
    if analysis is not None:  # the last prompt's layout (`rank_memo.stable_order`)
        def make_part(tier: str, part_source: str, part_text: str) -> ContextPart:
            return corrected_parts(pdoc.spec, [_part(tier, part_source, part_text)])[0]
        before = sum(p.tokens for p in parts)
        margin = estimate_margin(pdoc.spec, budget) + \
            extra_estimate_margin(pdoc.spec, budget, window.prefix + window.suffix)
        parts = stable_order(doc.uri, parts, make_part, budget - total,
                             lambda: has_error(pdoc), budget - margin - total)
        total += sum(p.tokens for p in parts) - before
    return AssembledContext(tuple(parts), window.prefix, window.suffix, window.start_line,
                            total, budget)


@dataclass(frozen=True)
class WindowTerms:
    """What a window leaves the other tiers: its reservation, what it gives back to the
    stable tier (`freed`), the tiers' budget (`remaining`), what it really leaves of
    its reservation (`room`) and whether what it gives back moves in steps (`hold_room`)."""

    reserved: int
    freed: int
    remaining: int
    room: int
    stepped: bool


def _window_terms(spec, window: Window, budget: int, n_lines: int, source: str) -> WindowTerms:
    whole_file = window.start_line == 0 and window.end_line >= n_lines - 1
    reserved = window_reservation(window.tokens, budget, whole_file=whole_file)
    # a window reaching the top of the file holds back less (its size, in coarse
    # steps): what recent code leaves of the difference goes to the stable tier
    freed = reserved - window_reservation(window.tokens, budget, whole_file=whole_file,
                                          top_fits=window.start_line == 0)
    freed = lent_window(spec, freed, reserved, window.tokens, budget, whole_file)
    # the prompt labels the window with the file's path (`completion/prompt.py`); the
    # estimate is within a few percent of DeepSeek's tokenizer: keep that much spare
    remaining = budget - reserved - part_overhead(source, "window") \
        - estimate_margin(spec, budget) \
        - extra_estimate_margin(spec, budget, window.prefix + window.suffix)
    room, stepped = hold_room(spec, reserved, window.tokens, window.start_line == 0)
    return WindowTerms(reserved, freed, remaining, room, stepped)


def _definition_indent(analysis: Analysis, cursor_line: int) -> int | None:
    """The indentation of the first line of the innermost definition around the cursor
    (`evidence.anchor_range`), whose end may end the window's suffix; None outside
    every definition."""
    lo, hi = anchor_range(anchor_items(analysis), cursor_line, analysis.lines)
    if (lo, hi) == (cursor_line, cursor_line) or lo >= len(analysis.lines):
        return None
    head = analysis.lines[lo]
    return len(head) - len(head.lstrip())


def _stable_filler(uri: str, analysis: Analysis, path: str, cursor_line: int,
                   window_range: tuple[int, int], files: list, source: str,
                   typing_line: int = -1):
    """The outline and the neighbor signatures, one budget spent on merit."""
    if not files and not outline_demand(analysis.items, window_range):
        return lambda cap: Fill(None, 0, 0)
    memo: dict[int, Fill] = {}

    def fill(cap: int) -> Fill:
        if cap <= 0:
            return Fill(None, 0, 1)
        if cap not in memo:
            sel = select_stable(uri, analysis, path, cursor_line, window_range, files,
                                analysis.spec.resolver, source, cap, typing_line)
            memo[cap] = Fill(sel, sel.used, sel.demand)
        return memo[cap]

    return fill


def _recent_filler(snippets: list[Snippet]):
    overheads = [part_overhead(s.source) + prefix_tokens(s.text)
                 for s in snippets]
    demand = sum(s.tokens + o for s, o in zip(snippets, overheads))

    def fill(cap: int) -> Fill:
        chosen, used = [], 0
        for s, o in zip(snippets, overheads):
            if used + s.tokens + o <= cap:
                chosen.append(s)
                used += s.tokens + o
        return Fill(tuple(chosen), used, demand)

    return fill


def _parts(fills: dict[str, Fill], outline_source: str, outline_items) -> list[ContextPart]:
    parts: list[ContextPart] = []
    sel: Selection | None = fills["stable"].result if "stable" in fills else None
    if sel is not None:
        for file, text in sorted(sel.neighbors.texts(), key=lambda ft: ft[0].source):
            parts.append(_part("neighbors", file.source, text))  # items are redacted
        if sel.outline:
            parts.append(_part("outline", outline_source,
                               render(outline_items, set(sel.outline), brief=True)))
    if "recent" in fills:
        for s in sorted(fills["recent"].result, key=lambda s: (s.source, s.start)):
            parts.append(_part("recent", s.source, s.text))
    return parts


def render_breakdown(ctx: AssembledContext) -> str:
    """What would be sent, tier by tier, for `flashls.showContext` and the CLI."""
    window_tokens = estimate_tokens(ctx.prefix) + estimate_tokens(ctx.suffix)
    lines = [f"context: {ctx.tokens} / {ctx.budget} tokens (estimated)",
             f"  window     {window_tokens:6d}  from line {ctx.window_start_line + 1} "
             f"(prefix {estimate_tokens(ctx.prefix)}, suffix {estimate_tokens(ctx.suffix)})"]
    for tier in TIER_ORDER:
        tier_parts = [p for p in ctx.parts if p.tier == tier]
        total = sum(p.tokens for p in tier_parts)
        lines.append(f"  {tier:<10} {total:6d}  {len(tier_parts)} part(s)")
        for p in tier_parts:
            lines.append(f"    {p.tokens:6d}  {p.source}")
    for p in ctx.parts:
        lines.append(f"\n===== {p.tier}: {p.source} ({p.tokens} tokens) =====")
        lines.append(p.text.rstrip("\n"))
    lines.append(f"\n===== window prefix (from line {ctx.window_start_line + 1}) =====")
    lines.append(ctx.prefix + "\u2038")  # a caret marks the cursor
    lines.append("===== window suffix =====")
    lines.append(ctx.suffix)
    return "\n".join(lines)
