"""The DeepSeek adapter against the fake server: wire format, streaming, keep-alive, errors."""

from __future__ import annotations

import asyncio

import pytest

from flashls.model.deepseek import DeepSeekClient, parse_sse_line, DONE
from flashls.model.types import (AuthError, BalanceError, ChatMessage, ChatRequest, FimRequest,
                                 ProtocolError, RateLimitError, ServerError, UpstreamTimeout)
from tests.fake_deepseek import FakeDeepSeek, Reply

FIM = FimRequest("deepseek-flash", "def f(", "):\n", 32, stop=("\n\n",))


@pytest.fixture
def fake():
    with FakeDeepSeek(lambda req: Reply(text="a, b")) as server:
        yield server


@pytest.fixture
async def client(fake):
    c = DeepSeekClient(fake.url, "sk-adapter-test")
    yield c
    await c.aclose()


async def test_fim_wire_format_and_usage(client, fake):
    result = await client.generate(FIM, timeout_s=5)
    assert result.text == "a, b" and result.finish_reason == "stop"
    body = fake.completion_requests()[0].body
    assert fake.completion_requests()[0].path == "/beta/completions"
    assert body["prompt"] == "def f(" and body["suffix"] == "):\n"
    assert body["max_tokens"] == 32 and body["stop"] == ["\n\n"] and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert result.usage.prompt_tokens > 0
    assert result.usage.prompt_tokens == result.usage.cache_hit_tokens + result.usage.cache_miss_tokens


async def test_chat_always_disables_thinking(client, fake):
    req = ChatRequest("deepseek-flash", (ChatMessage("user", "hi"),), 8)
    result = await client.generate(req, timeout_s=5)
    body = fake.completion_requests()[0].body
    assert result.text == "a, b" and body["thinking"] == {"type": "disabled"}
    assert fake.completion_requests()[0].path == "/chat/completions"


async def until(predicate, timeout_s: float = 10.0) -> bool:
    """Wait for a condition the adapter or the fake reports (no fixed sleep)."""
    for _ in range(int(timeout_s / 0.01)):
        if predicate():
            return True
        await asyncio.sleep(0.01)
    return predicate()


async def test_connection_is_reused_across_requests(client, fake):
    pool = client._client._transport._pool  # httpx internals: the only way to look
    for _ in range(5):
        await client.generate(FIM, timeout_s=5)
        # the background drain returns the connection to the pool: wait for that
        assert await until(lambda: not client._draining and all(
            c.is_idle() for c in pool.connections))
    assert fake.connections == 1


async def test_partial_text_is_reported_while_streaming(client, fake):
    fake.responder = lambda req: Reply(text="abcdefgh", chunk_chars=2)
    seen = []
    await client.generate(FIM, timeout_s=5, on_text=seen.append)
    assert seen == ["ab", "abcd", "abcdef", "abcdefgh"]


@pytest.mark.parametrize("status,error", [(401, AuthError), (402, BalanceError),
                                          (429, RateLimitError), (500, ServerError),
                                          (503, ServerError)])
async def test_status_codes_become_typed_errors(client, fake, status, error):
    fake.responder = lambda req: Reply(status=status, headers={"Retry-After": "7"})
    with pytest.raises(error) as caught:
        await client.generate(FIM, timeout_s=5)
    assert "sk-adapter-test" not in str(caught.value)
    if status in (429, 500, 503):
        assert caught.value.retry_after_s == 7


async def test_keep_alive_comments_are_ignored(client, fake):
    fake.responder = lambda req: Reply(text="ok", fault="keepalive_first")
    assert (await client.generate(FIM, timeout_s=5)).text == "ok"


async def test_malformed_stream_is_a_protocol_error(client, fake):
    fake.responder = lambda req: Reply(text="ok", fault="malformed")
    with pytest.raises(ProtocolError):
        await client.generate(FIM, timeout_s=5)


async def test_silent_stream_times_out(client, fake):
    fake.responder = lambda req: Reply(text="abcdef", fault="hang_after_first")
    with pytest.raises(UpstreamTimeout):
        await client.generate(FIM, timeout_s=0.5)


async def test_cancelling_closes_the_stream_at_once(client, fake):
    fake.responder = lambda req: Reply(text="abcdefghij", chunk_chars=1, chunk_delay_s=0.2)
    streaming = asyncio.Event()
    task = asyncio.ensure_future(client.generate(FIM, timeout_s=10,
                                                 on_text=lambda text: streaming.set()))
    await asyncio.wait_for(streaming.wait(), 10)  # the first characters arrived
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(40):
        if fake.completion_requests()[0].aborted:
            break
        await asyncio.sleep(0.05)
    assert fake.completion_requests()[0].aborted


def test_sse_line_parsing():
    assert parse_sse_line(": keep-alive") is None
    assert parse_sse_line("") is None
    assert parse_sse_line("event: x") is None
    assert parse_sse_line("data: [DONE]") is DONE
    assert parse_sse_line('data: {"choices": []}') == {"choices": []}
    with pytest.raises(ProtocolError):
        parse_sse_line("data: {oops")
