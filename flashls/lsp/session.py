"""Per-connection state: settings, open documents, the engines, and what the user is told.

The server module stays a list of thin handlers; everything stateful they touch lives
here, so it can be read (and tested) in one place.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from ..completion.factory import build_engine
from ..completion.service import CompletionEngine, Suggestion
from ..context.background import (NEIGHBORS, idle_reparse_steps, idle_reparse_wanted,
                                  needs_background, preparation_steps)
from ..context.document import PositionError
from ..context.never_sent import NotSent, never_sent
from ..context.syntax import ParsedDocument
from ..model import streaming
from ..model.catalog import KEY_REQUIRED
from ..model.network import NetworkSettingError, client_kwargs
from ..model.providers import ModelClient, config_from_settings
from ..model.types import AuthError, BalanceError, ConnectError, ModelError, ModelResult
from ..settings import SECTION, Settings, apply_settings, to_editor_dict
from .foreground import Foreground, handling, handling_token
from .gc_policy import GcPolicy, enabled_by_environment
from .logs import configure_logging

if TYPE_CHECKING:
    from .server import FlashServer

log = logging.getLogger("flashls")

CONFIG_PULL_TIMEOUT_S = 5.0
# why nothing is offered for a document (`reason.code` of `flashls/status`)
REASON_CODES = frozenset({"language_disabled", "excluded", "credential_file",
                          "outside_workspace", "too_large", "no_api_key", "backing_off",
                          "offline"})
ERROR_REASONS = frozenset({"no_api_key", "backing_off", "offline"})
IDLE_PARSE_S = 0.12  # a pause this long after an edit reparses the document in the background
# an upstream call started (completion, action, next edit): the background preparation
# goes on once its body is written (`model.streaming.on_request_sent`), or this long
# after it started if the transport does not say
UPSTREAM_SEND_S = 0.25


def _nothing() -> None:
    return None


class Messages:
    """`window/showMessage`, at most once per distinct text until `forget()`."""

    def __init__(self, server: "FlashServer"):
        self.server = server
        self.shown: set[str] = set()

    def once(self, text: str, kind: lsp.MessageType = lsp.MessageType.Warning) -> None:
        if text in self.shown:
            return
        self.shown.add(text)
        log.warning("%s", text)
        try:
            self.server.window_show_message(lsp.ShowMessageParams(type=kind, message=text))
        except Exception as err:  # no client attached (tests, shutdown)
            log.debug("could not show message: %s", err)

    def forget(self) -> None:
        self.shown.clear()


class StatusEvents:
    """Engine events → `flashls/status` notifications and user messages."""

    def __init__(self, session: "Session"):
        self.session = session
        self.in_flight = 0
        self.last_latency_ms: float | None = None
        self.reason: dict | None = None  # the reason last sent, until a status without one
        self.sinks: list[Any] = []  # e.g. the usage ledger: same methods as this class
        self._thinking_due = False  # a request started and "thinking" not told yet
        self._thinking_timer: Any = None
        self.thinking_fallback_s = UPSTREAM_SEND_S

    def _notify(self, state: str, message: str = "", reason: dict | None = None) -> None:
        params: dict[str, Any] = {"state": state, "message": message}
        if reason is not None:
            params["reason"] = reason
        self.reason = reason
        if self.last_latency_ms is not None:
            params["lastLatencyMs"] = round(self.last_latency_ms)
        for sink in self.sinks:
            cost = getattr(sink, "session_cost_usd", None)
            if cost is not None:
                params["sessionCostUsd"] = round(cost, 6)
        try:
            self.session.server.protocol.notify("flashls/status", params)
        except Exception as err:
            log.debug("status notification failed: %s", err)

    def not_offered(self, uri: str, code: str, message: str) -> None:
        """Tell the editor why nothing is offered for `uri` (one of REASON_CODES).
        Said once per document and cause, not on every keystroke."""
        if code not in REASON_CODES:
            raise ValueError(f"unknown status reason {code!r}")
        if self.reason is not None and (self.reason.get("uri"), self.reason["code"]) == (
                uri, code):
            return
        log.info("nothing offered for %s: %s", uri, message)
        state = "error" if code in ERROR_REASONS else "disabled"
        self._notify(state, message, {"code": code, "message": message, "uri": uri})

    def offered(self) -> None:
        """A request goes ahead: a reason shown before no longer holds."""
        if self.reason is not None:
            self._notify("ready")

    def request_started(self, kind: str, model: str) -> None:
        """"thinking" is told once the body has left (`request_sent`): written here,
        the notification woke the editor's process just as the request was to go, and
        on a loaded machine the send then waited for a core (bigfiles' typing tail)."""
        self.in_flight += 1
        self.session.foreground.release_all(UPSTREAM_SEND_S)
        for sink in self.sinks:
            sink.request_started(kind, model)
        self._thinking_due = True
        if self._thinking_timer is None:  # a transport that never reports its send
            try:
                self._thinking_timer = asyncio.get_running_loop().call_later(
                    self.thinking_fallback_s, self.request_sent)
            except RuntimeError:  # no loop (a synchronous caller): the answer tells it
                pass

    def request_sent(self) -> None:
        """An upstream request's body is on the wire: now the editor may be told."""
        if self._thinking_timer is not None:
            self._thinking_timer.cancel()
            self._thinking_timer = None
        if self._thinking_due:
            self._thinking_due = False
            self._notify("thinking")

    def request_finished(self, kind: str, result: ModelResult | None,
                         error: ModelError | None, outcome: str) -> None:
        self.request_sent()  # (not reported by the transport: "thinking" still first)
        self.in_flight = max(0, self.in_flight - 1)
        for sink in self.sinks:
            sink.request_finished(kind, result, error, outcome)
        if result is not None:
            self.last_latency_ms = result.total_s * 1000.0
        if error is not None:
            self.session.upstream_failed(error)
            reason = None
            if isinstance(error, ConnectError):
                reason = {"code": "offline", "message": f"{error}. Check flashls.baseUrl, "
                          "flashls.proxy and your network (flashls doctor)."}
            self._notify("error", str(error), reason)
        elif self.in_flight == 0:
            self._notify("ready")

    def suggestion_shown(self, suggestion: Suggestion) -> None:
        for sink in self.sinks:
            sink.suggestion_shown(suggestion)


class Session:
    def __init__(self, server: "FlashServer"):
        self.server = server
        self.settings = Settings()
        self.documents: dict[str, ParsedDocument] = {}
        self.unsynced: dict[str, str] = {}
        self._idle_parses: dict[str, asyncio.TimerHandle] = {}
        self._preparing: dict[str, asyncio.Task] = {}  # big documents' first parse/analysis
        self._reparsing: dict[str, asyncio.Task] = {}  # big documents' idle reparse, sliced
        self.foreground = Foreground()  # requests being answered go before preparations
        # collections between keystrokes, not on them (started at `initialize`)
        self.gc_policy = GcPolicy(busy=self.serving, loop_busy=self._loop_needed,
                                  enabled=enabled_by_environment())
        NEIGHBORS.on_added = self._ensure_neighbor_analysis  # left by requests
        self._neighbor_task: asyncio.Task | None = None
        streaming.on_request_sent = self._request_sent
        streaming.on_answer_started = self._answer_hold
        self.roots: list[Path] = []
        self.client_has_inline_completion = False
        self.client_pulls_configuration = False
        self._settings_pushes = 0  # didChangeConfiguration with settings: see pull_settings
        self.language_toggles: dict[str, bool] = {}  # flashls.toggleCompletions {languageId}
        self.messages = Messages(server)
        self.events = StatusEvents(self)
        self.model = ModelClient.from_settings(self.settings, self.settings.effective_api_key())
        self.engine: CompletionEngine = build_engine(
            self.model, settings=lambda: self.settings, documents=self.documents,
            roots=lambda: self.roots, path_of=self.relative_path, events=self.events)
        configure_logging(server, self.settings.log_level, self.settings.effective_api_key)

    def _request_sent(self) -> None:
        """An upstream request's body left: its hold goes, and the collector may
        take the young generations while the model answers."""
        self.foreground.release_all()
        self.events.request_sent()
        self.gc_policy.note_request_sent()

    def _loop_needed(self) -> bool:
        """A request needs the loop now, or waits in its debounce to be built (its
        job started, its upstream call not yet): no young collection then."""
        jobs = len(getattr(self.engine, "_jobs", ()))
        return self.foreground.busy() or jobs > self.events.in_flight

    def serving(self) -> bool:
        """Something is being served: a request holds the loop or waits upstream, or
        a background preparation or neighbor analysis runs (no idle collection)."""
        return (self.foreground.busy() or self.events.in_flight > 0
                or bool(self._preparing) or bool(self._reparsing)
                or self._neighbor_task is not None)

    def _answer_hold(self) -> Any:
        """A model answer is arriving for a request that holds the foreground (an
        invoked completion, an action): the background preparation waits until the
        request is answered (at most `Foreground.max_hold_s`; until the stream is
        closed when the request's own hold is gone), so its chunks, the clean-up and
        the editor's answer are not each behind a slice of background work (after
        the stream closed they were: 10 slices on a loaded machine). Answers to
        automatic completions do not hold it: while the user types they would be
        back to back, and the preparation would never get its turn."""
        if handling.get() is None:
            return _nothing
        request = handling_token.get()
        if request is not None and self.foreground.hold_again(request, "answer"):
            return _nothing  # held until the request is answered (`handle_message`)
        token = self.foreground.hold("answer")
        return lambda: self.foreground.release(token)

    # -- lifecycle ----------------------------------------------------------------------
    def on_initialize(self, params: lsp.InitializeParams) -> None:
        caps = params.capabilities
        text_caps = caps.text_document
        self.client_has_inline_completion = bool(
            text_caps and getattr(text_caps, "inline_completion", None) is not None)
        self.client_pulls_configuration = bool(caps.workspace and caps.workspace.configuration)
        folders = [f.uri for f in (params.workspace_folders or [])]
        if not folders and params.root_uri:
            folders = [params.root_uri]
        if not folders and params.root_path:
            folders = [Path(params.root_path).as_uri()]
        self.roots = [Path(p).resolve() for p in (to_fs_path(u) for u in folders) if p]
        if params.initialization_options is not None:
            raw = params.initialization_options
            if isinstance(raw, dict) and isinstance(raw.get(SECTION), dict):
                raw = raw[SECTION]
            self.update_settings(raw, source="initializationOptions")

    async def pull_settings(self) -> None:
        """Read the settings from the editor. If the editor pushed its settings while
        the question was out, its answer is the same or older than the push (it may have
        been written before the push but resumed here after it): the push stands."""
        if not self.client_pulls_configuration:
            return
        pushes = self._settings_pushes
        try:
            result = await asyncio.wait_for(
                self.server.workspace_configuration_async(lsp.ConfigurationParams(
                    items=[lsp.ConfigurationItem(section=SECTION)])),
                CONFIG_PULL_TIMEOUT_S)
        except Exception as err:
            log.warning("could not read settings from the editor: %s", err)
            return
        if self._settings_pushes != pushes:
            log.info("settings pushed while they were read: keeping the pushed ones")
            return
        if result and isinstance(result[0], dict):
            self.update_settings(result[0], source="workspace/configuration")

    def push_settings(self, raw: Any) -> None:
        """The editor sent its whole settings object (`didChangeConfiguration`)."""
        self._settings_pushes += 1
        self.update_settings(raw, source="didChangeConfiguration")

    def update_settings(self, raw: Any, *, source: str) -> None:
        previous = self.settings
        settings, errors = apply_settings(previous, raw)
        settings = self._with_language_toggles(settings)
        for err in errors:
            self.messages.once(f"{err}; keeping the previous value.")
        self.settings = settings
        key = settings.effective_api_key()
        if (settings.proxy, settings.ca_file) != (previous.proxy, previous.ca_file):
            settings = self._checked_network(settings, previous)
            self.settings = settings
        self.model.apply(config_from_settings(settings, key))  # provider, URL, key, headers, proxy, CA
        if settings != previous:
            self.engine.gate.reset()
            self.engine.cache.clear()
            self.messages.forget()
            for err in errors:  # keep remembering what was already said
                self.messages.shown.add(f"{err}; keeping the previous value.")
        configure_logging(self.server, settings.log_level, settings.effective_api_key)
        log.info("settings updated from %s", source)

    def _checked_network(self, settings: Settings, previous: Settings) -> Settings:
        """Changed `flashls.proxy` / `flashls.caFile`: the model client rebuilds its HTTP
        client with them (ModelClient.apply); a CA file that cannot be loaded keeps the
        previous network settings (and says so)."""
        import dataclasses
        try:
            client_kwargs(settings.proxy, settings.ca_file)
        except NetworkSettingError as err:
            self.messages.once(f"{err}; keeping the previous value.")
            return dataclasses.replace(settings, proxy=previous.proxy,
                                       ca_file=previous.ca_file)
        log.info("model requests now use proxy %s, CA %s", settings.proxy or "(environment)",
                 settings.ca_file or "(environment)")
        return settings

    async def close(self) -> None:
        self.gc_policy.stop()
        for uri in list(self.documents):
            self._cancel_preparation(uri)
            self._cancel_idle_parse(uri)
            self.engine.forget(uri)
        if self._neighbor_task is not None:
            self._neighbor_task.cancel()
        await self.model.aclose()

    def close_sinks(self) -> None:
        """Write out and close the usage ledger (and any other sink); idempotent."""
        for sink in self.events.sinks:
            close = getattr(sink, "close", None)
            if close is None:
                continue
            try:
                close()
            except Exception as err:  # on the way out: log, never raise
                log.warning("closing %s: %s", type(sink).__name__, err)

    def change_folders(self, added: Iterable[lsp.WorkspaceFolder],
                       removed: Iterable[lsp.WorkspaceFolder]) -> None:
        gone = {Path(to_fs_path(f.uri) or "").resolve() for f in removed}
        self.roots = [r for r in self.roots if r not in gone]
        self.roots += [Path(to_fs_path(f.uri) or "").resolve() for f in added]
        self.engine.note_context_change()

    # -- documents --------------------------------------------------------------------------
    def open_document(self, pdoc: ParsedDocument) -> None:
        uri = pdoc.doc.uri
        pdoc.background = True  # a big one is prepared in steps, never on a request
        self.documents[uri] = pdoc
        self.unsynced.pop(uri, None)
        self.engine.note_context_change()
        self._cancel_preparation(uri)  # reopened: the old text's work is void
        self._ensure_prepared(uri)
        self._schedule_idle_parse(uri)  # the first parse is a full one: not on a request

    def close_document(self, uri: str) -> None:
        self._cancel_idle_parse(uri)
        self._cancel_preparation(uri)
        self.documents.pop(uri, None)
        self.unsynced.pop(uri, None)
        self.engine.forget(uri)
        self.engine.note_context_change()

    def mark_unsynced(self, uri: str, why: str) -> None:
        """The client sent an edit we cannot apply: stop using this text until reopened."""
        log.error("%s: %s; completions paused for this file until it is reopened", uri, why)
        self.unsynced[uri] = why

    def note_edit(self, uri: str, changes: Any) -> None:
        last = changes[-1] if changes else None
        rng = getattr(last, "range", None)
        self.engine.note_edit(uri, rng.start.line if rng is not None else None)
        self._ensure_prepared(uri)  # after a full replacement of a big document
        self._schedule_idle_parse(uri)

    def _ensure_prepared(self, uri: str) -> None:
        """Start the background preparation of a big document that needs one."""
        pdoc = self.documents.get(uri)
        if pdoc is None or uri in self._preparing or not needs_background(pdoc):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._preparing[uri] = loop.create_task(self._prepare_in_background(uri))

    async def _prepare_in_background(self, uri: str) -> None:
        """Run `preparation_steps` in short slices, letting every other message be
        handled between two of them, until the document is ready (or gone).

        The cyclic garbage collector is paused meanwhile: a first analysis makes
        hundreds of thousands of objects, and the full collections they trigger
        rescan all of them (pauses of 100-900 ms, longer than any slice). Afterwards
        the survivors are frozen, as at startup: they are long-lived tables, freed by
        reference counting when replaced, and never worth rescanning."""
        self.gc_policy.pause()
        turn = self.foreground.turn
        try:
            await turn()  # the request right behind the didOpen comes first
            while (pdoc := self.documents.get(uri)) is not None and \
                    uri not in self.unsynced and needs_background(pdoc):
                for _ in preparation_steps(pdoc):
                    await asyncio.sleep(0)
                    await turn()
                await asyncio.sleep(0)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a background nicety: never an error for the user
            log.debug("background preparation of %s failed: %s", uri, err)
        finally:
            self.gc_policy.resume()
            if self._preparing.get(uri) is asyncio.current_task():
                del self._preparing[uri]

    def _ensure_neighbor_analysis(self) -> None:
        if self._neighbor_task is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._neighbor_task = loop.create_task(self._analyze_neighbors())

    async def _analyze_neighbors(self) -> None:
        """Neighbor files the requests left for later (`NEIGHBORS`), parsed and
        analyzed in slices after the foreground; a later request finds them cached."""
        turn = self.foreground.turn
        try:
            while (steps := NEIGHBORS.next_steps()) is not None:
                try:
                    await turn()
                    for _ in steps:
                        await asyncio.sleep(0)
                        await turn()
                except asyncio.CancelledError:
                    raise
                except Exception as err:  # a background nicety: never an error for the user
                    log.debug("background analysis of a neighbor failed: %s", err)
        finally:
            self._neighbor_task = None

    def _cancel_preparation(self, uri: str) -> None:
        task = self._preparing.pop(uri, None)
        if task is not None:
            task.cancel()

    def _schedule_idle_parse(self, uri: str) -> None:
        """Edits only mark the tree stale; the reparse waits for a request. On a large
        file with a broken line it can take tens of ms (tree-sitter's error recovery),
        which an explicit invocation after a pause would wait for. A pause reparses now."""
        self._cancel_idle_parse(uri)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._idle_parses[uri] = loop.call_later(IDLE_PARSE_S, self._idle_parse, uri)

    def _cancel_idle_parse(self, uri: str) -> None:
        handle = self._idle_parses.pop(uri, None)
        if handle is not None:
            handle.cancel()
        task = self._reparsing.pop(uri, None)
        if task is not None:
            task.cancel()

    def _idle_parse(self, uri: str) -> None:
        self._idle_parses.pop(uri, None)
        pdoc = self.documents.get(uri)
        if pdoc is None or uri in self.unsynced:
            return
        if idle_reparse_wanted(pdoc):  # a big one: the whole tree's reparse in slices
            self._reparsing[uri] = asyncio.get_running_loop().create_task(
                self._reparse_in_background(uri, pdoc))
            return
        self._prepare_now(uri)

    async def _reparse_in_background(self, uri: str, pdoc: ParsedDocument) -> None:
        """The idle reparse of a big document in slices behind the foreground, then
        the version's analysis (an incremental update) as `_prepare_now` does it."""
        turn = self.foreground.turn
        try:
            await turn()
            for _ in idle_reparse_steps(pdoc):
                await asyncio.sleep(0)
                await turn()
            if self.documents.get(uri) is pdoc and not pdoc.syntax.dirty:
                self._prepare_now(uri)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a background nicety: never an error for the user
            log.debug("background reparse of %s failed: %s", uri, err)
        finally:
            if self._reparsing.get(uri) is asyncio.current_task():
                del self._reparsing[uri]

    def _prepare_now(self, uri: str) -> None:
        try:
            self.engine.prepare(uri)  # the tree, then the per-version analysis
        except Exception as err:  # a background nicety: never an error for the user
            log.debug("idle reparse of %s failed: %s", uri, err)

    def locate(self, uri: str, position: lsp.Position) -> tuple[ParsedDocument, int] | None:
        """The document and string offset for a request, or None when we must not answer."""
        pdoc = self.documents.get(uri)
        if pdoc is None:
            log.info("request for a document that is not open: %s", uri)
            return None
        if uri in self.unsynced:
            return None
        refused = self.never_sent(uri)
        if refused is not None:
            log.info("not completing in %s: %s", uri, refused.message)
            self.events.not_offered(uri, refused.code, refused.message)
            return None
        try:
            return pdoc, pdoc.doc.offset_at(position.line, position.character)
        except PositionError as err:
            log.info("invalid position in %s: %s", uri, err)
            return None

    def completion_blocked(self, pdoc: ParsedDocument) -> bool:
        """Whether a completion must not be asked for in this document now; the
        editor is told why (`flashls/status` reason). Clears an old reason otherwise."""
        uri, language = pdoc.doc.uri, pdoc.doc.language_id
        settings = self.settings
        if not settings.completion.enable:
            return True  # the user turned everything off: the state says so already
        if not settings.language_enabled(language):
            self.events.not_offered(uri, "language_disabled", f"completions are off for "
                                    f"{language} (flashls.completion.languages)")
            return True
        if settings.provider in KEY_REQUIRED and not settings.effective_api_key():
            self.events.not_offered(uri, "no_api_key", "no API key: set DEEPSEEK_API_KEY "
                                    "or flashls.apiKey (flashls doctor checks it)")
            return True
        blocked = self.engine.gate.blocked_reason
        if blocked is not None:
            code = "no_api_key" if isinstance(blocked, AuthError) else "backing_off"
            self.events.not_offered(uri, code, " ".join(
                filter(None, (f"{blocked}.", blocked.user_action))))
            return True
        closed = self.engine.gate.closed_reason()
        if closed:
            self.events.not_offered(uri, "backing_off", closed)
            return True
        self.events.offered()
        return False

    def never_sent(self, uri: str, as_context: bool = False) -> NotSent | None:
        """The one "document never sent" rule (flashls.context.never_sent) for an open
        document, with this session's workspace, excludes and outside-workspace policy.
        `as_context`: asked for a document other than the one being edited."""
        pdoc = self.documents.get(uri)
        if pdoc is None:
            return None
        try:
            workspace = self.engine.context.workspace()
        except Exception:  # no workspace-aware context, or invalid globs (told elsewhere)
            workspace = None
        return never_sent(uri, pdoc.doc.text, workspace=workspace,
                          too_large=pdoc.doc.too_large_or_binary(),
                          user_excludes=self.settings.exclude,
                          outside_workspace=self.settings.completion.outside_workspace,
                          as_context=as_context)

    def excluded(self, uri: str) -> bool:
        """Whether the edited document's text must never be sent (any reason)."""
        return self.never_sent(uri) is not None

    def relative_path(self, uri: str) -> str:
        path = to_fs_path(uri) or uri
        for root in self.roots:
            try:
                return Path(path).resolve().relative_to(root).as_posix()
            except ValueError:
                continue
        return Path(path).name

    # -- upstream trouble -------------------------------------------------------------------
    def upstream_failed(self, error: ModelError) -> None:
        if isinstance(error, (AuthError, BalanceError)):
            self.messages.once(f"flashls: {error}. {error.user_action} Completions are paused "
                               "until the settings change.", lsp.MessageType.Error)
        elif isinstance(error, ConnectError):
            self.messages.once(f"flashls: {error}. Check flashls.baseUrl and your network.")
        elif error.user_action:
            self.messages.once(f"flashls: {error}. {error.user_action}")
        else:
            log.info("upstream: %s", error)

    # -- commands ---------------------------------------------------------------------------
    def note_accepted(self, suggestion_id: str) -> None:
        self.engine.accepted(suggestion_id)
        for sink in self.events.sinks:
            accept = getattr(sink, "suggestion_accepted", None)
            if accept:
                accept(suggestion_id)

    def note_partially_accepted(self, suggestion_id: str, chars: int) -> None:
        for sink in self.events.sinks:
            partial = getattr(sink, "suggestion_partially_accepted", None)
            if partial:
                partial(suggestion_id, chars)

    def _with_language_toggles(self, settings: Settings) -> Settings:
        if not self.language_toggles:
            return settings
        import dataclasses
        completion = settings.completion
        return dataclasses.replace(settings, completion=dataclasses.replace(
            completion, languages={**completion.languages, **self.language_toggles}))

    def toggle_completions(self, language_id: str | None = None) -> dict:
        """Flip completions everywhere, or for one language. A language's switch holds
        for this session, over `completion.languages` (settings are not written back);
        the global one until the editor's settings change again."""
        import dataclasses
        current = self.settings.completion
        if language_id:
            enabled = not self.settings.language_enabled(language_id)
            self.language_toggles[language_id] = enabled
            completion = dataclasses.replace(
                current, languages={**current.languages, language_id: enabled})
        else:
            enabled = not current.enable
            completion = dataclasses.replace(current, enable=enabled)
        self.settings = dataclasses.replace(self.settings, completion=completion)
        self.engine.cache.clear()
        if language_id:
            self.events._notify("ready" if enabled else "disabled",
                                f"completions {'on' if enabled else 'off'} for {language_id}")
            return {"enabled": completion.enable, "languageId": language_id,
                    "languageEnabled": enabled}
        self.events._notify("ready" if enabled else "disabled")
        return {"enabled": enabled}

    def settings_view(self) -> dict:
        return to_editor_dict(self.settings)

    def show_context(self, arg: Any) -> dict:
        usage = "flashls.showContext takes {uri, position: {line, character}}"
        pos = arg.get("position") if isinstance(arg, dict) else None
        try:
            uri, line, character = arg["uri"], pos["line"], pos["character"]
        except (KeyError, TypeError):
            raise JsonRpcInvalidParams(usage) from None
        if not isinstance(uri, str) or not all(
                isinstance(n, int) and not isinstance(n, bool) and n >= 0
                for n in (line, character)):
            raise JsonRpcInvalidParams(usage)
        located = self.locate(uri, lsp.Position(line, character))
        if located is None:
            raise JsonRpcInvalidParams(f"flashls.showContext: no open, usable document at {uri}")
        pdoc, offset = located
        return self.engine.preview(pdoc.doc.uri, offset)
