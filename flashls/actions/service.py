"""Code actions over the open documents: what may be offered, and running one.

Bridges editor-side targets (a URI and a line/character range, as the LSP sends them)
to the pipeline: checks the action may run at all (enabled, open and in sync, not
excluded, a sane size), snapshots the document, and turns the pipeline's text into an
edit addressed by positions and the document version it was computed against.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from ..context.document import PositionError
from ..context.never_sent import NotSent, never_sent
from ..context.syntax import ParsedDocument
from ..context.tokens import estimate_tokens
from ..context.workspace import Workspace, WorkspaceBoundary
from ..settings import Settings
from .comment import comment_prefix, to_comment
from .intents import EXPLAIN, INTENTS, Intent, instruction_for
from .pipeline import ActionFailed, ActionJob, ActionRunner, Attempt, ExplainOutcome, OnAttempt
from .prompt import DiagnosticNote
from .selection import detect_newline

log = logging.getLogger(__name__)

MAX_SELECTION_CHARS = 200_000  # beyond this no action is offered or run

Position = tuple[int, int]  # LSP (line, character) in the document's encoding


@dataclass(frozen=True)
class Target:
    uri: str
    start: Position
    end: Position
    version: int | None = None  # the version the client saw, when it says


@dataclass(frozen=True)
class PlannedEdit:
    """Replace start..end of `uri` (at `version`) with `new_text`."""

    uri: str
    version: int
    start: Position
    end: Position
    new_text: str


@dataclass(frozen=True)
class EditResult:
    edit: PlannedEdit
    model: str
    attempts: tuple[Attempt, ...]
    syntax_checked: bool = False


class ActionService:
    def __init__(self, runner: ActionRunner, *, documents: Mapping[str, ParsedDocument],
                 settings: Callable[[], Settings], path_of: Callable[[str], str],
                 unsynced: Callable[[str], bool] = lambda uri: False,
                 roots: Callable[[], Sequence[Path]] = lambda: (),
                 boundary: WorkspaceBoundary | None = None):
        self.runner = runner
        self.documents = documents
        self.settings = settings
        self.path_of = path_of
        self.unsynced = unsynced
        self.roots = roots
        self.boundary = boundary or WorkspaceBoundary(roots, lambda: settings().exclude)

    def workspace(self) -> Workspace | None:
        """The workspace boundary for imported files' signatures."""
        return self.boundary.get()

    # -- listing ----------------------------------------------------------------------
    def not_sent(self, uri: str) -> NotSent | None:
        """The one "document never sent" rule, as completions apply it."""
        pdoc = self.documents.get(uri)
        if pdoc is None:
            return None
        try:
            workspace = self.workspace()
        except Exception:  # invalid globs: told by the settings layer
            workspace = None
        settings = self.settings()
        return never_sent(uri, pdoc.doc.text, workspace=workspace,
                          user_excludes=settings.exclude,
                          outside_workspace=settings.completion.outside_workspace)

    def excluded(self, uri: str) -> bool:
        return self.not_sent(uri) is not None

    def why_not(self, uri: str) -> str | None:
        """Why no action may run on this document now, or None when one may."""
        if not self.settings().actions.enable:
            return "code actions are disabled (flashls.actions.enable)"
        pdoc = self.documents.get(uri)
        if pdoc is None:
            return "the document is not open"
        if self.unsynced(uri):
            return "the document is out of sync with the editor; reopen it"
        if not self.settings().language_enabled(pdoc.doc.language_id):
            return (f"AI features are off for {pdoc.doc.language_id} "
                    "(flashls.completion.languages)")
        refused = self.not_sent(uri)
        if refused is not None:
            return f"{self.path_of(uri)}: {refused.message}"
        return None

    def selection(self, target: Target) -> tuple[ParsedDocument, int, int] | None:
        """The open document and offsets of a usable, non-empty selection, else None."""
        if self.why_not(target.uri) is not None:
            return None
        pdoc = self.documents[target.uri]
        try:
            start = pdoc.doc.offset_at(*target.start)
            end = pdoc.doc.offset_at(*target.end)
        except PositionError:
            return None
        if end <= start or not pdoc.doc.text[start:end].strip() or \
                end - start > MAX_SELECTION_CHARS:
            return None
        return pdoc, start, end

    # -- running ----------------------------------------------------------------------
    def _job(self, target: Target, intent: Intent, instruction: str,
             diagnostics: tuple[DiagnosticNote, ...] = ()) -> ActionJob:
        label = intent.title.removeprefix("flashls: ").rstrip("…")
        why = self.why_not(target.uri)
        if why:
            raise ActionFailed(f"flashls: {label} is not possible: {why}.")
        pdoc = self.documents[target.uri]
        if target.version is not None and pdoc.doc.version != target.version:
            raise ActionFailed(f"flashls: {label}: the document changed since the action "
                               "was offered; select the code and try again.")
        located = self.selection(target)
        if located is None:
            raise ActionFailed(f"flashls: {label} needs a non-empty selection of at most "
                               f"{MAX_SELECTION_CHARS} characters.")
        _, start, end = located
        return ActionJob(pdoc.snapshot(), start, end, self.path_of(target.uri), instruction,
                         diagnostics, label, self.workspace(), dict(self.documents))

    def _planned(self, job: ActionJob, start: int, end: int, text: str) -> PlannedEdit:
        doc = job.pdoc.doc
        return PlannedEdit(doc.uri, doc.version, doc.position_at(start),
                           doc.position_at(end), text)

    async def rewrite(self, target: Target, intent_id: str, *, instruction: str = "",
                      diagnostics: tuple[DiagnosticNote, ...] = (),
                      on_attempt: OnAttempt | None = None) -> EditResult:
        intent = INTENTS.get(intent_id)
        if intent is None or not intent.edits:
            raise ActionFailed(f"flashls: unknown rewrite intent {intent_id!r}")
        pdoc = self.documents.get(target.uri)
        spec = pdoc.spec if pdoc else None
        text = instruction_for(intent, body_docstrings=bool(spec and spec.body_docstrings),
                               custom=instruction)
        if not text:
            raise ActionFailed("flashls: Rewrite needs an instruction; the editor should "
                               "ask for one and pass it as `instruction`.")
        job = self._job(target, intent, text, diagnostics)
        settings = self.settings()
        tokens = estimate_tokens(job.pdoc.doc.text[job.start:job.end])
        if tokens > settings.actions.max_tokens:
            raise ActionFailed(
                f"flashls: {job.label}: the selection is about {tokens} tokens, more than "
                f"flashls.actions.maxTokens ({settings.actions.max_tokens}) lets the answer "
                "be; select less or raise the setting.")
        outcome = await self.runner.rewrite(job, on_attempt)
        return EditResult(self._planned(job, job.start, job.end, outcome.replacement),
                          outcome.model, outcome.attempts, outcome.syntax_checked)

    async def explain(self, target: Target, on_attempt: OnAttempt | None = None
                      ) -> ExplainOutcome:
        job = self._job(target, EXPLAIN, EXPLAIN.instruction)
        return await self.runner.explain(job, on_attempt)

    async def explain_comment(self, target: Target, markdown: str | None = None,
                              on_attempt: OnAttempt | None = None) -> EditResult:
        """An edit inserting the explanation as a comment above the selection."""
        intent = INTENTS["explainComment"]
        job = self._job(target, intent, intent.instruction)
        doc = job.pdoc.doc
        spec = job.pdoc.spec
        prefix = comment_prefix(spec.line_comment if spec else None, doc.language_id)
        if prefix is None:
            raise ActionFailed(f"flashls: no known comment syntax for language "
                               f"{doc.language_id!r}; nothing was inserted.")
        model, attempts = "", ()
        if not markdown:
            outcome = await self.runner.explain(job, on_attempt)
            markdown, model, attempts = outcome.markdown, outcome.model, outcome.attempts
        line = doc.position_at(job.start)[0]
        line_start = doc.starts[line]
        first = doc.line_text(line)
        indent = first[: len(first) - len(first.lstrip(" \t"))]
        comment = to_comment(markdown, prefix, indent, detect_newline(doc.text))
        return EditResult(self._planned(job, line_start, line_start, comment), model,
                          attempts)

    def still_current(self, edit: PlannedEdit) -> bool:
        """Whether the document is still at the version the edit was computed for."""
        pdoc = self.documents.get(edit.uri)
        return pdoc is not None and pdoc.doc.version == edit.version
