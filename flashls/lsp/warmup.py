"""Pay the first request's one-off costs at `initialize`, not on the first suggestion.

Measured on the first completion after opening a file in a fresh server (before this,
30-90 ms of it under load): the HTTP client imports its event-loop backend
(anyio's asyncio module, ~25 ms) on its first connection, and lsprotocol's converter
generates the (un)structuring code of each message type the first time one arrives
or leaves (didOpen, the completion request and its answer: 10-20 ms), and the first
full context imports the modules the context engine loads on first use (40-150 ms
when Python compiles them from source, as with PYTHONDONTWRITEBYTECODE). The client
waits for the `initialize` answer anyway before it opens anything, so they are paid
there. Every step is best effort: a failure only means the cost stays where it was.
"""

from __future__ import annotations

import importlib
import json
import logging
from typing import Any, Callable

from lsprotocol import types as lsp

log = logging.getLogger(__name__)

_POSITION = {"line": 0, "character": 0}
_RANGE = {"start": _POSITION, "end": _POSITION}
_DOC = {"uri": "file:///warmup.py"}
# the messages every session starts with, as a client sends them
SAMPLE_MESSAGES: tuple[dict[str, Any], ...] = (
    {"method": lsp.TEXT_DOCUMENT_DID_OPEN, "params": {"textDocument": {
        **_DOC, "languageId": "python", "version": 1, "text": ""}}},
    {"method": lsp.TEXT_DOCUMENT_DID_CHANGE, "params": {
        "textDocument": {**_DOC, "version": 2},
        "contentChanges": [{"range": _RANGE, "text": "x"}, {"text": "x"}]}},
    {"id": 0, "method": lsp.TEXT_DOCUMENT_INLINE_COMPLETION, "params": {
        "textDocument": _DOC, "position": _POSITION, "context": {"triggerKind": 1}}},
    {"id": 0, "method": lsp.TEXT_DOCUMENT_COMPLETION, "params": {
        "textDocument": _DOC, "position": _POSITION, "context": {"triggerKind": 1}}},
    {"id": 0, "method": lsp.WORKSPACE_EXECUTE_COMMAND, "params": {
        "command": "flashls.showSettings", "arguments": []}},
    {"method": lsp.CANCEL_REQUEST, "params": {"id": 0}},
)


# modules the context engine imports inside functions (cycles between them), which the
# first full-context request would otherwise import
CONTEXT_MODULES = ("flashls.context.local_parse", "flashls.context.first_tables",
                   "flashls.context.rank_memo", "flashls.context.moved_items",
                   "flashls.context.evidence_go", "flashls.context.evidence_rust")


def _sample_answers() -> tuple[tuple[str, Any], ...]:
    command = lsp.Command(title="flashls: accepted", command="flashls.accepted",
                          arguments=["s1"])
    rng = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    return (
        (lsp.TEXT_DOCUMENT_INLINE_COMPLETION, lsp.InlineCompletionList(items=[
            lsp.InlineCompletionItem(insert_text="x", range=rng, command=command)])),
        (lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionList(is_incomplete=True, items=[
            lsp.CompletionItem(label="x", text_edit=lsp.TextEdit(range=rng, new_text="x"),
                               command=command)])),
    )


def warm_up(protocol: Any) -> list[str]:
    """Run the one-off first-use steps now; returns the names of those that failed."""
    failed = []
    for name, step in (("http backend", _import_http_backend),
                       ("context modules", _import_context_modules),
                       ("messages in", lambda: _structure_samples(protocol)),
                       ("answers out", lambda: _unstructure_samples(protocol))):
        try:
            step()
        except Exception as err:  # best effort: the cost stays on the first request
            log.debug("warm-up step %s failed: %s", name, err)
            failed.append(name)
    return failed


def warm_workspace(session: Any) -> None:
    """Build the workspace boundary (its exclude globs compiled: 4-8 ms) once the
    folders and settings are known, before the first document asks for it."""
    workspace = getattr(getattr(getattr(session, "engine", None), "context", None),
                        "workspace", None)
    if workspace is None:
        return
    try:
        workspace()
    except Exception as err:  # invalid globs are told elsewhere, on first real use
        log.debug("warming the workspace failed: %s", err)


def _import_http_backend() -> None:
    """httpcore reaches anyio's backend for the running loop on its first connection;
    an anyio primitive made here (in the running loop) imports it now."""
    import anyio

    anyio.Event()


def _import_context_modules() -> None:
    for name in CONTEXT_MODULES:
        importlib.import_module(name)


def _structure_samples(protocol: Any) -> None:
    for sample in SAMPLE_MESSAGES:
        protocol.structure_message({"jsonrpc": "2.0", **sample})


def _unstructure_samples(protocol: Any) -> None:
    serialize: Callable[[Any], Any] = protocol._serialize_message
    for method, result in _sample_answers():
        response_type = lsp.METHOD_TO_TYPES[method][1]
        json.dumps(response_type(id=0, result=result), default=serialize)
