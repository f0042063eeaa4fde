"""Code actions end to end: a real flashls process, pytest-lsp client, fake DeepSeek."""

from __future__ import annotations

import asyncio
from typing import Union

import pytest
from lsprotocol import types as lsp

from tests.conftest import base_settings, client_capabilities
from tests.fake_deepseek import Reply
from tests.lsp_helpers import cancel_request, open_doc, send_cancellable

SOURCE = (
    "import os\n"
    "\n"
    "\n"
    "class Store:\n"
    "    def load(self, path):\n"
    "        data = None\n"
    "        if os.path.exists(path):\n"
    "            data = open(path).read()\n"
    "        return data\n"
    "\n"
    "    def size(self):\n"
    "        return 0\n")
# lines 5..8 (0-based), whole lines: the body of `load`
SELECTION = lsp.Range(lsp.Position(5, 0), lsp.Position(9, 0))
SIMPLIFIED = "return open(path).read() if os.path.exists(path) else None"


def action_capabilities(*, resolve: bool = True, document_changes: bool = True
                        ) -> lsp.ClientCapabilities:
    caps = client_capabilities()
    caps.text_document.code_action = lsp.CodeActionClientCapabilities(
        code_action_literal_support=lsp.ClientCodeActionLiteralOptions(
            code_action_kind=lsp.ClientCodeActionKindOptions(
                value_set=["", "quickfix", "refactor", "refactor.rewrite", "source"])),
        data_support=resolve,
        resolve_support=lsp.ClientCodeActionResolveOptions(properties=["edit"])
        if resolve else None)
    caps.workspace.workspace_edit = lsp.WorkspaceEditClientCapabilities(
        document_changes=document_changes)
    return caps


def fix_code_action_parsing(client) -> None:
    """lsprotocol 2025.0.0 parses any code action that carries a `command` as a Command
    (and stringifies the command object): real editors don't; make the test client
    tell them apart by the type of `command` like they do."""
    converter = client.protocol._converter

    def hook(obj, _):
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, lsp.Command)
        return converter.structure(obj, lsp.CodeAction)

    converter.register_structure_hook(Union[lsp.Command, lsp.CodeAction], hook)


async def start(client, fake, tmp_path, *, actions: dict | None = None, **caps):
    fix_code_action_parsing(client)
    settings = {**base_settings(fake), "actions": {"maxTokens": 333, **(actions or {})}}
    client.set_configuration(settings, section="flashls")
    result = await client.initialize_session(lsp.InitializeParams(
        capabilities=action_capabilities(**caps),
        workspace_folders=[lsp.WorkspaceFolder(uri=tmp_path.as_uri(), name="ws")],
        initialization_options=settings))
    uri = open_doc(client, tmp_path / "store.py", SOURCE)
    return result, uri


def record_apply_edits(client) -> list[lsp.ApplyWorkspaceEditParams]:
    seen: list[lsp.ApplyWorkspaceEditParams] = []

    @client.feature(lsp.WORKSPACE_APPLY_EDIT)
    def apply_edit(ls, params: lsp.ApplyWorkspaceEditParams):
        seen.append(params)
        return lsp.ApplyWorkspaceEditResult(applied=True)

    return seen


async def list_actions(client, uri, rng=SELECTION, diagnostics=(), only=None
                       ) -> list[lsp.CodeAction]:
    result = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=rng,
        context=lsp.CodeActionContext(diagnostics=list(diagnostics), only=only)))
    return list(result or [])


def by_title(actions, prefix: str) -> lsp.CodeAction:
    return next(a for a in actions if a.title.startswith(prefix))


def single_edit(edit: lsp.WorkspaceEdit) -> tuple[lsp.Range, str]:
    if edit.document_changes:
        (change,) = edit.document_changes
        (text_edit,) = change.edits
    else:
        ((_, edits),) = edit.changes.items()
        (text_edit,) = edits
    return text_edit.range, text_edit.new_text


def apply_text(text: str, rng: lsp.Range, new: str) -> str:
    lines = text.split("\n")
    def offset(p: lsp.Position) -> int:
        return sum(len(line) + 1 for line in lines[:p.line]) + p.character
    return text[:offset(rng.start)] + new + text[offset(rng.end):]


def fenced_with_prose(code: str) -> str:
    return f"Sure! Here is the simplified code:\n\n```python\n{code}\n```\n\nIt is shorter."


# -- listing ------------------------------------------------------------------------------
async def test_listing_is_instant_and_never_calls_the_model(client, fake, tmp_path):
    result, uri = await start(client, fake, tmp_path)
    provider = result.capabilities.code_action_provider
    assert provider.resolve_provider is True
    assert "quickfix.flashls.fix" in provider.code_action_kinds
    commands = result.capabilities.execute_command_provider.commands
    assert {"flashls.rewrite", "flashls.explain", "flashls.insertExplanation"} <= set(commands)
    actions = await list_actions(client, uri)
    titles = [a.title for a in actions]
    assert titles == ["flashls: Rewrite…", "flashls: Simplify", "flashls: Add docstring",
                      "flashls: Explain", "flashls: Explain as comment"]
    assert all(a.edit is None for a in actions)
    rewrite = by_title(actions, "flashls: Rewrite")
    assert rewrite.command.command == "flashls.rewrite"
    assert "instruction" not in rewrite.command.arguments[0]
    assert by_title(actions, "flashls: Simplify").data["flashls"] == "simplify"
    # a cursor (empty selection) gets nothing: code actions are never computed on moves
    cursor = lsp.Range(lsp.Position(6, 4), lsp.Position(6, 4))
    assert await list_actions(client, uri, cursor) == []
    # diagnostics in the selection add "Fix this code"; `only` filters by kind
    diag = lsp.Diagnostic(range=lsp.Range(lsp.Position(7, 12), lsp.Position(7, 16)),
                          message="undefined name 'opn'", severity=lsp.DiagnosticSeverity.Error,
                          source="pyflakes")
    fixes = await list_actions(client, uri, diagnostics=[diag], only=["quickfix"])
    assert [a.title for a in fixes] == ["flashls: Fix this code"]
    assert fixes[0].diagnostics[0].message == "undefined name 'opn'"
    # `actions.enable: false` turns them off
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
        settings={"flashls": {**base_settings(fake), "actions": {"enable": False}}}))
    assert await list_actions(client, uri) == []
    assert fake.completion_requests() == []  # listing answered: it never calls the model


async def test_client_without_resolve_gets_commands(client, fake, tmp_path):
    fake.responder = lambda req: Reply(text=fenced_with_prose(SIMPLIFIED))
    seen = record_apply_edits(client)
    _, uri = await start(client, fake, tmp_path, resolve=False, document_changes=False)
    action = by_title(await list_actions(client, uri), "flashls: Simplify")
    assert action.data is None and action.command.command == "flashls.rewrite"
    assert action.command.arguments[0]["intent"] == "simplify"
    assert fake.completion_requests() == []
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=action.command.command, arguments=action.command.arguments))
    assert result["applied"] is True and result["model"] == "deepseek-flash"
    rng, text = single_edit(seen[0].edit)
    assert rng == SELECTION and text == f"        {SIMPLIFIED}\n"


# -- resolve ------------------------------------------------------------------------------
async def test_resolve_simplify_replaces_exactly_the_selection(client, fake, tmp_path):
    fake.responder = lambda req: Reply(text=fenced_with_prose(SIMPLIFIED))
    _, uri = await start(client, fake, tmp_path)
    action = by_title(await list_actions(client, uri), "flashls: Simplify")
    resolved = await client.code_action_resolve_async(action)
    rng, text = single_edit(resolved.edit)
    assert rng == SELECTION
    assert text == f"        {SIMPLIFIED}\n"  # clean code, indentation preserved
    assert resolved.edit.document_changes[0].text_document.version == 1
    assert resolved.title == "flashls: Simplify (deepseek-flash)"
    assert resolved.data["model"] == "deepseek-flash"
    after = apply_text(SOURCE, rng, text)
    assert after.splitlines()[5] == f"        {SIMPLIFIED}"
    assert after.splitlines()[7] == "    def size(self):"
    (req,) = fake.completion_requests()
    assert req.path == "/chat/completions" and req.model == "deepseek-flash"
    assert req.body["thinking"] == {"type": "disabled"}
    assert req.body["max_tokens"] == 333
    user = req.body["messages"][-1]["content"]
    assert "if os.path.exists(path):\n    data = open(path).read()" in user  # dedented
    assert "class Store:" in user and "def size(self):" in user  # outline
    assert "the enclosing function `load`" in user  # scope
    assert "Simplify" in user
    # an answer without fences, with prose around the code, still yields clean code
    fake.responder = lambda req: Reply(
        text=f"Here's a simpler version:\n\n{SIMPLIFIED}\n\nThis avoids the temporary variable.")
    again = await client.code_action_resolve_async(
        by_title(await list_actions(client, uri), "flashls: Simplify"))
    assert single_edit(again.edit)[1] == f"        {SIMPLIFIED}\n"


async def test_fix_sends_the_diagnostics(client, fake, tmp_path):
    fake.responder = lambda req: Reply(text="```python\ndata = None\nreturn data\n```")
    _, uri = await start(client, fake, tmp_path)
    diag = lsp.Diagnostic(range=lsp.Range(lsp.Position(7, 12), lsp.Position(7, 16)),
                          message="something is off here", source="lint", code="E1")
    fix = by_title(await list_actions(client, uri, diagnostics=[diag]), "flashls: Fix")
    await client.code_action_resolve_async(fix)
    user = fake.completion_requests()[0].body["messages"][-1]["content"]
    assert "- line 3: error: something is off here [lint E1]" in user


async def test_non_parsing_rewrite_is_retried_then_escalated(client, fake, tmp_path):
    def responder(req):
        if req.model == "deepseek-v4-pro":
            return Reply(text=f"```python\n{SIMPLIFIED}\n```")
        return Reply(text="```python\nreturn open(path.read(\n```")
    fake.responder = responder
    _, uri = await start(client, fake, tmp_path)
    resolved = await client.code_action_resolve_async(
        by_title(await list_actions(client, uri), "flashls: Simplify"))
    assert [r.model for r in fake.completion_requests()] == [
        "deepseek-flash", "deepseek-flash", "deepseek-v4-pro"]
    assert single_edit(resolved.edit)[1] == f"        {SIMPLIFIED}\n"
    assert resolved.title.endswith("(deepseek-v4-pro)")
    assert [a["ok"] for a in resolved.data["attempts"]] == [False, False, True]
    # the retry tells the model what was wrong, after the first request's messages
    first, second, _ = fake.completion_requests()
    assert second.body["messages"][:2] == first.body["messages"]
    assert "does not parse" in second.body["messages"][-1]["content"]


async def test_final_failure_changes_nothing_and_says_why(client, fake, tmp_path):
    fake.responder = lambda req: Reply(text="```python\nreturn open(path.read(\n```")
    seen = record_apply_edits(client)
    _, uri = await start(client, fake, tmp_path)
    action = by_title(await list_actions(client, uri), "flashls: Simplify")
    with pytest.raises(Exception, match="does not parse"):
        await client.code_action_resolve_async(action)
    with pytest.raises(Exception, match="not changed"):
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="flashls.rewrite", arguments=[{"uri": uri, "range": {
                "start": {"line": 5, "character": 0}, "end": {"line": 9, "character": 0}},
                "instruction": "make it shorter"}]))
    assert seen == []  # nothing was applied
    assert len(fake.completion_requests()) == 6
    errors = [m for m in client.messages if m.type == lsp.MessageType.Error]
    assert len(errors) == 2
    assert "not changed" in errors[0].message and "deepseek-v4-pro" in errors[0].message
    assert "does not parse" in errors[0].message


async def test_auth_error_is_told_once_and_stops(client, fake, tmp_path):
    fake.responder = lambda req: Reply(status=401)
    _, uri = await start(client, fake, tmp_path)
    action = by_title(await list_actions(client, uri), "flashls: Simplify")
    for _ in range(2):
        with pytest.raises(Exception, match="401|unavailable"):
            await client.code_action_resolve_async(action)
    assert len(fake.completion_requests()) == 1
    told = [m for m in client.messages if "401" in m.message]
    assert len(told) == 1 and "apiKey" in told[0].message


# -- commands -----------------------------------------------------------------------------
async def test_rewrite_command_applies_the_edit_with_progress(client, fake, tmp_path):
    fake.responder = lambda req: Reply(text="```python\nreturn None\n```")
    seen = record_apply_edits(client)
    _, uri = await start(client, fake, tmp_path)
    rewrite = by_title(await list_actions(client, uri), "flashls: Rewrite")
    args = {**rewrite.command.arguments[0], "instruction": "always return None"}
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="flashls.rewrite", arguments=[args]))
    assert result == {"applied": True, "model": "deepseek-flash",
                      "attempts": [{"model": "deepseek-flash", "ok": True, "reason": ""}]}
    (applied,) = seen
    assert single_edit(applied.edit) == (SELECTION, "        return None\n")
    assert "Instruction: always return None" in \
        fake.completion_requests()[0].body["messages"][-1]["content"]
    kinds = [r.kind for reports in client.progress_reports.values() for r in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds


async def test_bad_requests_are_clear_errors_and_call_nothing(client, fake, tmp_path):
    _, uri = await start(client, fake, tmp_path)
    actions = await list_actions(client, uri)
    rewrite = by_title(actions, "flashls: Rewrite")
    with pytest.raises(Exception, match="needs an instruction"):
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="flashls.rewrite", arguments=rewrite.command.arguments))
    with pytest.raises(Exception, match="takes"):
        await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="flashls.rewrite", arguments=["nonsense"]))
    # the document changed between listing and resolve: refused, not guessed
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangePartial(
            range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)), text="# hi\n")]))
    with pytest.raises(Exception, match="document changed"):
        await client.code_action_resolve_async(by_title(actions, "flashls: Simplify"))
    assert fake.completion_requests() == []


async def test_explain_returns_markdown_and_never_edits(client, fake, tmp_path):
    answer = "Loads **a file** if it exists, else `None`.\n\n- reads the whole file"
    fake.responder = lambda req: Reply(text=answer)
    seen = record_apply_edits(client)
    _, uri = await start(client, fake, tmp_path)
    explain = by_title(await list_actions(client, uri), "flashls: Explain")
    assert explain.edit is None and explain.command.command == "flashls.explain"
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command=explain.command.command, arguments=explain.command.arguments))
    assert result["markdown"] == answer and result["model"] == "deepseek-flash"
    assert result["insertCommand"]["command"] == "flashls.insertExplanation"
    assert seen == []
    assert any(m.message.startswith("flashls (deepseek-flash): Loads **a file**")
               for m in client.messages)
    # "Insert as comment" with the explanation already known: no second model call
    inserted = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="flashls.insertExplanation", arguments=result["insertCommand"]["arguments"]))
    assert inserted["applied"] is True
    rng, text = single_edit(seen[0].edit)
    assert rng == lsp.Range(lsp.Position(5, 0), lsp.Position(5, 0))
    assert text.splitlines()[0] == "        # Loads **a file** if it exists, else `None`."
    assert len(fake.completion_requests()) == 1


async def test_explain_as_comment_resolves_to_an_insertion(client, fake, tmp_path):
    fake.responder = lambda req: Reply(text="Reads the file.")
    _, uri = await start(client, fake, tmp_path)
    action = by_title(await list_actions(client, uri), "flashls: Explain as comment")
    resolved = await client.code_action_resolve_async(action)
    rng, text = single_edit(resolved.edit)
    assert rng.start == rng.end == lsp.Position(5, 0)
    assert text == "        # Reads the file.\n"


# -- cancellation -------------------------------------------------------------------------
async def wait_aborted(fake) -> bool:
    for _ in range(100):
        if fake.completion_requests() and fake.completion_requests()[0].aborted:
            return True
        await asyncio.sleep(0.05)
    return False


@pytest.mark.parametrize("how", ["resolve", "command"])
async def test_cancel_aborts_the_stream(client, fake, tmp_path, how):
    fake.responder = lambda req: Reply(text="x" * 200, chunk_delay_s=0.2, chunk_chars=1)
    seen = record_apply_edits(client)
    _, uri = await start(client, fake, tmp_path)
    actions = await list_actions(client, uri)
    if how == "resolve":
        action = by_title(actions, "flashls: Simplify")
        msg_id, future = send_cancellable(client, lsp.CODE_ACTION_RESOLVE, action)
    else:
        args = {**by_title(actions, "flashls: Rewrite").command.arguments[0],
                "instruction": "shorter"}
        msg_id, future = send_cancellable(client, lsp.WORKSPACE_EXECUTE_COMMAND,
                                          lsp.ExecuteCommandParams("flashls.rewrite", [args]))
    await asyncio.to_thread(fake.wait_for_requests, 1)  # streaming: 40 s to go
    cancel_request(client, msg_id)
    with pytest.raises(Exception, match="cancel"):
        await future
    assert await wait_aborted(fake)
    assert not fake.completion_requests()[0].completed
    # no retry, no edit: a later answer shows everything the action did has arrived
    await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="flashls.showSettings"))
    assert len(fake.completion_requests()) == 1 and seen == []


async def test_progress_cancel_aborts_the_stream(client, fake, tmp_path):
    fake.responder = lambda req: Reply(text="x" * 200, chunk_delay_s=0.2, chunk_chars=1)
    _, uri = await start(client, fake, tmp_path)
    action = by_title(await list_actions(client, uri), "flashls: Simplify")
    task = asyncio.ensure_future(client.code_action_resolve_async(action))
    await asyncio.to_thread(fake.wait_for_requests, 1)
    (token,) = list(client.progress_reports)
    client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
    with pytest.raises(Exception):
        await task
    assert await wait_aborted(fake)
    assert client.progress_reports[token][-1].message == "cancelled"
