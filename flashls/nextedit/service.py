"""Next edit suggestions: from the user's last edits to the edit that follows.

One request at a time: a newer request cancels the model call of the older one (which
then answers with no edit). A request for a version the server has moved past, a
closed upstream gate (bad key, back-off after 429s or timeouts), a region holding a
secret, or an answer `answer.judge` refuses give no edit; upstream errors go through
the same gate and status events as completions (told once, never a popup per
request). No LSP here: offsets into the document in, offsets out.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..context.secrets import MARK, redact
from ..context.syntax import ParsedDocument
from ..context.workspace import Workspace
from ..model.gate import UpstreamGate
from ..model.guarded import guarded_generate
from ..model.types import ChatRequest, CompletionModel, ModelError, ModelResult
from ..settings import Settings
from .answer import RegionEdit, Verdict, judge
from .context import related_signatures
from .history import Change, EditHistory, bounded
from .prompt import PromptParts, next_edit_messages
from .region import LineMap, Region, editable_region, line_map

log = logging.getLogger(__name__)

KIND = "nextEdit"  # the `kind` of status / usage events
TIMEOUT_S = 10.0
HISTORY_CHARS = 5000  # edit history sent with one request, newest kept
MAX_TRACKED = 256  # suggestions remembered for shown / accepted / rejected


@dataclass(frozen=True)
class NextEdit:
    """Replace document offsets start..end of `uri` at `version` with `text`."""

    id: str  # shared by every edit of one suggestion
    uri: str
    version: int
    start: int
    end: int
    text: str
    model: str


@dataclass(frozen=True)
class Outcome:
    edits: tuple[NextEdit, ...]
    reason: str = ""  # why there is no edit


@dataclass(frozen=True)
class Prepared:
    """Everything a model call needs, built synchronously from one snapshot."""

    uri: str
    version: int
    region: Region
    request: ChatRequest
    typing: tuple[int, int] | None  # offsets in `sent` of what the user is typing
    max_lines: int
    sent: Region | None = None  # the region as sent (secrets redacted)
    lines: LineMap | None = None  # sent <-> region offsets, when they differ


@dataclass
class Tally:
    """Suggestions shown, accepted and rejected in this session (debugStats)."""

    requests: int = 0
    suggested: int = 0
    shown: int = 0
    accepted: int = 0
    rejected: int = 0


@dataclass
class _Shown:
    """What the usage ledger's `suggestion_shown` reads."""

    id: str
    text: str
    model: str
    seen: bool = False


@dataclass
class NextEditService:
    model: Callable[[], CompletionModel]
    settings: Callable[[], Settings]
    gate: Callable[[], UpstreamGate]
    events: Any  # StatusEvents-like: request_started / request_finished / sinks
    documents: Mapping[str, ParsedDocument]
    allowed: Callable[[str], bool]  # the one "never sent" rule
    path_of: Callable[[str], str]
    workspace: Callable[[], Workspace | None] = lambda: None
    # the same rule for other documents' edits (untitled buffers and files outside the
    # folders are never context for another file); defaults to `allowed`
    allowed_as_context: Callable[[str], bool] | None = None
    history: EditHistory = field(default_factory=EditHistory)
    tally: Tally = field(default_factory=Tally)
    _inflight: asyncio.Task | None = None
    _suggestions: dict = field(default_factory=dict)  # id -> _Shown

    # -- the edit history ---------------------------------------------------------
    def note_change(self, uri: str, before: str, after: str, change: Change | None) -> None:
        """A `didChange` was applied. Documents that may never be sent leave no trace."""
        if not self.allowed(uri):
            self.history.forget(uri)
            return
        self.history.record(uri, self.path_of(uri), before, after, change)

    def forget(self, uri: str) -> None:
        self.history.forget(uri)

    def _history_filter(self, uri: str) -> Callable[[str], bool]:
        """Which documents' edits may go with a request for `uri`."""
        as_context = self.allowed_as_context or self.allowed
        return lambda other: self.allowed(other) if other == uri else as_context(other)

    # -- a request -----------------------------------------------------------------
    def prepare(self, uri: str, version: int | None, offset: int) -> Prepared | str:
        """The request for a next edit at `offset`, or why there is none."""
        settings = self.settings()
        if not settings.next_edit.enable:
            return "next edits are disabled (flashls.nextEdit.enable)"
        pdoc = self.documents.get(uri)
        if pdoc is None:
            return "the document is not open"
        doc = pdoc.doc
        if version is not None and version != doc.version:
            return f"stale version {version} (the document is at {doc.version})"
        closed = self.gate().closed_reason()
        if closed:
            return f"upstream unavailable: {closed}"
        region = editable_region(doc, offset, settings.next_edit.region_lines)
        sent, lines = self._redacted(region)
        if sent is None:
            return "the cursor is on a line holding a secret; it is never sent"
        history = bounded(self.history.recent(self._text_of, self._history_filter(uri)),
                          HISTORY_CHARS)
        language = pdoc.spec.name if pdoc.spec else (doc.language_id or "")
        signatures = related_signatures(pdoc, region.first, region.last, self.workspace(),
                                        self.documents)
        messages = next_edit_messages(PromptParts(self.path_of(uri), language, sent,
                                                  tuple(history), signatures))
        request = ChatRequest(model=settings.model, messages=messages,
                              max_tokens=settings.next_edit.max_tokens)
        typing = self._typing(uri, doc.text, region)
        if typing is not None and lines is not None:
            typing = (lines.to_sent(typing[0]), lines.to_sent(typing[1]))
            if None in typing:
                return "the user is typing on a line holding a secret"
        return Prepared(uri, doc.version, region, request, typing,
                        max_lines=(region.last - region.first + 1)
                        + settings.next_edit.region_lines, sent=sent, lines=lines)

    @staticmethod
    def _redacted(region: Region) -> tuple[Region | None, LineMap | None]:
        """The region as sent: secrets replaced by markers (lines holding one can
        take no edit), or (None, None) when it cannot be sent at all."""
        text = redact(region.text)
        if text == region.text:
            return region, None
        lines = line_map(region.text, text)
        cursor = lines.to_sent(region.cursor) if lines is not None else None
        if cursor is None:
            return None, None
        return dataclasses.replace(region, text=text, cursor=cursor), lines

    def _text_of(self, uri: str) -> str | None:
        pdoc = self.documents.get(uri)
        return pdoc.doc.text if pdoc is not None else None

    def _typing(self, uri: str, text: str, region: Region) -> tuple[int, int] | None:
        """The part of the region the user is typing: the latest burst's text, when
        the cursor is in or at its edge."""
        span = self.history.latest_span(uri, text)
        if span is None:
            return None
        start, end = span
        cursor = region.start + region.cursor
        if not start <= cursor <= end:
            return None
        return max(0, start - region.start), min(len(region.text), end - region.start)

    async def suggest(self, uri: str, version: int | None, offset: int) -> Outcome:
        """The next edit at `offset` of `uri` (as the client saw it at `version`)."""
        prepared = self.prepare(uri, version, offset)
        if isinstance(prepared, str):
            log.debug("no next edit in %s: %s", uri, prepared)
            return Outcome((), prepared)
        self.tally.requests += 1
        previous = self._inflight
        if previous is not None and not previous.done():
            previous.cancel()  # the newer request wins
        task = asyncio.ensure_future(self._call(prepared.request))
        self._inflight = task
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:  # this request was cancelled by the client
            task.cancel()
            raise
        finally:
            if self._inflight is task:
                self._inflight = None
        if task.cancelled():
            return Outcome((), "superseded by a newer request")
        result = task.result()
        if result is None:
            return Outcome((), "upstream error")
        return self.finish(prepared, result)

    async def _call(self, request: ChatRequest) -> ModelResult | None:
        try:
            return await guarded_generate(self.model(), request, gate=self.gate(),
                                          events=self.events, kind=KIND, timeout_s=TIMEOUT_S)
        except ModelError:
            return None  # told and recorded: this request ends with no edit

    def finish(self, prepared: Prepared, result: ModelResult) -> Outcome:
        """Judge an answer against the document as it is now."""
        pdoc = self.documents.get(prepared.uri)
        if pdoc is None or pdoc.doc.version != prepared.version:
            self.events.request_finished(KIND, result, None, "stale")
            return Outcome((), "the document changed while the model was working")
        verdict: Verdict = judge(result.text, prepared.sent or prepared.region,
                                 cut_off=result.finish_reason == "length",
                                 max_lines=prepared.max_lines, typing=prepared.typing)
        if verdict.edits and prepared.lines is not None:
            verdict = _unredacted(verdict, prepared.lines)
        if not verdict.edits:
            self.events.request_finished(KIND, result, None, "no_edit")
            log.info("no next edit in %s: %s", prepared.uri, verdict.reason)
            return Outcome((), verdict.reason)
        self.events.request_finished(KIND, result, None, "edit")
        suggestion_id = f"nes-{uuid.uuid4().hex[:12]}"
        base = prepared.region.start
        edits = tuple(NextEdit(suggestion_id, prepared.uri, prepared.version,
                               base + e.start, base + e.end, e.text, result.model)
                      for e in verdict.edits)
        self._remember(suggestion_id, edits, result.model)
        self.tally.suggested += 1
        return Outcome(edits)

    # -- what the user did with it ----------------------------------------------------
    def _remember(self, suggestion_id: str, edits: tuple[NextEdit, ...], model: str) -> None:
        self._suggestions[suggestion_id] = _Shown(
            suggestion_id, "".join(e.text for e in edits), model)
        while len(self._suggestions) > MAX_TRACKED:
            self._suggestions.pop(next(iter(self._suggestions)))

    def shown(self, suggestion_id: str) -> bool:
        item = self._suggestions.get(suggestion_id)
        if item is None or item.seen:
            return False
        item.seen = True
        self.tally.shown += 1
        for sink in self.events.sinks:
            sink.suggestion_shown(item)
        return True

    def accepted(self, suggestion_id: str) -> bool:
        item = self._suggestions.pop(suggestion_id, None)
        if item is None:
            return False
        if not item.seen:  # a renderer that never said it showed it
            self._suggestions[suggestion_id] = item
            self.shown(suggestion_id)
            self._suggestions.pop(suggestion_id, None)
        self.tally.accepted += 1
        for sink in self.events.sinks:
            accept = getattr(sink, "suggestion_accepted", None)
            if accept:
                accept(suggestion_id)
        return True

    def rejected(self, suggestion_id: str) -> bool:
        if self._suggestions.pop(suggestion_id, None) is None:
            return False
        self.tally.rejected += 1
        return True


def _unredacted(verdict: Verdict, lines: LineMap) -> Verdict:
    """Edits of the redacted region moved onto the real one; an edit touching a line
    that holds a secret gives no edit at all (its real text was never seen)."""
    edits = []
    for e in verdict.edits:
        start, end = lines.to_original(e.start), lines.to_original(e.end)
        if start is None or end is None or not lines.clean_between(e.start, e.end) \
                or MARK in e.text:
            return Verdict((), "touches a line holding a secret")
        edits.append(RegionEdit(start, end, e.text))
    return Verdict(tuple(edits), "")

