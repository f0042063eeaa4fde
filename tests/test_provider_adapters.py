"""Every non-DeepSeek adapter against a loopback fake of its server's wire format:
request bodies, streaming, cancellation, error shapes, usage, keys and headers."""

from __future__ import annotations

import asyncio

import pytest

from flashls.model.providers import ModelClient, ProviderConfig
from flashls.model.types import (AuthError, BadRequestError, ChatMessage, ChatRequest,
                                 ContextFile, FimRequest, ProtocolError, RateLimitError,
                                 ServerError, UpstreamTimeout)
from tests.fake_deepseek import Reply
from tests.fake_providers import KINDS, FakeProvider, base_url_for

MODEL = {"openai": "Qwen/Qwen2.5-Coder-1.5B", "llamacpp": "qwen2.5-coder-1.5b-q8_0.gguf",
         "ollama": "qwen2.5-coder:1.5b", "mistral": "codestral-latest"}

FIM = dict(prompt="# from util.py\n# def helper(): ...\n# --- app.py ---\ndef add(a, b):\n"
                  "    return ",
           suffix="\n\nprint(add(1, 2))\n", max_tokens=24, stop=("\n\n",), path="app.py",
           code_prefix="def add(a, b):\n    return ",
           files=(ContextFile("util.py", "def helper(): ..."),))


def fim_request(kind: str) -> FimRequest:
    return FimRequest(MODEL[kind], **FIM)


def chat_request(kind: str) -> ChatRequest:
    return ChatRequest(MODEL[kind], (ChatMessage("system", "be brief"),
                                     ChatMessage("user", "hi")), 32)


@pytest.fixture(params=KINDS)
def fake(request):
    kind = request.param
    with FakeProvider(kind, lambda req: Reply(text="a + b"), models=(MODEL[kind],)) as server:
        yield server


def make_client(fake: FakeProvider, *, key: str = "", headers=(), template="auto") -> ModelClient:
    return ModelClient(ProviderConfig(fake.kind, base_url_for(fake), key, tuple(headers),
                                      template))


@pytest.fixture
async def client(fake):
    c = make_client(fake)
    yield c
    await c.aclose()


# -- request bodies -------------------------------------------------------------------------
async def test_fim_goes_to_the_servers_own_endpoint_with_its_fields(client, fake):
    result = await client.generate(fim_request(fake.kind), timeout_s=5)
    assert result.text == "a + b" and result.endpoint == "fim" and result.finish_reason == "stop"
    (req,) = fake.completion_requests()
    body = req.body
    if fake.kind == "openai":  # vLLM/SGLang: no `suffix`; the template renders the prompt
        assert req.path == "/v1/completions" and "suffix" not in body
        assert body["prompt"] == ("<|fim_prefix|><|file_sep|>util.py\ndef helper(): ...\n"
                                  "<|file_sep|>app.py\ndef add(a, b):\n    return "
                                  "<|fim_suffix|>\n\nprint(add(1, 2))\n<|fim_middle|>")
        assert body["max_tokens"] == 24 and body["stream"] is True
        assert body["stop"][0] == "\n\n" and "<|file_sep|>" in body["stop"]
    elif fake.kind == "llamacpp":
        assert req.path == "/infill"
        assert body["input_prefix"] == "def add(a, b):\n    return "
        assert body["input_suffix"] == "\n\nprint(add(1, 2))\n"
        assert body["input_extra"] == [{"filename": "util.py", "text": "def helper(): ..."}]
        assert body["cache_prompt"] is True and body["n_predict"] == 24
        assert 100 <= body["t_max_predict_ms"] <= 4000 and body["stream"] is True
    elif fake.kind == "ollama":
        assert req.path == "/api/generate"
        assert body["prompt"] == FIM["prompt"] and body["suffix"] == FIM["suffix"]
        assert body["options"]["num_predict"] == 24 and body["keep_alive"]
        assert "raw" not in body and body["stream"] is True
    else:
        assert req.path == "/v1/fim/completions"
        assert body["prompt"] == FIM["prompt"] and body["suffix"] == FIM["suffix"]
        assert body["max_tokens"] == 24 and "[PREFIX]" in body["stop"]


async def test_chat_goes_to_the_chat_endpoint(client, fake):
    result = await client.generate(chat_request(fake.kind), timeout_s=5)
    assert result.text == "a + b" and result.endpoint == "chat"
    (req,) = fake.completion_requests()
    expected = {"openai": "/v1/chat/completions", "llamacpp": "/v1/chat/completions",
                "ollama": "/api/chat", "mistral": "/v1/chat/completions"}[fake.kind]
    assert req.path == expected
    assert [m["role"] for m in req.body["messages"]] == ["system", "user"]
    assert "thinking" not in req.body  # DeepSeek's field; other servers may reject it
    if fake.kind == "ollama":
        assert req.body["options"]["num_predict"] == 32
    else:
        assert req.body["max_tokens"] == 32


async def test_usage_counts_prompt_and_cached_tokens(client, fake):
    first = await client.generate(fim_request(fake.kind), timeout_s=5)
    second = await client.generate(fim_request(fake.kind), timeout_s=5)
    sent = fake.completion_requests()[1].usage
    assert second.usage.completion_tokens == sent["completion_tokens"] > 0
    if fake.kind == "ollama":  # Ollama counts only the prompt tokens it evaluated
        assert second.usage.prompt_tokens == sent["prompt_tokens"] - sent["cached"]
    else:
        assert first.usage.cache_hit_tokens == 0
        assert second.usage.prompt_tokens == sent["prompt_tokens"]
        if fake.kind in ("openai", "llamacpp"):  # they report prefix-cache reuse
            assert second.usage.cache_hit_tokens == sent["cached"] > 0
        assert second.usage.cache_miss_tokens == (second.usage.prompt_tokens
                                                  - second.usage.cache_hit_tokens)


async def test_partial_text_is_reported_while_streaming(client, fake):
    fake.responder = lambda req: Reply(text="abcdefgh", chunk_chars=2)
    seen: list[str] = []
    result = await client.generate(fim_request(fake.kind), timeout_s=5, on_text=seen.append)
    assert seen == ["ab", "abcd", "abcdef", "abcdefgh"] and result.text == "abcdefgh"


async def test_connection_is_reused(client, fake):
    for _ in range(3):
        await client.generate(fim_request(fake.kind), timeout_s=5)
        draining = list(client.adapter._draining)  # the background drain of the answer
        if draining:
            await asyncio.wait(draining)
    assert fake.connections == 1


# -- keys and headers -----------------------------------------------------------------------
async def test_no_key_sends_no_authorization_and_headers_reach_the_server(fake):
    c = make_client(fake, headers=(("X-Team", "blue"), ("X-Gateway-Token", "gw-1")))
    try:
        await c.generate(fim_request(fake.kind), timeout_s=5)
    finally:
        await c.aclose()
    (req,) = fake.completion_requests()
    assert "authorization" not in req.headers
    assert req.headers["x-team"] == "blue" and req.headers["x-gateway-token"] == "gw-1"


async def test_a_key_the_server_rejects_is_an_auth_error_with_the_providers_advice(fake):
    fake.api_key = "right-key"
    c = make_client(fake, key="wrong-key-123")
    try:
        with pytest.raises(AuthError) as caught:
            await c.generate(fim_request(fake.kind), timeout_s=5)
        assert "wrong-key-123" not in str(caught.value)
        assert "DeepSeek" not in caught.value.user_action  # each provider says its own fix
        c.configure(c.base_url, "right-key")
        assert (await c.generate(fim_request(fake.kind), timeout_s=5)).text == "a + b"
    finally:
        await c.aclose()
    assert fake.completion_requests()[-1].headers["authorization"] == "Bearer right-key"


# -- errors -----------------------------------------------------------------------------------
@pytest.mark.parametrize("status,headers,error,retry_after", [
    (429, {"Retry-After": "7"}, RateLimitError, 7.0),
    (429, {}, RateLimitError, None),
    (500, {}, ServerError, None),
    (503, {"Retry-After": "2"}, ServerError, 2.0),
    (400, {}, BadRequestError, None),
])
async def test_status_codes_become_typed_errors(client, fake, status, headers, error, retry_after):
    fake.responder = lambda req: Reply(status=status, headers=headers)
    with pytest.raises(error) as caught:
        await client.generate(fim_request(fake.kind), timeout_s=5)
    assert caught.value.retry_after_s == retry_after and caught.value.status == status
    assert "fake error" in str(caught.value)  # the server's own message, from its error shape


async def test_unknown_model_is_a_bad_request_naming_the_fix(client, fake):
    if fake.kind == "llamacpp":
        pytest.skip("llama-server serves one model whatever the name")
    req = FimRequest("no-such-model", "x", "", 4)
    with pytest.raises(BadRequestError) as caught:
        await client.generate(req, timeout_s=5)
    assert "flashls.model" in caught.value.user_action


async def test_garbage_in_the_stream_is_a_protocol_error(client, fake):
    fake.responder = lambda req: Reply(text="ok", fault="malformed")
    with pytest.raises(ProtocolError):
        await client.generate(fim_request(fake.kind), timeout_s=5)


async def test_a_connection_reset_mid_answer_is_a_protocol_error(client, fake):
    fake.responder = lambda req: Reply(text="abcdefghijkl", chunk_chars=2,
                                       fault="reset_mid_stream")
    with pytest.raises(ProtocolError):
        await client.generate(fim_request(fake.kind), timeout_s=5)


async def test_a_silent_stream_times_out(client, fake):
    fake.responder = lambda req: Reply(text="abcdef", fault="hang_after_first")
    with pytest.raises(UpstreamTimeout):
        await client.generate(fim_request(fake.kind), timeout_s=0.5)


async def test_cancelling_closes_the_stream(client, fake):
    fake.responder = lambda req: Reply(text="abcdefghij" * 5, chunk_chars=1, chunk_delay_s=0.05)
    started = asyncio.Event()
    task = asyncio.ensure_future(client.generate(
        fim_request(fake.kind), timeout_s=30, on_text=lambda text: started.set()))
    await started.wait()  # the answer is streaming
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (req,) = fake.wait_for_requests(1)
    for _ in range(200):  # the fake logs the hang-up when its next write fails
        if req.aborted:
            break
        await asyncio.sleep(0.02)
    assert req.aborted and not req.completed


async def test_a_server_error_event_mid_stream_is_a_server_error(fake):
    """llama.cpp and Ollama report a failure after the 200 inside the stream."""
    if fake.kind not in ("llamacpp", "ollama"):
        pytest.skip("OpenAI-style error events are covered by the DeepSeek adapter tests")
    from flashls.model.llamacpp import decode_infill_line
    from flashls.model.ollama import decode_ndjson_line
    with pytest.raises(ServerError):
        if fake.kind == "llamacpp":
            decode_infill_line('data: {"error": {"code": 500, "message": "slot failed"}}')
        else:
            decode_ndjson_line('{"error": "model runner has unexpectedly stopped"}')


# -- model lists ------------------------------------------------------------------------------
async def test_list_models_reads_each_servers_listing(client, fake):
    assert MODEL[fake.kind] in await client.list_models(timeout_s=5)


# -- switching --------------------------------------------------------------------------------
async def test_switching_provider_swaps_the_adapter_and_the_wire_format():
    with FakeProvider("ollama", lambda r: Reply(text="one"), models=("m",)) as ollama, \
            FakeProvider("llamacpp", lambda r: Reply(text="two")) as llama:
        c = ModelClient(ProviderConfig("ollama", ollama.url))
        try:
            assert (await c.generate(FimRequest("m", "a", "b", 4), timeout_s=5)).text == "one"
            first = c.adapter
            c.apply(ProviderConfig("llamacpp", llama.url))
            assert c.adapter is not first
            assert (await c.generate(FimRequest("m", "a", "b", 4), timeout_s=5)).text == "two"
            again = c.adapter
            c.apply(ProviderConfig("llamacpp", llama.url, "new-key"))
            assert c.adapter is again  # only the key changed: same pool
            await c.generate(FimRequest("m", "a", "b", 4), timeout_s=5)
        finally:
            await c.aclose()
        assert ollama.completion_requests()[0].path == "/api/generate"
        assert llama.completion_requests()[0].path == "/infill"
        assert llama.completion_requests()[1].headers["authorization"] == "Bearer new-key"


async def test_deepseek_gets_the_gateway_headers_too():
    from tests.fake_deepseek import FakeDeepSeek
    with FakeDeepSeek(lambda r: Reply(text="ok")) as ds:
        c = ModelClient(ProviderConfig("deepseek", ds.url, "sk-ds-1", (("X-Team", "blue"),)))
        try:
            assert (await c.generate(FimRequest("deepseek-flash", "a", "b", 4),
                                     timeout_s=5)).text == "ok"
        finally:
            await c.aclose()
        (req,) = ds.completion_requests()
    assert req.headers["x-team"] == "blue" and req.headers["authorization"] == "Bearer sk-ds-1"
    assert req.path == "/beta/completions"
