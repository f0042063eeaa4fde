"""LSP wiring for next edit suggestions (Copilot-compatible).

* request `textDocument/copilotInlineEdit` `{textDocument: {uri, version}, position}`
  → `{edits: [{text, range, textDocument: {uri, version}, command}]}` (ranges in the
  negotiated position encoding, possibly spanning lines; `[]` when nothing is worth
  suggesting, for a stale version, or when a newer request superseded this one);
* notification `textDocument/didShowInlineEdit` `{item: {command}}` and the commands
  `flashls.nextEdit.accepted` / `flashls.nextEdit.rejected` `[id]` feed the ledger;
* `flashls.nextEdit.stats` → the session's counts;
* advertised under `capabilities.experimental.nextEditSuggestions`.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from ..context.document import Document
from ..nextedit.history import Change
from ..nextedit.service import NextEdit, NextEditService
from .server import FlashServer  # a real import: pygls resolves handler annotations

log = logging.getLogger("flashls")

METHOD = "textDocument/copilotInlineEdit"
SHOWN = "textDocument/didShowInlineEdit"
ACCEPTED = "flashls.nextEdit.accepted"
REJECTED = "flashls.nextEdit.rejected"
STATS = "flashls.nextEdit.stats"


def _get(raw: Any, name: str) -> Any:
    """A field of a params object whether pygls gave us a dict or an object."""
    if isinstance(raw, dict):
        return raw.get(name)
    return getattr(raw, name, None)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_params(raw: Any) -> tuple[str, int | None, lsp.Position]:
    usage = f"{METHOD} takes {{textDocument: {{uri, version}}, position: {{line, character}}}}"
    document, position = _get(raw, "textDocument"), _get(raw, "position")
    uri = _get(document, "uri")
    line, character = _int(_get(position, "line")), _int(_get(position, "character"))
    if not isinstance(uri, str) or line is None or character is None or line < 0 \
            or character < 0:
        raise JsonRpcInvalidParams(usage)
    return uri, _int(_get(document, "version")), lsp.Position(line, character)


def _position(doc: Document, offset: int) -> dict:
    line, character = doc.position_at(offset)
    return {"line": line, "character": character}


def edit_json(doc: Document, edit: NextEdit) -> dict:
    return {"text": edit.text,
            "range": {"start": _position(doc, edit.start), "end": _position(doc, edit.end)},
            "textDocument": {"uri": edit.uri, "version": edit.version},
            "command": {"title": "flashls: accepted next edit", "command": ACCEPTED,
                        "arguments": [edit.id]}}


def change_of(changes: Any) -> Change | None:
    """One partial change as lines; None (work it out from the texts) otherwise."""
    if not changes or len(changes) != 1 or \
            not isinstance(changes[0], lsp.TextDocumentContentChangePartial):
        return None
    rng, text = changes[0].range, changes[0].text
    return Change(rng.start.line, rng.end.line,
                  text.count("\n") + text.count("\r") - text.count("\r\n"))


def suggestion_id(args: Any) -> str:
    if args and isinstance(args[0], str):
        return args[0]
    raise JsonRpcInvalidParams("takes [suggestionId]")


def register_next_edit(server: FlashServer) -> NextEditService:
    session = server.session

    verdicts: dict[str, tuple[Any, Any, bool]] = {}

    def allowed(uri: str) -> bool:
        """The one "never sent" rule: documents `Session.locate` refuses are never
        part of the history nor of a request. Asked once per document version and
        settings (it logs why it refuses: not on every keystroke)."""
        pdoc = session.documents.get(uri)
        key = (pdoc.doc.version if pdoc is not None else None, id(session.settings),
               uri in session.unsynced)
        cached = verdicts.get(uri)
        if cached is not None and cached[:2] == key[:2] and not key[2]:
            return cached[2]
        verdict = session.locate(uri, lsp.Position(0, 0)) is not None
        if len(verdicts) > 1024:
            verdicts.clear()
        verdicts[uri] = (key[0], key[1], verdict)
        return verdict

    def workspace():
        get = getattr(session.engine.context, "workspace", None)
        return get() if get is not None else None

    service = NextEditService(
        model=lambda: session.model, settings=lambda: session.settings,
        gate=lambda: session.engine.gate, events=session.events,
        documents=session.documents, allowed=allowed,
        allowed_as_context=lambda uri: allowed(uri) and session.never_sent(
            uri, as_context=True) is None,
        path_of=session.relative_path,
        workspace=workspace)
    server.flashls_next_edit = service  # for in-process tests and benchmarks
    server.experimental_capabilities["nextEditSuggestions"] = {
        "method": METHOD, "shownNotification": SHOWN,
        "acceptCommand": ACCEPTED, "rejectCommand": REJECTED}

    def on_edit(uri: str, before: str, pdoc: Any, changes: Any) -> None:
        service.note_change(uri, before, pdoc.doc.text, change_of(changes))

    server.edit_listeners.append(on_edit)

    @server.feature(METHOD)
    async def copilot_inline_edit(ls: FlashServer, params: Any) -> dict:
        uri, version, position = parse_params(params)
        located = session.locate(uri, position)
        if located is None:
            return {"edits": []}
        pdoc, offset = located
        outcome = await service.suggest(uri, version, offset)
        doc = pdoc.doc
        return {"edits": [edit_json(doc, e) for e in outcome.edits]}

    @server.feature(SHOWN)
    def did_show_inline_edit(ls: FlashServer, params: Any) -> None:
        command = _get(_get(params, "item"), "command")
        arguments = _get(command, "arguments")
        if isinstance(arguments, list) and arguments and isinstance(arguments[0], str):
            service.shown(arguments[0])

    @server.command(ACCEPTED)
    def accepted(ls: FlashServer, *args: Any) -> dict:
        return {"known": service.accepted(suggestion_id(args))}

    @server.command(REJECTED)
    def rejected(ls: FlashServer, *args: Any) -> dict:
        return {"known": service.rejected(suggestion_id(args))}

    @server.command(STATS)
    def stats(ls: FlashServer, *args: Any) -> dict:
        t = service.tally
        return {"requests": t.requests, "suggested": t.suggested, "shown": t.shown,
                "accepted": t.accepted, "rejected": t.rejected,
                "historyHunks": len(service.history.hunks)}

    return service
