"""Credential files and documents outside the workspace, end to end.

A real flashls process against the fake DeepSeek. Each credential file carries a
canary (a plain identifier the secret redactor has no reason to touch, so only the
"document never sent" rule can keep it out). The files are opened in the editor,
edited (so the recent-edits tier wants them), and asked for completions and code
actions, inside the workspace folder and in a home directory outside it (with the
outside-workspace policy set to "allow", so the credential rule alone must refuse).
No canary may reach the fake; positive controls prove the tiers were really sent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from tests.conftest import base_settings
from tests.lsp_helpers import change, inline, open_doc
from tests.test_actions_e2e import action_capabilities, fix_code_action_parsing

# path (relative to a folder or the home directory) -> content; {c} is the canary
CREDENTIAL_FILES: dict[str, str] = {
    ".pypirc": "[distutils]\nindex-servers = pypi\n[pypi]\nusername = {c}\n",
    ".kube/config": "apiVersion: v1\nclusters:\n- cluster:\n    server: https://{c}.example\n",
    "kubeconfig.yaml": "apiVersion: v1\ncurrent-context: {c}\n",
    ".docker/config.json": '{{"auths": {{"registry.example": {{"email": "{c}"}}}}}}\n',
    ".git-credentials": "https://deploy@{c}.example.com\n",
    "terraform.tfvars": 'region = "{c}"\n',
    "prod.tfstate": '{{"version": 4, "serial": "{c}"}}\n',
    ".ssh/config": "Host {c}\n  User deploy\n",
    ".env": "APP_NAME={c}\n",
    ".env.production": "APP_NAME={c}\n",
    ".envrc": "export APP_NAME={c}\n",
    "id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\n{c}\n",
    "credentials.json": '{{"installed": {{"client_id": "{c}"}}}}\n',
    "secrets.yaml": "app: {c}\n",
    ".npmrc": "registry=https://{c}.example/\n",
    ".yarnrc.yml": "npmRegistryServer: https://{c}.example\n",
    ".netrc": "machine {c}.example login deploy\n",
    ".aws/credentials": "[default]\nregion = {c}\n",
    ".azure/config": "[cloud]\nname = {c}\n",
    ".config/gcloud/configurations/config_default": "[core]\naccount = {c}\n",
    ".gem/credentials": "---\n:rubygems_api_key: {c}\n",
    ".cargo/credentials.toml": '[registry]\ntoken = "{c}"\n',
    ".m2/settings.xml": "<settings><servers><server><id>{c}</id></server></servers></settings>\n",
    ".gradle/gradle.properties": "repoUser={c}\n",
    ".nuget/NuGet/NuGet.Config": '<configuration><add key="{c}" /></configuration>\n',
    ".gnupg/gpg.conf": "default-key {c}\n",
    "vault.hcl": 'storage "file" {{ path = "{c}" }}\n',
    "server.pem": "-----BEGIN CERTIFICATE-----\n{c}\n",
    "tls.key": "{c}\n",
    "release.jks": "{c}\n",
}


def canary(rel: str, where: str) -> str:
    name = "".join(ch if ch.isalnum() else "_" for ch in rel).strip("_")
    return f"canary_{where}_{name}"


def all_bodies(fake) -> str:
    return "\n".join(json.dumps(r.body, ensure_ascii=False) for r in fake.requests)


def record_statuses(client) -> list[dict]:
    seen: list[dict] = []

    def on_status(params) -> None:
        reason = getattr(params, "reason", None)
        seen.append({"state": getattr(params, "state", None),
                     "reason": None if reason is None else
                     {"code": getattr(reason, "code", None),
                      "message": getattr(reason, "message", None)}})

    client.feature("flashls/status")(on_status)
    return seen


async def start(client, fake, folder: Path, **extra) -> None:
    fix_code_action_parsing(client)
    settings = {**base_settings(fake), **extra}
    client.set_configuration(settings, section="flashls")
    await client.initialize_session(lsp.InitializeParams(
        capabilities=action_capabilities(),
        workspace_folders=[lsp.WorkspaceFolder(uri=folder.as_uri(), name="ws")],
        initialization_options=settings))


def whole(text: str) -> dict:
    lines = text.split("\n")
    return {"start": {"line": 0, "character": 0},
            "end": {"line": len(lines) - 1, "character": len(lines[-1])}}


async def ask_everything(client, uri: str, text: str) -> list[str]:
    """Completions, code actions (listing, resolve, both commands): what the server
    answered, as error messages (each must refuse)."""
    lines = text.rstrip("\n").split("\n")
    assert await inline(client, uri, len(lines) - 1, len(lines[-1]), invoked=True) == []
    rng = whole(text)
    listed = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        range=lsp.Range(lsp.Position(0, 0), lsp.Position(rng["end"]["line"],
                                                         rng["end"]["character"])),
        context=lsp.CodeActionContext(diagnostics=[])))
    assert not listed
    errors = []
    attempts = [
        client.code_action_resolve_async(lsp.CodeAction(
            title="flashls: Simplify", data={"flashls": "simplify", "uri": uri, "range": rng,
                                             "diagnostics": []})),
        client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="flashls.rewrite",
            arguments=[{"uri": uri, "range": rng, "instruction": "make it shorter"}])),
        client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="flashls.explain", arguments=[{"uri": uri, "range": rng}])),
    ]
    for attempt in attempts:
        with pytest.raises(Exception) as refused:
            await attempt
        errors.append(str(refused.value))
    return errors


async def test_no_credential_file_reaches_the_model_inside_or_outside(client, fake, tmp_path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    statuses = record_statuses(client)
    await start(client, fake, ws, completion={"debounceMs": 0, "outsideWorkspace": "allow"})
    canaries = []
    for where, folder in (("ws", ws), ("home", home)):
        for rel, template in CREDENTIAL_FILES.items():
            marker = canary(rel, where)
            canaries.append(marker)
            text = template.format(c=marker)
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            uri = open_doc(client, path, text, language="plaintext")
            change(client, uri, 2, (0, 0), (0, 0), " ")  # recently edited
            text = " " + text
            errors = await ask_everything(client, uri, text)
            assert all("not sent: credential file" in e for e in errors), (rel, errors)
            assert statuses and statuses[-1]["reason"] == {
                "code": "credential_file", "message": "not sent: credential file"}, rel
    assert fake.requests == []  # not one request for any of them

    # positive controls: an ordinary file gets its completion, with the recent edits
    # of an ordinary open buffer (so the recent tier was really assembled) ...
    helper = ws / "helper.py"
    helper_text = "def control_recent_marker(total):\n    return total\n"
    helper_uri = open_doc(client, helper, helper_text)
    change(client, helper_uri, 2, (1, 0), (1, 0), " ")
    main = ws / "main.py"
    main_text = ("total = 0\n" + "".join(f"# {m}\n" for m in ("control_window_marker",))
                 + "result = control_recent_marker(total)\nvalue = ")
    uri = open_doc(client, main, main_text)
    assert [i.insert_text for i in await inline(client, uri, 3, 8, invoked=True)] \
        == ["fake_completion()"]
    sent = all_bodies(fake)
    assert "control_window_marker" in sent and "control_recent_marker" in sent
    leaked = [m for m in canaries if m in sent]
    assert leaked == []
    assert statuses[-1]["reason"] is None  # an ordinary file: no reason given


async def test_outside_workspace_denied_by_default(client, fake, tmp_path):
    ws, elsewhere = tmp_path / "ws", tmp_path / "etc"
    ws.mkdir()
    elsewhere.mkdir()
    statuses = record_statuses(client)
    await start(client, fake, ws)
    text = "def outside_marker_fn(port):\n    return port\n"
    (elsewhere / "tool.py").write_text(text)
    uri = open_doc(client, elsewhere / "tool.py", text)
    # selecting code there (the code-action menu) says why nothing is offered too
    assert not await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        range=lsp.Range(lsp.Position(0, 0), lsp.Position(1, 0)),
        context=lsp.CodeActionContext(diagnostics=[])))
    assert statuses and statuses[-1]["reason"]["code"] == "outside_workspace"
    errors = await ask_everything(client, uri, text)
    assert all("not sent: outside the workspace" in e for e in errors), errors
    assert statuses[-1]["reason"]["code"] == "outside_workspace"
    assert "outsideWorkspace" in statuses[-1]["reason"]["message"]  # says what to change
    assert fake.requests == []

    # an unsaved buffer is its own case: it is completed in (nothing was read from disk)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(
        uri="untitled:Untitled-1", language_id="python", version=1,
        text="untitled_marker = 1\nvalue = ")))
    items = await inline(client, "untitled:Untitled-1", 1, 8, invoked=True)
    assert [i.insert_text for i in items] == ["fake_completion()"]
    assert "untitled_marker" in all_bodies(fake)
    assert "outside_marker_fn" not in all_bodies(fake)


async def test_outside_workspace_allowed_sends_only_that_document(client, fake, tmp_path):
    ws, elsewhere = tmp_path / "ws", tmp_path / "etc"
    ws.mkdir()
    elsewhere.mkdir()
    statuses = record_statuses(client)
    await start(client, fake, ws, completion={"debounceMs": 0, "outsideWorkspace": "allow"})
    text = "def outside_marker_fn(port):\n    return port\n"
    uri = open_doc(client, elsewhere / "tool.py", text)
    assert [i.insert_text for i in await inline(client, uri, 1, 15, invoked=True)] \
        == ["fake_completion()"]
    assert "outside_marker_fn" in all_bodies(fake)
    assert statuses[-1]["reason"] is None
    result = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="flashls.explain", arguments=[{"uri": uri, "range": whole(text)}]))
    assert result  # the action ran: the fake answered it
    assert len(fake.completion_requests()) == 2

    # ... but its text (edited: the recent tier would want it) never becomes context
    # for a workspace document, nor does an unsaved buffer's
    change(client, uri, 2, (1, 0), (1, 0), " ")
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(
        uri="untitled:Untitled-2", language_id="python", version=1,
        text="def untitled_marker_fn(port):\n    return port\n")))
    change(client, "untitled:Untitled-2", 2, (1, 0), (1, 0), " ")
    fake.reset()
    main_text = "port = 8080\nresult = outside_marker_fn(port) + untitled_marker_fn(port)\nx = "
    main_uri = open_doc(client, ws / "main.py", main_text)
    await inline(client, main_uri, 2, 4, invoked=True)
    sent = all_bodies(fake)
    assert "result = outside_marker_fn" in sent  # the workspace document itself
    assert "return port" not in sent  # neither the outside file's nor the buffer's body


async def test_a_negated_builtin_glob_sends_that_file(client, fake, tmp_path):
    """Removing a built-in entry on purpose: `!pattern` in flashls.exclude."""
    ws = tmp_path / "ws"
    ws.mkdir()
    await start(client, fake, ws, exclude=["!**/.npmrc", "**/private_notes.py"])
    text = "registry=https://npm_negated_marker.example/\n"
    uri = open_doc(client, ws / ".npmrc", text, language="ini")
    assert len(await inline(client, uri, 0, len(text) - 1, invoked=True)) == 1
    assert "npm_negated_marker" in all_bodies(fake)
    # the user's own globs add to the built-in list (which still covers .pypirc)
    for name in ("private_notes.py", ".pypirc"):
        other = open_doc(client, ws / name, "added_glob_marker = 1\n")
        assert await inline(client, other, 0, 10, invoked=True) == []
    assert "added_glob_marker" not in all_bodies(fake)
