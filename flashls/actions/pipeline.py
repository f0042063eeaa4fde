"""Run a code action against the model: Flash first, retry, escalate, validate.

A rewrite is tried on `settings.model`; a rejected answer (no code, unchanged, cut
off, or new syntax errors) is retried once on `settings.model` with the reason, then
once on `settings.strong_model`. If all fail, nothing changes and the error says why,
attempt by attempt. Upstream errors go through the same gate and status events as
completions (a bad key is told once and stops further requests). No LSP here: offsets
into a frozen ParsedDocument in, replacement text out.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Callable, Mapping

from ..context.secrets import redact
from ..context.syntax import ParsedDocument
from ..context.workspace import Workspace
from ..model.gate import UpstreamGate
from ..model.guarded import guarded_generate
from ..model.types import ChatRequest, CompletionModel, ModelError, ModelResult
from ..settings import Settings
from .context import ActionContext, gather
from .extract import extract_code, extract_markdown
from .prompt import DiagnosticNote, explain_messages, retry_messages, rewrite_messages
from .selection import fit, prepare
from .validate import check_rewrite

log = logging.getLogger(__name__)

KIND = "action"  # the `kind` of status / usage events
ATTEMPT_TIMEOUT_S = 90.0  # one model call; the adapter's idle watchdog is shorter
MAX_BACKOFF_WAIT_S = 5.0  # an action waits out a short upstream back-off, not a long one


@dataclass(frozen=True)
class Attempt:
    model: str
    ok: bool
    reason: str = ""

    def as_dict(self) -> dict:
        return {"model": self.model, "ok": self.ok, "reason": self.reason}


@dataclass(frozen=True)
class RewriteOutcome:
    replacement: str  # exact text for document offsets start..end
    model: str  # the model whose answer was used
    attempts: tuple[Attempt, ...]
    syntax_checked: bool


@dataclass(frozen=True)
class ExplainOutcome:
    markdown: str
    model: str
    attempts: tuple[Attempt, ...]


class ActionFailed(Exception):
    """Nothing was changed; `str()` says why. `told` when the user was already told
    (upstream errors are reported once through the status events)."""

    def __init__(self, message: str, attempts: tuple[Attempt, ...] = (), *,
                 told: bool = False):
        super().__init__(message)
        self.attempts = attempts
        self.told = told


@dataclass(frozen=True)
class ActionJob:
    pdoc: ParsedDocument  # a snapshot: the document as it was when the action started
    start: int
    end: int
    path: str
    instruction: str
    diagnostics: tuple[DiagnosticNote, ...] = ()
    label: str = "Rewrite"  # for messages
    workspace: Workspace | None = None  # for imported files' signatures
    open_docs: Mapping[str, ParsedDocument] = field(default_factory=dict)

    def context(self) -> ActionContext:
        return gather(self.pdoc, self.start, self.end, self.path,
                      workspace=self.workspace, open_docs=self.open_docs)


OnAttempt = Callable[[int, str], None]  # (attempt index, model) when a call starts


@dataclass
class ActionRunner:
    model: Callable[[], CompletionModel]
    settings: Callable[[], Settings]
    gate: Callable[[], UpstreamGate]
    events: object  # StatusEvents-like: request_started / request_finished
    calls: int = field(default=0)

    def ladder(self, settings: Settings) -> list[tuple[str, float]]:
        """(model, temperature) per attempt: first try, retry, escalation."""
        return [(settings.model, 0.0), (settings.model, 0.3), (settings.strong_model, 0.0)]

    async def _call(self, request: ChatRequest) -> ModelResult:
        """One upstream call; the caller reports how it ended via `_finish`."""
        gate = self.gate()
        wait = gate.backoff_until - gate.clock()
        if gate.blocked_reason is None and 0 < wait <= MAX_BACKOFF_WAIT_S:
            await asyncio.sleep(wait)  # the user asked for this action: wait a little
        closed = gate.closed_reason()
        if closed:
            raise ActionFailed(f"upstream unavailable: {closed}", told=True)
        self.calls += 1
        return await guarded_generate(self.model(), request, gate=gate, events=self.events,
                                      kind=KIND, timeout_s=ATTEMPT_TIMEOUT_S)

    async def _attempt(self, job: ActionJob, request: ChatRequest,
                       attempts: list[Attempt]) -> ModelResult | None:
        """One model call of an action: its result, or None (recorded in `attempts`)
        when a retryable upstream error says to try the next model; anything final
        raises ActionFailed with the summary of every attempt so far."""
        try:
            return await self._call(request)
        except ActionFailed as err:
            raise ActionFailed(self._summary(job, attempts, redact(str(err))),
                               tuple(attempts), told=True) from None
        except ModelError as err:
            attempts.append(Attempt(request.model, False, redact(str(err))))
            if not err.retryable:
                raise ActionFailed(self._summary(job, attempts), tuple(attempts),
                                   told=True) from err
            return None

    async def rewrite(self, job: ActionJob, on_attempt: OnAttempt | None = None
                      ) -> RewriteOutcome:
        settings = self.settings()
        doc = job.pdoc.doc
        sel = prepare(doc.text, job.start, job.end)
        ctx = job.context()
        base = rewrite_messages(ctx, sel.body, job.instruction, job.diagnostics)
        spec = job.pdoc.spec
        attempts: list[Attempt] = []
        retry: tuple = ()
        for index, (model, temperature) in enumerate(self.ladder(settings)):
            request = ChatRequest(model=model, messages=base + retry,
                                  max_tokens=settings.actions.max_tokens,
                                  temperature=temperature)
            if on_attempt:
                on_attempt(index, model)
            result = await self._attempt(job, request, attempts)
            if result is None:
                continue
            reason, replacement, checked = self._judge(result, sel, job, spec)
            self.events.request_finished(KIND, result, None, "rejected" if reason else "edit")
            if not reason:
                attempts.append(Attempt(model, True))
                log.info("%s on %s: edit from %s after %d attempt(s)", job.label, job.path,
                         model, len(attempts))
                return RewriteOutcome(replacement, model, tuple(attempts), checked)
            log.info("%s on %s: %s rejected: %s", job.label, job.path, model, reason)
            attempts.append(Attempt(model, False, reason))
            retry = retry_messages(result.text, reason)
        raise ActionFailed(self._summary(job, attempts), tuple(attempts))

    def _judge(self, result: ModelResult, sel, job: ActionJob, spec
               ) -> tuple[str, str, bool]:
        """(reason it is rejected or "", the replacement, whether syntax was checked)."""
        code = extract_code(result.text)
        if result.finish_reason == "length":
            return ("the answer was cut off at flashls.actions.maxTokens "
                    f"({self.settings().actions.max_tokens} tokens)"), "", False
        if not code.strip():
            return "the answer contained no code", "", False
        replacement = fit(code, sel)
        verdict = check_rewrite(job.pdoc.doc.text, job.start, job.end, replacement, spec,
                                job.pdoc.tree())
        return verdict.reason, replacement, verdict.checked_syntax

    @staticmethod
    def _summary(job: ActionJob, attempts: list[Attempt], extra: str = "") -> str:
        tried = "; ".join(f"{a.model}: {a.reason}" for a in attempts if not a.ok)
        parts = [f"flashls: {job.label} failed, the document was not changed."]
        if tried:
            parts.append(f"Tried {tried}.")
        if extra:
            parts.append(extra[0].upper() + extra[1:] + ".")
        return " ".join(parts)

    async def explain(self, job: ActionJob, on_attempt: OnAttempt | None = None
                      ) -> ExplainOutcome:
        settings = self.settings()
        doc = job.pdoc.doc
        sel = prepare(doc.text, job.start, job.end)
        ctx = job.context()
        messages = explain_messages(ctx, sel.body, job.instruction)
        attempts: list[Attempt] = []
        for index, model in enumerate((settings.model, settings.strong_model)):
            if on_attempt:
                on_attempt(index, model)
            request = ChatRequest(model=model, messages=messages,
                                  max_tokens=settings.actions.max_tokens, temperature=0.2)
            result = await self._attempt(job, request, attempts)
            if result is None:
                continue
            markdown = extract_markdown(result.text)
            self.events.request_finished(KIND, result, None,
                                         "explained" if markdown else "rejected")
            if markdown:
                attempts.append(Attempt(model, True))
                log.info("%s on %s: explanation from %s", job.label, job.path, model)
                return ExplainOutcome(markdown, model, tuple(attempts))
            attempts.append(Attempt(model, False, "the answer was empty"))
        raise ActionFailed(self._summary(job, attempts), tuple(attempts))
