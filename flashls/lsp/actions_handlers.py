"""LSP wiring for code actions: listing, resolve, and the flashls.* action commands.

Listing (`textDocument/codeAction`) is instant and never calls the model; the edit is
computed on `codeAction/resolve`, or by the command an action carries for clients
without resolve support. Long work reports `$/progress` when the client allows it and
is cancellable three ways: `$/cancelRequest` on the request, and
`window/workDoneProgress/cancel` on its progress; the model stream closes with it.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from ..actions.intents import (DOCSTRING, EXPLAIN, EXPLAIN_COMMENT, FIX, INTENTS, KINDS,
                               REWRITE, SIMPLIFY, docstring_title, kind_matches)
from ..actions.pipeline import ActionFailed, ActionRunner
from ..actions.prompt import DiagnosticNote
from ..actions.service import ActionService, PlannedEdit, Target
from .server import FlashServer  # a real import: pygls resolves handler annotations

log = logging.getLogger("flashls")

REQUEST_FAILED = -32803  # LSP ErrorCodes.RequestFailed
PROGRESS_CREATE_TIMEOUT_S = 2.0  # a client that never answers delays the action this long
SUMMARY_CHARS = 300
SEVERITY = {1: "error", 2: "warning", 3: "information", 4: "hint"}

ACTION_COMMANDS = ("flashls.rewrite", "flashls.explain", "flashls.insertExplanation")


# -- argument parsing (commands and `data` arrive as plain JSON) ------------------------
def _position(raw: Any, what: str) -> tuple[int, int]:
    try:
        line, character = int(raw["line"]), int(raw["character"])
    except (TypeError, KeyError, ValueError) as err:
        raise JsonRpcInvalidParams(f"{what} must be {{line, character}}") from err
    if line < 0 or character < 0:
        raise JsonRpcInvalidParams(f"{what} must not be negative")
    return line, character


def _target(raw: Any, command: str) -> Target:
    if not isinstance(raw, dict) or not isinstance(raw.get("uri"), str) or \
            not isinstance(raw.get("range"), dict):
        raise JsonRpcInvalidParams(f"{command} takes {{uri, range: {{start, end}}, ...}}")
    rng = raw["range"]
    version = raw.get("version")
    return Target(raw["uri"], _position(rng.get("start"), "range.start"),
                  _position(rng.get("end"), "range.end"),
                  version if isinstance(version, int) and not isinstance(version, bool)
                  else None)


def _notes(raw: Any) -> tuple[DiagnosticNote, ...]:
    if not isinstance(raw, list):
        return ()
    notes = []
    for item in raw[:50]:
        if isinstance(item, dict) and isinstance(item.get("message"), str):
            try:
                line = int(item.get("line", 1))
            except (TypeError, ValueError):
                line = 1
            notes.append(DiagnosticNote(line, item["message"][:500],
                                        str(item.get("severity", "error")),
                                        str(item.get("source", "") or ""),
                                        str(item.get("code", "") or "")))
    return tuple(notes)


def _note_dict(note: DiagnosticNote) -> dict:
    return {"line": note.line, "message": note.message, "severity": note.severity,
            "source": note.source, "code": note.code}


def _range_dict(rng: lsp.Range) -> dict:
    return {"start": {"line": rng.start.line, "character": rng.start.character},
            "end": {"line": rng.end.line, "character": rng.end.character}}


def _lsp_range(start: tuple[int, int], end: tuple[int, int]) -> lsp.Range:
    return lsp.Range(lsp.Position(*start), lsp.Position(*end))


def diagnostics_in(diagnostics: list[lsp.Diagnostic], first: int, last: int
                   ) -> list[tuple[lsp.Diagnostic, DiagnosticNote]]:
    """The diagnostics touching lines first..last, with their notes for the prompt."""
    out = []
    for d in diagnostics:
        if d.range.end.line < first or d.range.start.line > last:
            continue
        code = "" if d.code is None else str(d.code)
        out.append((d, DiagnosticNote(max(1, d.range.start.line - first + 1), d.message,
                                      SEVERITY.get(int(d.severity or 1), "error"),
                                      d.source or "", code)))
    return out


# -- client abilities ---------------------------------------------------------------------
def client_resolves_edits(server: FlashServer) -> bool:
    caps = server.client_capabilities
    action = caps.text_document.code_action if caps and caps.text_document else None
    if action is None or not action.data_support or action.resolve_support is None:
        return False
    return "edit" in (action.resolve_support.properties or [])


def _document_changes(server: FlashServer) -> bool:
    caps = server.client_capabilities
    ws = caps.workspace if caps else None
    return bool(ws and ws.workspace_edit and ws.workspace_edit.document_changes)


def workspace_edit(server: FlashServer, edit: PlannedEdit) -> lsp.WorkspaceEdit:
    text_edit = lsp.TextEdit(range=_lsp_range(edit.start, edit.end), new_text=edit.new_text)
    if _document_changes(server):  # the client refuses it if the document moved on
        return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(
            text_document=lsp.OptionalVersionedTextDocumentIdentifier(
                uri=edit.uri, version=edit.version), edits=[text_edit])])
    return lsp.WorkspaceEdit(changes={edit.uri: [text_edit]})


# -- progress and cancellation --------------------------------------------------------------
class ActionProgress:
    """Work done progress for one action (a no-op when the client has none)."""

    def __init__(self, server: FlashServer, title: str):
        self.server = server
        self.title = title
        self.token: str | None = None
        self.outcome = "done"

    async def __aenter__(self) -> "ActionProgress":
        task = asyncio.current_task()
        caps = self.server.client_capabilities
        if not (caps and caps.window and caps.window.work_done_progress):
            return self
        token = f"flashls-action-{uuid.uuid4().hex[:12]}"
        try:
            await asyncio.wait_for(self.server.work_done_progress.create_async(token),
                                   PROGRESS_CREATE_TIMEOUT_S)
        except asyncio.CancelledError:
            raise
        except Exception as err:
            log.debug("no progress for %s: %s", self.title, err)
            return self
        self.token = token
        self.server.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(
            title=self.title, cancellable=True, message="starting"))
        cancelled = self.server.work_done_progress.tokens.get(token)
        if cancelled is not None and task is not None:
            cancelled.add_done_callback(lambda f: task.cancel() if f.cancelled() else None)
        return self

    def attempt(self, index: int, model: str) -> None:
        if self.token is None:
            return
        message = f"asking {model}" if index == 0 else f"retrying on {model}"
        self.server.work_done_progress.report(
            self.token, lsp.WorkDoneProgressReport(message=message))

    async def __aexit__(self, exc_type, exc, tb) -> None:
        if self.token is None:
            return
        if exc_type is asyncio.CancelledError:
            self.outcome = "cancelled"
        elif exc_type is not None:
            self.outcome = "failed"
        try:
            self.server.work_done_progress.end(self.token,
                                               lsp.WorkDoneProgressEnd(message=self.outcome))
        except Exception as err:
            log.debug("progress end failed: %s", err)
        self.server.work_done_progress.tokens.pop(self.token, None)


def follow_request_cancel(server: FlashServer) -> None:
    """Make `$/cancelRequest` cancel this command's task.

    pygls runs `workspace/executeCommand` through a generator: cancelling the request
    only cancels the outer future and leaves the command's task running (and the model
    stream open). Link the two."""
    task = asyncio.current_task()
    protocol = server.protocol
    msg_id = protocol.msg_id
    outer = getattr(protocol, "_request_futures", {}).get(msg_id) if msg_id is not None \
        else None
    if outer is None or task is None or outer is task:
        return
    outer.add_done_callback(lambda f: task.cancel() if f.cancelled() else None)


# -- registration ------------------------------------------------------------------------------
def register_actions(server: FlashServer) -> None:
    """Register code actions and their commands on `server`."""
    session = server.session
    runner = ActionRunner(model=lambda: session.model, settings=lambda: session.settings,
                          gate=lambda: session.engine.gate, events=session.events)
    service = ActionService(runner, documents=session.documents,
                            settings=lambda: session.settings, path_of=session.relative_path,
                            unsynced=lambda uri: uri in session.unsynced,
                            roots=lambda: session.roots,
                            boundary=getattr(session.engine.context, "boundary", None))
    server.flashls_actions = service  # for in-process tests

    def show(message: str, kind: lsp.MessageType = lsp.MessageType.Info) -> None:
        try:
            server.window_show_message(lsp.ShowMessageParams(type=kind, message=message))
        except Exception as err:
            log.debug("could not show message: %s", err)

    def failed(err: ActionFailed) -> JsonRpcException:
        """Say why (unless already said) and turn into the request's error."""
        if not err.told:
            show(str(err), lsp.MessageType.Error)
        log.warning("%s", err)
        return JsonRpcException(str(err), code=REQUEST_FAILED,
                                data={"attempts": [a.as_dict() for a in err.attempts]})

    def changed() -> ActionFailed:
        return ActionFailed("flashls: the document changed while the model was working; "
                            "nothing was changed. Try again.")

    # -- listing: instant, no model ------------------------------------------------------
    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
        code_action_kinds=list(KINDS), resolve_provider=True))
    def code_action(ls: FlashServer, params: lsp.CodeActionParams
                    ) -> list[lsp.CodeAction] | None:
        uri = params.text_document.uri
        rng = params.range
        target = Target(uri, (rng.start.line, rng.start.character),
                        (rng.end.line, rng.end.character))
        located = service.selection(target)
        if located is None:
            refused = service.not_sent(uri) if rng.start != rng.end else None
            if refused is not None:  # a selection in a document that is never sent: say why
                session.events.not_offered(uri, refused.code, refused.message)
            return None  # empty selection (a cursor move), disabled, unusable document
        pdoc, start, end = located
        first = pdoc.doc.position_at(start)[0]
        last = pdoc.doc.position_at(max(start, end - 1))[0]
        found = diagnostics_in(list(params.context.diagnostics or []), first, last)
        only = list(params.context.only) if params.context.only else None
        resolves = client_resolves_edits(ls)
        base = {"uri": uri, "range": _range_dict(rng), "version": pdoc.doc.version}
        spec = pdoc.spec
        actions: list[lsp.CodeAction] = []
        for intent in (REWRITE, SIMPLIFY, DOCSTRING, FIX, EXPLAIN, EXPLAIN_COMMENT):
            if not kind_matches(intent.kind, only) or (intent is FIX and not found):
                continue
            title = docstring_title(bool(spec and spec.body_docstrings)) \
                if intent is DOCSTRING else intent.title
            action = lsp.CodeAction(title=title, kind=intent.kind)
            notes = [_note_dict(n) for _, n in found] if intent is FIX else []
            if intent is FIX:
                action.diagnostics = [d for d, _ in found]
            if intent is REWRITE:  # the client asks for the instruction, then calls back
                action.command = lsp.Command(title=title, command="flashls.rewrite",
                                             arguments=[{"uri": uri, "range": base["range"]}])
            elif intent is EXPLAIN:
                action.command = lsp.Command(title=title, command="flashls.explain",
                                             arguments=[{"uri": uri, "range": base["range"]}])
            elif resolves:
                action.data = {"flashls": intent.id, **base, "diagnostics": notes}
            elif intent is EXPLAIN_COMMENT:
                action.command = lsp.Command(title=title, command="flashls.insertExplanation",
                                             arguments=[base])
            else:
                action.command = lsp.Command(title=title, command="flashls.rewrite", arguments=[
                    {**base, "intent": intent.id, "diagnostics": notes}])
            actions.append(action)
        return actions or None

    # -- resolve: the model runs here --------------------------------------------------
    @server.feature(lsp.CODE_ACTION_RESOLVE)
    async def resolve_code_action(ls: FlashServer, action: lsp.CodeAction) -> lsp.CodeAction:
        data = action.data
        if not isinstance(data, dict) or not isinstance(data.get("flashls"), str) or \
                data["flashls"] not in INTENTS:
            return action  # not ours
        intent = INTENTS[data["flashls"]]
        target = _target(data, "codeAction/resolve data")
        try:
            async with ActionProgress(ls, action.title) as progress:
                if intent is EXPLAIN_COMMENT:
                    result = await service.explain_comment(target, on_attempt=progress.attempt)
                else:
                    result = await service.rewrite(target, intent.id,
                                                   diagnostics=_notes(data.get("diagnostics")),
                                                   on_attempt=progress.attempt)
            if not _document_changes(ls) and not service.still_current(result.edit):
                raise changed()
        except ActionFailed as err:
            raise failed(err) from None
        action.edit = workspace_edit(ls, result.edit)
        if result.model:
            action.title = f"{action.title} ({result.model})"
        action.data = {**data, "model": result.model,
                       "attempts": [a.as_dict() for a in result.attempts]}
        return action

    # -- commands ----------------------------------------------------------------------
    async def apply(ls: FlashServer, edit: PlannedEdit, label: str) -> tuple[bool, str]:
        if not service.still_current(edit):
            raise changed()
        response = await ls.workspace_apply_edit_async(lsp.ApplyWorkspaceEditParams(
            edit=workspace_edit(ls, edit), label=label))
        return bool(response and response.applied), (response.failure_reason or "") \
            if response else "no answer from the editor"

    @server.command("flashls.rewrite")
    async def rewrite(ls: FlashServer, *args: Any) -> dict:
        """{uri, range, instruction} (or {uri, range, intent, diagnostics?}): compute a
        rewrite and apply it with workspace/applyEdit."""
        follow_request_cancel(ls)
        raw = args[0] if args else None
        target = _target(raw, "flashls.rewrite")
        instruction = raw.get("instruction")
        intent_id = raw.get("intent") or "rewrite"
        if intent_id not in INTENTS or not INTENTS[intent_id].edits:
            raise JsonRpcInvalidParams(f"flashls.rewrite: unknown intent {intent_id!r}")
        if instruction is not None and not isinstance(instruction, str):
            raise JsonRpcInvalidParams("flashls.rewrite: instruction must be a string")
        title = INTENTS[intent_id].title
        try:
            async with ActionProgress(ls, title.rstrip("…")) as progress:
                result = await service.rewrite(target, intent_id,
                                               instruction=instruction or "",
                                               diagnostics=_notes(raw.get("diagnostics")),
                                               on_attempt=progress.attempt)
            applied, reason = await apply(ls, result.edit,
                                          f"{title.rstrip('…')} ({result.model})")
        except ActionFailed as err:
            raise failed(err) from None
        if not applied:
            show(f"flashls: the editor did not apply the edit: {reason or 'no reason given'}",
                 lsp.MessageType.Warning)
        return {"applied": applied, "model": result.model,
                "attempts": [a.as_dict() for a in result.attempts],
                **({"failureReason": reason} if not applied else {})}

    @server.command("flashls.explain")
    async def explain(ls: FlashServer, *args: Any) -> dict:
        """{uri, range} -> {markdown, model}; also a short window/showMessage."""
        follow_request_cancel(ls)
        raw = args[0] if args else None
        target = _target(raw, "flashls.explain")
        try:
            async with ActionProgress(ls, EXPLAIN.title) as progress:
                outcome = await service.explain(target, on_attempt=progress.attempt)
        except ActionFailed as err:
            raise failed(err) from None
        show(f"flashls ({outcome.model}): {summary(outcome.markdown)}")
        args_out = {"uri": raw["uri"], "range": raw["range"], "markdown": outcome.markdown}
        return {"markdown": outcome.markdown, "model": outcome.model,
                "attempts": [a.as_dict() for a in outcome.attempts],
                "insertCommand": {"title": "Insert as comment",
                                  "command": "flashls.insertExplanation",
                                  "arguments": [args_out]}}

    @server.command("flashls.insertExplanation")
    async def insert_explanation(ls: FlashServer, *args: Any) -> dict:
        """{uri, range, markdown?}: insert the explanation (computed when absent) as a
        comment above the selection."""
        follow_request_cancel(ls)
        raw = args[0] if args else None
        target = _target(raw, "flashls.insertExplanation")
        markdown = raw.get("markdown")
        if markdown is not None and not isinstance(markdown, str):
            raise JsonRpcInvalidParams("flashls.insertExplanation: markdown must be a string")
        try:
            async with ActionProgress(ls, EXPLAIN_COMMENT.title) as progress:
                result = await service.explain_comment(target, markdown or None,
                                                       on_attempt=progress.attempt)
            applied, reason = await apply(ls, result.edit, "flashls: Insert explanation")
        except ActionFailed as err:
            raise failed(err) from None
        return {"applied": applied, "model": result.model,
                **({"failureReason": reason} if not applied else {})}


def summary(markdown: str, limit: int = SUMMARY_CHARS) -> str:
    """The first prose paragraph of an explanation, shortened for a notification."""
    paragraphs = [p.strip() for p in markdown.replace("\r\n", "\n").split("\n\n")]
    prose = [p for p in paragraphs if p and not p.startswith(("#", "```", "~~~"))]
    text = " ".join((prose[0] if prose else markdown.strip()).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
