"""Every provider through the whole pipeline: a real flashls process, a pytest-lsp
client, and the fake of that provider's server on loopback. An inline completion and a
code action per provider; a FIM token the model emits never reaches the editor."""

from __future__ import annotations

import pytest
from lsprotocol import types as lsp

from tests.conftest import client_capabilities
from tests.fake_deepseek import Reply
from tests.fake_providers import KINDS, FakeProvider, base_url_for
from tests.lsp_helpers import inline, open_doc
from tests.test_actions_e2e import (SELECTION, SIMPLIFIED, SOURCE, action_capabilities,
                                    by_title, fix_code_action_parsing, list_actions,
                                    single_edit)

MODELS = {"openai": "qwen2.5-coder-7b", "llamacpp": "qwen2.5-coder-1.5b-q8_0",
          "ollama": "qwen2.5-coder:1.5b", "mistral": "codestral-latest"}
STRONG = "strong-model"
MISTRAL_KEY = "mistral-test-key-99"


@pytest.fixture(params=KINDS)
def provider_fake(request):
    kind = request.param
    server = FakeProvider(kind, lambda req: Reply(text="b)"),
                          models=(MODELS[kind], STRONG),
                          api_key=MISTRAL_KEY if kind == "mistral" else None).start()
    yield server
    server.stop()


def provider_settings(fake: FakeProvider) -> dict:
    settings = {"provider": fake.kind, "baseUrl": base_url_for(fake), "model": MODELS[fake.kind],
                "strongModel": STRONG, "completion": {"debounceMs": 0}}
    if fake.kind == "mistral":
        settings["apiKey"] = MISTRAL_KEY  # a hosted API; local servers run without a key
    return settings


async def initialize(client, fake, tmp_path, capabilities) -> None:
    config = provider_settings(fake)
    client.set_configuration(config, section="flashls")
    await client.initialize_session(lsp.InitializeParams(
        capabilities=capabilities,
        workspace_folders=[lsp.WorkspaceFolder(uri=tmp_path.as_uri(), name="ws")],
        initialization_options=config))


async def test_inline_completion_per_provider(client, provider_fake, tmp_path):
    fake = provider_fake
    (tmp_path / "util.py").write_text("def helper(x):\n    return x * 2\n")
    await initialize(client, fake, tmp_path, client_capabilities())
    uri = open_doc(client, tmp_path / "m.py",
                   "from util import helper\n\ndef add(a, b):\n    return add(a, \n")
    items = await inline(client, uri, 3, 18)
    assert [i.insert_text for i in items] == ["b)"]
    req = fake.completion_requests()[-1]
    assert req.path == {"openai": "/v1/completions", "llamacpp": "/infill",
                        "ollama": "/api/generate", "mistral": "/v1/fim/completions"}[fake.kind]
    if fake.kind == "openai":
        assert req.body["prompt"].startswith("<|fim_prefix|>")
        assert "<|file_sep|>m.py\nfrom util import helper" in req.body["prompt"]
        assert req.body["prompt"].endswith("<|fim_middle|>")
    elif fake.kind == "llamacpp":
        assert req.body["input_prefix"].endswith("def add(a, b):\n    return add(a, ")
        assert req.body["input_prefix"].startswith("from util import helper")
        assert req.body["cache_prompt"] is True
    else:
        assert req.body["prompt"].endswith("def add(a, b):\n    return add(a, ")
        assert req.body["suffix"].startswith("\n")
    if fake.kind == "mistral":
        assert req.headers["authorization"] == f"Bearer {MISTRAL_KEY}"
    else:
        assert "authorization" not in req.headers  # no key needed, none sent


async def test_a_leaked_fim_token_never_reaches_the_editor(client, provider_fake, tmp_path):
    fake = provider_fake
    token = "[SUFFIX]" if fake.kind == "mistral" else "<|fim_middle|>"
    fake.responder = lambda req: Reply(text=f"b){token}\nprint('junk')")
    await initialize(client, fake, tmp_path, client_capabilities())
    uri = open_doc(client, tmp_path / "m.py", "def add(a, b):\n    return add(a, \n")
    items = await inline(client, uri, 1, 18)
    assert [i.insert_text for i in items] == ["b)"]


async def test_code_action_per_provider(client, provider_fake, tmp_path):
    fake = provider_fake
    fake.responder = lambda req: Reply(text=f"```python\n{SIMPLIFIED}\n```")
    fix_code_action_parsing(client)
    await initialize(client, fake, tmp_path, action_capabilities())
    uri = open_doc(client, tmp_path / "store.py", SOURCE)
    action = by_title(await list_actions(client, uri), "flashls: Simplify")
    resolved = await client.code_action_resolve_async(action)
    rng, text = single_edit(resolved.edit)
    assert rng == SELECTION and text == f"        {SIMPLIFIED}\n"
    assert resolved.title == f"flashls: Simplify ({MODELS[fake.kind]})"
    (req,) = fake.completion_requests()
    assert req.path == ("/api/chat" if fake.kind == "ollama" else "/v1/chat/completions")
    assert "thinking" not in req.body
