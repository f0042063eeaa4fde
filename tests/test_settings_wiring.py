"""Settings that only matter if they reach the wire: checked on the request the fake got."""

from __future__ import annotations

import asyncio

import pytest

from benchmarks.soak import RawLsp
from flashls.context.tokens import estimate_tokens
from flashls.settings import CompletionSettings
from tests.conftest import base_settings, start_session
from tests.lsp_helpers import inline, open_doc

FUNCTIONS = "".join(f"def helper_{i}(value):\n    return value * {i} + {i}\n\n\n"
                    for i in range(400))  # about 10,000 tokens: more than any budget here


DEFAULT_BUDGET = CompletionSettings().context_tokens


def sent_tokens(fake) -> int:
    (request,) = fake.completion_requests()
    body = request.body
    text = body["prompt"] + body.get("suffix", "") if "prompt" in body else \
        "".join(m["content"] for m in body["messages"])
    return estimate_tokens(text)


@pytest.mark.parametrize("endpoint,budget", [("fim", 256), ("fim", 4096), ("chat", 1024)])
async def test_context_tokens_is_the_budget_of_the_request_sent(client, fake, tmp_path,
                                                                endpoint, budget):
    await start_session(client, fake, tmp_path, settings=base_settings(
        fake, contextTokens=budget, endpoint=endpoint))
    text = FUNCTIONS + "result = helper_3(2) + \n" + FUNCTIONS
    uri = open_doc(client, tmp_path / "big.py", text)
    line = FUNCTIONS.count("\n")
    assert len(await inline(client, uri, line, len("result = helper_3(2) + "),
                            invoked=True)) == 1
    tokens = sent_tokens(fake)
    assert tokens <= budget  # the setting bounds what is sent (the default, 2,048, would
    # send ~1,800 tokens here, so an ignored setting fails for 256 and 1,024)...
    if budget > DEFAULT_BUDGET:
        assert tokens > DEFAULT_BUDGET  # ...and a larger one is used, not the default


async def test_server_falls_back_to_deepseek_api_key_from_its_environment(fake, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-from-the-environment-42")
    client = RawLsp({"baseUrl": fake.url, "apiKey": "", "completion": {"debounceMs": 0}})
    await client.start()  # the server process inherits the environment
    try:
        await client.initialize(tmp_path)
        uri = (tmp_path / "k.py").as_uri()
        client.open(uri, "value = \n")
        answer = await asyncio.wait_for(client.inline(uri, 0, 8, invoked=True), 30)
        assert answer["result"]["items"], answer
        (request,) = fake.completion_requests()
        assert request.headers["authorization"] == "Bearer sk-from-the-environment-42"
    finally:
        assert await client.shutdown() == 0
