"""Small helpers for driving a flashls process in tests."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient


def open_doc(client: LanguageClient, path: Path, text: str, language: str = "python",
             version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)))
    return uri


def change(client: LanguageClient, uri: str, version: int, start: tuple[int, int],
           end: tuple[int, int], text: str) -> None:
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[lsp.TextDocumentContentChangePartial(
            range=lsp.Range(lsp.Position(*start), lsp.Position(*end)), text=text)]))


async def inline(client: LanguageClient, uri: str, line: int, character: int,
                 invoked: bool = False) -> list[lsp.InlineCompletionItem]:
    kind = (lsp.InlineCompletionTriggerKind.Invoked if invoked
            else lsp.InlineCompletionTriggerKind.Automatic)
    result = await client.text_document_inline_completion_async(lsp.InlineCompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        position=lsp.Position(line=line, character=character),
        context=lsp.InlineCompletionContext(trigger_kind=kind)))
    if result is None:
        return []
    return list(result.items if isinstance(result, lsp.InlineCompletionList) else result)


def inline_params(uri: str, line: int, character: int,
                  invoked: bool = False) -> lsp.InlineCompletionParams:
    kind = (lsp.InlineCompletionTriggerKind.Invoked if invoked
            else lsp.InlineCompletionTriggerKind.Automatic)
    return lsp.InlineCompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        position=lsp.Position(line=line, character=character),
        context=lsp.InlineCompletionContext(trigger_kind=kind))


_ids = iter(range(10_000_000, 20_000_000))


def send_cancellable(client: LanguageClient, method: str, params) -> tuple[int, "asyncio.Future"]:
    """Send a request whose id we know, so a test can `$/cancelRequest` it."""
    import asyncio
    msg_id = next(_ids)
    future = client.protocol.send_request(method, params, msg_id=msg_id)
    return msg_id, asyncio.wrap_future(future)


def cancel_request(client: LanguageClient, msg_id: int) -> None:
    client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id=msg_id))
