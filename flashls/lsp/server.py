"""LSP wiring: translate protocol messages into pipeline calls, and nothing more.

Documents are synced into our own store (`ParsedDocument`: exact text in the
negotiated position encoding plus an incrementally edited tree-sitter tree), so the
builtin pygls text-sync handlers are bypassed.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from functools import partial
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import (JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest,
                              JsonRpcMethodNotFound)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from .. import __version__
from ..completion.service import Suggestion
from ..context.document import Document, PositionError
from ..context.syntax import ParsedDocument
from ..settings import SECTION
from .foreground import handling, handling_token
from .session import Session
from .warmup import warm_up, warm_workspace

log = logging.getLogger("flashls")

def _forward_to_user(method: str):
    """A text-sync handler that skips pygls' own workspace and calls ours."""

    @lsp_method(method)
    def handler(self, params):
        if (user_handler := self.fm.features.get(method)) is not None:
            yield user_handler, (params,), None

    return handler


class FlashProtocol(LanguageServerProtocol):
    lsp_text_document__did_open = _forward_to_user(lsp.TEXT_DOCUMENT_DID_OPEN)
    lsp_text_document__did_change = _forward_to_user(lsp.TEXT_DOCUMENT_DID_CHANGE)
    lsp_text_document__did_close = _forward_to_user(lsp.TEXT_DOCUMENT_DID_CLOSE)

    @lsp_method(lsp.INITIALIZE)
    def lsp_initialize(self, params: lsp.InitializeParams):
        """pygls builds the capabilities from registered features only; what has no
        feature of its own (next edits) is advertised under `experimental`."""
        result = yield from super().lsp_initialize(params)
        extra = getattr(self._server, "experimental_capabilities", None)
        if extra:
            current = result.capabilities.experimental
            result.capabilities.experimental = {
                **(current if isinstance(current, dict) else {}), **extra}
        return result

    def handle_message(self, message: Any) -> None:
        """A request holds big documents' background preparation back until it no
        longer needs the loop (`lsp.foreground.Foreground`)."""
        session = getattr(self._server, "session", None)
        if session is not None:
            session.gc_policy.note_activity()  # the quiet period starts again
        foreground = getattr(session, "foreground", None)
        kind = foreground_kind(message) if foreground is not None else None
        if kind is None:
            super().handle_message(message)
            return
        token = foreground.hold(kind)
        marked = handling.set(kind)  # what the handler's tasks start with (a copy)
        marked_token = handling_token.set(token)
        try:
            super().handle_message(message)
        finally:
            handling_token.reset(marked_token)
            handling.reset(marked)
            future = self._request_futures.get(message.id)
            if future is None or future.done():
                foreground.release(token)
            else:
                future.add_done_callback(lambda _: foreground.release(token))

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any,
                         args: Any = None, kwargs: Any = None) -> None:
        """pygls files a future under a fresh id for every notification and every
        step of its built-in handlers, and only a request's answer removes one: the
        rest stayed forever (about 1.5 KB per keystroke). Each entry now goes when its
        work is done; requests stay cancellable while they run."""
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            future.add_done_callback(partial(self._forget_future, msg_id))

    def _forget_future(self, msg_id: Any, future: Any) -> None:
        # a done-callback can run inside a loop over the dict (pygls' shutdown cancels
        # every pending future while iterating): remove the entry a moment later
        try:
            asyncio.get_running_loop().call_soon(self._drop_future, msg_id, future)
        except RuntimeError:  # no loop running: nobody is iterating either
            self._drop_future(msg_id, future)

    def _drop_future(self, msg_id: Any, future: Any) -> None:
        if self._request_futures.get(msg_id) is future:
            del self._request_futures[msg_id]

    def structure_message(self, data: dict[str, Any]):
        """A request whose params do not fit its method gets an Invalid Params answer,
        and a notification sent with an id an Invalid Request answer (not applied);
        pygls would only log the first and apply the second silently, and either way
        leave the client waiting forever for its answer."""
        try:
            message = super().structure_message(data)
        except JsonRpcException as err:
            if _is_request(data):
                try:
                    self._get_handler(data["method"])
                except JsonRpcMethodNotFound as unknown:
                    err = unknown  # say what is wrong: the method, not its params
                except Exception:
                    pass
                try:
                    self._send_response(data["id"], None, err.to_response_error())
                except Exception as send_err:  # never let the error path fail
                    log.debug("could not answer a malformed request: %s", send_err)
            raise
        if _is_request(data) and not hasattr(message, "id"):
            refusal = JsonRpcInvalidRequest(
                f"{data['method']} is a notification: send it without an id")
            self._send_response(data["id"], None, refusal.to_response_error())
            raise refusal
        return message


COMPLETION_METHODS = frozenset({lsp.TEXT_DOCUMENT_INLINE_COMPLETION, lsp.TEXT_DOCUMENT_COMPLETION})


def foreground_kind(message: Any) -> str | None:
    """The Foreground hold a message takes (its method), or None: requests hold the
    background preparation back until answered or their upstream call leaves;
    notifications do not, nor does an automatic completion (its debounce wait would
    hold the preparation back while the user types, and hides the slices anyway)."""
    method = getattr(message, "method", None)
    if method is None or getattr(message, "id", None) is None:
        return None
    if method in COMPLETION_METHODS:
        context = getattr(getattr(message, "params", None), "context", None)
        kind = getattr(context, "trigger_kind", None)
        if kind not in (lsp.InlineCompletionTriggerKind.Invoked,
                        lsp.CompletionTriggerKind.Invoked):
            return None
    return method


def freeze_startup_objects() -> None:
    """Everything imported and built at startup lives as long as the process; left in
    the collector's generations, every full collection rescans it (~70,000 objects,
    15-30 ms: a pause that lands on whichever keystroke triggers it)."""
    gc.collect()
    gc.freeze()


def start_gc_policy(session: Session) -> None:
    """Serving thresholds from now on, collections at idle moments (`gc_policy`)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # no loop (a handler called by hand): `check` by hand
        loop = None
    session.gc_policy.start(loop)


def _is_request(data: Any) -> bool:
    """A JSON-RPC message that expects an answer: a method and a usable id."""
    return (isinstance(data, dict) and "jsonrpc" in data and "method" in data
            and isinstance(data.get("id"), (int, str)) and not isinstance(data["id"], bool))


class FlashServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("flashls", __version__, protocol_cls=FlashProtocol,
                         text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.session = Session(self)
        self.experimental_capabilities: dict[str, Any] = {}
        # called after each didChange with (uri, text before, the ParsedDocument, changes)
        self.edit_listeners: list[Any] = []

    async def close_session(self) -> None:
        """The connection ended (end of input, a signal, a lost client): close what the
        session holds, the usage ledger included."""
        await self.session.close()
        self.close_session_sync()

    def close_session_sync(self) -> None:
        """What can be closed without the event loop (after `exit`): the ledger."""
        self.session.close_sinks()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Unexpected errors are logged, never shown as popups on every keystroke."""
        log.error("internal error (%s): %s", getattr(source, "__name__", source), error)


def _encoding(ls: FlashServer) -> str:
    raw = ls.workspace.position_encoding
    value = getattr(raw, "value", raw) or "utf-16"
    return value if value in ("utf-8", "utf-16", "utf-32") else "utf-16"


def _position(doc: Document, offset: int) -> lsp.Position:
    line, character = doc.position_at(offset)
    return lsp.Position(line=line, character=character)


def _range(doc: Document, start: int, end: int) -> lsp.Range:
    return lsp.Range(start=_position(doc, start), end=_position(doc, end))


def create_server() -> FlashServer:
    server = FlashServer()
    session = server.session

    # -- lifecycle --------------------------------------------------------------------
    @server.feature(lsp.INITIALIZE)
    def initialize(ls: FlashServer, params: lsp.InitializeParams) -> None:
        session.on_initialize(params)
        warm_up(ls.protocol)  # the first suggestion's one-off costs, paid here
        # here, not at `initialized`: the client waits for this answer anyway, while
        # right after `initialized` it sends the first didOpen (a full collection,
        # 100-200 ms, stood between them and the first suggestion)
        freeze_startup_objects()
        start_gc_policy(session)

    @server.feature(lsp.INITIALIZED)
    async def initialized(ls: FlashServer, params: lsp.InitializedParams) -> None:
        await session.pull_settings()
        warm_workspace(session)

    @server.feature(lsp.SHUTDOWN)
    async def shutdown(ls: FlashServer, params: Any) -> None:
        await session.close()

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: FlashServer,
                                       params: lsp.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and isinstance(settings.get(SECTION), dict):
            session.push_settings(settings[SECTION])
        else:  # VS Code style: "something changed, pull again"
            await session.pull_settings()

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(ls: FlashServer,
                           params: lsp.DidChangeWorkspaceFoldersParams) -> None:
        session.change_folders(params.event.added, params.event.removed)

    # -- documents ----------------------------------------------------------------------
    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: FlashServer, params: lsp.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        doc = Document(item.uri, item.text, item.language_id, item.version, _encoding(ls))
        session.open_document(ParsedDocument.open(doc, item.uri))

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: FlashServer, params: lsp.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        pdoc = session.documents.get(uri)
        if pdoc is None:
            log.warning("didChange for a document that is not open: %s", uri)
            return
        version = params.text_document.version
        if version is not None and pdoc.doc.version and version != pdoc.doc.version + 1:
            log.info("version gap on %s: %s -> %s", uri, pdoc.doc.version, version)
        before = pdoc.doc.text
        for change in params.content_changes:
            try:
                if isinstance(change, lsp.TextDocumentContentChangePartial):
                    rng = change.range
                    pdoc.apply_change((rng.start.line, rng.start.character),
                                      (rng.end.line, rng.end.character), change.text)
                else:
                    pdoc.replace_all(change.text)
            except PositionError as err:
                session.mark_unsynced(uri, f"invalid change range: {err}")
                return
        pdoc.doc.version = version if version is not None else pdoc.doc.version + 1
        session.note_edit(uri, params.content_changes)
        for listener in ls.edit_listeners:
            try:
                listener(uri, before, pdoc, params.content_changes)
            except Exception as err:  # a listener's bug must not break document sync
                log.error("edit listener failed on %s: %s", uri, err)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: FlashServer, params: lsp.DidSaveTextDocumentParams) -> None:
        session.engine.note_context_change()

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: FlashServer, params: lsp.DidCloseTextDocumentParams) -> None:
        session.close_document(params.text_document.uri)

    # -- completions ----------------------------------------------------------------------
    @server.feature(lsp.TEXT_DOCUMENT_INLINE_COMPLETION, lsp.InlineCompletionOptions())
    async def inline_completion(ls: FlashServer, params: lsp.InlineCompletionParams
                                ) -> lsp.InlineCompletionList | None:
        located = session.locate(params.text_document.uri, params.position)
        if located is None:
            return lsp.InlineCompletionList(items=[])
        pdoc, offset = located
        if session.completion_blocked(pdoc):
            return lsp.InlineCompletionList(items=[])
        invoked = params.context.trigger_kind == lsp.InlineCompletionTriggerKind.Invoked
        selected = params.context.selected_completion_info
        if selected is not None:
            return await _extend_selected(session, pdoc, selected, invoked)
        outcome = await session.engine.complete(pdoc.doc.uri, offset, invoked=invoked)
        return lsp.InlineCompletionList(
            items=[_inline_item(pdoc.doc, s) for s in outcome.suggestions])

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(resolve_provider=False))
    async def completion(ls: FlashServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        empty = lsp.CompletionList(is_incomplete=True, items=[])
        if session.client_has_inline_completion:
            return empty  # that client shows our ghost text already
        located = session.locate(params.text_document.uri, params.position)
        if located is None:
            return empty
        pdoc, offset = located
        if session.completion_blocked(pdoc):
            return empty
        invoked = (params.context is not None and params.context.trigger_kind
                   == lsp.CompletionTriggerKind.Invoked)
        outcome = await session.engine.complete(pdoc.doc.uri, offset, invoked=invoked)
        return lsp.CompletionList(is_incomplete=True, items=[
            _completion_item(pdoc.doc, s) for s in outcome.suggestions])

    # -- commands ---------------------------------------------------------------------------
    @server.command("flashls.accepted")
    def accepted(ls: FlashServer, *args: Any) -> None:
        session.note_accepted(str(args[0]) if args else "")

    from .partial_accept import METHOD as PARTIAL_ACCEPT, parse as parse_partial

    @server.feature(PARTIAL_ACCEPT)
    def did_partially_accept(ls: FlashServer, params: Any) -> None:
        accepted = parse_partial(params)
        if accepted is not None:
            session.note_partially_accepted(accepted.suggestion_id, accepted.chars)

    @server.command("flashls.toggleCompletions")
    def toggle(ls: FlashServer, *args: Any) -> dict:
        """No argument: everywhere; `{"languageId": id}`: that language only."""
        arg = args[0] if args else None
        language = arg.get("languageId") if isinstance(arg, dict) else None
        if language is not None and (not isinstance(language, str) or not language):
            raise JsonRpcInvalidParams("flashls.toggleCompletions takes no argument or "
                                       "{languageId: string}")
        return session.toggle_completions(language)

    @server.command("flashls.showSettings")
    def show_settings(ls: FlashServer, *args: Any) -> dict:
        return session.settings_view()

    @server.command("flashls.showContext")
    def show_context(ls: FlashServer, *args: Any) -> dict:
        return session.show_context(args[0] if args else None)

    from .usage_handlers import register_usage
    register_usage(server)  # usage ledger sink + flashls.showUsage
    from .actions_handlers import register_actions
    register_actions(server)  # code actions: rewrite, simplify, explain... + commands
    from .debug_handlers import register_debug
    register_debug(server)  # flashls.debugStats: counters and cache sizes (soak tests)
    from .nextedit_handlers import register_next_edit
    register_next_edit(server)  # textDocument/copilotInlineEdit + its notification, commands
    return server


async def _extend_selected(session, pdoc: ParsedDocument, selected: lsp.SelectedCompletionInfo,
                           invoked: bool) -> lsp.InlineCompletionList:
    """The editor's completion popup has an item selected: every suggestion must start
    with that item's text and replace the same range (LSP 3.18)."""
    doc = pdoc.doc
    start = doc.offset_at(selected.range.start.line, selected.range.start.character)
    end = max(start, doc.offset_at(selected.range.end.line, selected.range.end.character))
    outcome = await session.engine.complete(doc.uri, start, invoked=invoked,
                                            overlay=(start, end, selected.text))
    items = []
    for s in outcome.suggestions:
        replaced_after = s.end - s.start  # text after the virtual cursor the suggestion eats
        item_end = end + replaced_after
        if doc.position_at(item_end)[0] != doc.position_at(start)[0]:
            item_end = end
        items.append(lsp.InlineCompletionItem(
            insert_text=selected.text + s.text, range=_range(doc, start, item_end),
            filter_text=selected.text,
            command=lsp.Command(title="flashls: accepted", command="flashls.accepted",
                                arguments=[s.id])))
    return lsp.InlineCompletionList(items=items)


def _inline_item(doc: Document, s: Suggestion) -> lsp.InlineCompletionItem:
    end = s.end if doc.position_at(s.end)[0] == doc.position_at(s.start)[0] else s.start
    return lsp.InlineCompletionItem(
        insert_text=s.text, range=_range(doc, s.start, end),
        command=lsp.Command(title="flashls: accepted", command="flashls.accepted",
                            arguments=[s.id]))


def _completion_item(doc: Document, s: Suggestion) -> lsp.CompletionItem:
    first = s.text.strip().splitlines()[0] if s.text.strip() else s.text
    return lsp.CompletionItem(
        label=first[:60] + ("…" if len(first) > 60 or "\n" in s.text.strip() else ""),
        kind=lsp.CompletionItemKind.Snippet, detail=f"flashls ({s.model})",
        documentation=s.text,
        text_edit=lsp.TextEdit(range=_range(doc, s.start, s.end), new_text=s.text),
        insert_text_format=lsp.InsertTextFormat.PlainText, sort_text="0",
        command=lsp.Command(title="flashls: accepted",
                                               command="flashls.accepted", arguments=[s.id]))
