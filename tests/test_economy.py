"""Request economy, in process: typed-through cache, in-flight reuse, stale entries never served.

The engine runs with the real DeepSeek adapter against the fake server on loopback.
"""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from flashls.completion.cache import CachedSuggestion, SuggestionCache
from flashls.completion.service import CompletionEngine
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.model.deepseek import DeepSeekClient
from flashls.settings import Settings
from tests.fake_deepseek import FakeDeepSeek, Reply

URI = "file:///w/app.py"


class Editor:
    """A tiny editor: one document, typed into at the end of a line."""

    def __init__(self, engine: CompletionEngine, docs: dict, text: str):
        self.engine, self.docs = engine, docs
        docs[URI] = ParsedDocument.open(Document(URI, text, "python", 1))
        self.cursor = text.index("█")
        self.pdoc.replace_all(text.replace("█", ""))

    @property
    def pdoc(self) -> ParsedDocument:
        return self.docs[URI]

    def type(self, chars: str) -> None:
        for ch in chars:
            line, col = self.pdoc.doc.position_at(self.cursor)
            self.pdoc.apply_change((line, col), (line, col), ch)
            self.engine.note_edit(URI)
            self.cursor += 1

    def backspace(self, count: int = 1) -> None:
        for _ in range(count):
            end = self.pdoc.doc.position_at(self.cursor)
            start = self.pdoc.doc.position_at(self.cursor - 1)
            self.pdoc.apply_change(start, end, "")
            self.cursor -= 1

    async def ask(self, invoked: bool = False):
        return await self.engine.complete(URI, self.cursor, invoked=invoked)


@pytest.fixture
def fake():
    with FakeDeepSeek(lambda req: Reply(text="total_price(items)")) as server:
        yield server


@pytest.fixture
async def engine(fake):
    client = DeepSeekClient(fake.url, "sk-test")
    settings = dataclasses.replace(Settings(), completion=dataclasses.replace(
        Settings().completion, debounce_ms=0))
    docs: dict = {}
    eng = CompletionEngine(client, settings=lambda: settings, documents=docs)
    eng.docs = docs
    yield eng
    await client.aclose()


async def until(predicate, timeout_s: float = 10.0) -> bool:
    """Wait for a condition the engine or the fake reports (no fixed sleep)."""
    for _ in range(int(timeout_s / 0.01)):
        if predicate():
            return True
        await asyncio.sleep(0.01)
    return predicate()


def streamed(engine) -> str:
    """What the one upstream stream for URI has delivered so far."""
    gens = engine._generations.get(URI, [])
    return gens[0].partial if gens else ""


async def test_typing_along_a_suggestion_makes_no_request(engine, fake):
    ed = Editor(engine, engine.docs, "result = █\n")
    first = await ed.ask()
    assert first.suggestions[0].text == "total_price(items)"
    for ch in "total_p":
        ed.type(ch)
        out = await ed.ask()
        assert out.source == "cache"
        assert out.suggestions[0].text == "total_price(items)"[ed.cursor - 9:]
    assert len(fake.completion_requests()) == 1


async def test_deleting_back_to_an_answered_position_is_served_from_memory(engine, fake):
    ed = Editor(engine, engine.docs, "result = █\n")
    await ed.ask()
    ed.type("tox")  # diverges from the suggestion
    await ed.ask()
    assert len(fake.completion_requests()) == 2
    ed.backspace(3)
    out = await ed.ask()
    assert out.source == "cache" and out.suggestions[0].text == "total_price(items)"
    assert len(fake.completion_requests()) == 2


async def test_cache_never_serves_when_text_after_the_cursor_changed(engine, fake):
    ed = Editor(engine, engine.docs, "result = █\nnext_line()\n")
    await ed.ask()
    # change text after the cursor (another line) and come back to the same prefix
    line = ed.pdoc.doc.line_count - 2
    ed.pdoc.apply_change((line, 0), (line, 0), "# note\n")
    out = await ed.ask()
    assert out.source == "model"
    assert len(fake.completion_requests()) == 2


async def test_typing_what_is_being_streamed_waits_for_that_stream(engine, fake):
    fake.responder = lambda req: Reply(text="total_price(items)", chunk_chars=2,
                                       chunk_delay_s=0.05)
    ed = Editor(engine, engine.docs, "result = █\n")
    first = asyncio.ensure_future(ed.ask())
    assert await until(lambda: streamed(engine).startswith("tot"))  # chunks arrived
    ed.type("to")
    second = await ed.ask()
    assert second.source == "inflight"
    assert second.suggestions[0].text == "tal_price(items)"
    assert (await first).suggestions == []  # superseded
    assert len(fake.completion_requests()) == 1
    # the stream ran to its end (the fake marks that after its last write: wait for it)
    for _ in range(100):
        if fake.completion_requests()[0].completed:
            break
        await asyncio.sleep(0.02)
    assert fake.completion_requests()[0].completed
    assert not fake.completion_requests()[0].aborted


async def test_diverging_from_the_stream_cancels_it(engine, fake):
    fake.responder = lambda req: Reply(text="total_price(items)", chunk_chars=1,
                                       chunk_delay_s=0.05)
    ed = Editor(engine, engine.docs, "result = █\n")
    first = asyncio.ensure_future(ed.ask())
    assert await until(lambda: streamed(engine).startswith("t"))  # streaming
    fake.responder = lambda req: Reply(text="1")
    ed.type("z")
    second = await ed.ask()
    await first
    assert second.source == "model" and second.suggestions[0].text == "1"
    reqs = fake.completion_requests()
    assert len(reqs) == 2
    for _ in range(40):
        if reqs[0].aborted:
            break
        await asyncio.sleep(0.05)
    assert reqs[0].aborted


def test_cache_is_bounded_in_entries_and_memory():
    cache = SuggestionCache(max_entries=50, max_bytes=40_000)
    for i in range(200):
        cache.put_suggestion(f"prefix {i}", "", "scope",
                             CachedSuggestion("x" * 300, 0, "m", str(i)))
    assert len(cache) <= 50
    assert cache.approx_bytes <= 40_000


def test_forwarding_entries_cover_the_suggestion_and_stop_at_its_end():
    cache = SuggestionCache()
    cache.put_suggestion("a = ", "\n", "s", CachedSuggestion("foo()", 0, "m", "id"))
    from flashls.completion.cache import CacheKey, suffix_key, text_key
    get = lambda before: cache.get(CacheKey(text_key(before), suffix_key("\n"), "s"))
    assert get("a = ").text == "foo()"
    assert get("a = fo").text == "o()"
    assert get("a = foo()") is None  # fully typed: nothing left to show
    assert get("a = fox") is None


async def test_speculation_prefetches_after_acceptance_only_when_enabled(engine, fake):
    ed = Editor(engine, engine.docs, "result = █\n")
    first = await ed.ask()
    ed.type(first.suggestions[0].text)  # accept: the text is now in the document
    assert engine.accepted(first.suggestions[0].id) is False  # off by default
    assert len(fake.completion_requests()) == 1
    settings = engine.settings()
    on = dataclasses.replace(settings, completion=dataclasses.replace(
        settings.completion, speculate=True))
    engine.settings = lambda: on
    fake.responder = lambda req: Reply(text=" + tax")
    assert engine.accepted(first.suggestions[0].id) is True
    await asyncio.gather(*engine._prefetches)
    out = await ed.ask()
    assert out.source == "cache" and out.suggestions[0].text == " + tax"
    assert len(fake.completion_requests()) == 2


async def test_invoked_requests_offer_distinct_candidates(fake):
    """A multi-line answer gives two candidates, through the server's own cleaning and
    candidate path (build_engine): all of it, and its first line."""
    from flashls.completion.factory import build_engine
    model = DeepSeekClient(fake.url, "sk-test")
    settings = dataclasses.replace(Settings(), completion=dataclasses.replace(
        Settings().completion, debounce_ms=0))
    docs: dict = {}
    engine = build_engine(model, settings=lambda: settings, documents=docs, roots=lambda: [])
    body = "    total = 0\n    for item in items:\n        total += item\n    return total"
    fake.responder = lambda req: Reply(text=body.removeprefix("    "))
    try:
        ed = Editor(engine, docs, "def add_all(items):\n    █\n")
        out = await ed.ask(invoked=True)
        assert [s.text for s in out.suggestions] == [body.removeprefix("    "), "total = 0"]
        assert len(fake.completion_requests()) == 1
    finally:
        await model.aclose()


async def test_invoked_with_identical_samples_returns_one(engine, fake):
    ed = Editor(engine, engine.docs, "result = █\n")
    out = await ed.ask(invoked=True)
    assert [s.text for s in out.suggestions] == ["total_price(items)"]


async def test_an_edit_during_the_wait_cancels_the_request(engine, fake):
    """The request is built near the end of the debounce wait; an edit that arrives
    after that (with no new request) makes it stale: nothing is sent."""
    settings = engine.settings()
    slow = dataclasses.replace(settings, completion=dataclasses.replace(
        settings.completion, debounce_ms=300))
    engine.settings = lambda: slow
    engine._prepare_ema_ms = 250.0  # build early in the wait: 300 ms before it ends
    built = asyncio.Event()
    prepare = engine._prepare

    def prepare_and_tell(*args, **kwargs):
        result = prepare(*args, **kwargs)
        built.set()  # the real request, built: the engine now waits out the debounce
        return result

    engine._prepare = prepare_and_tell
    ed = Editor(engine, engine.docs, "note = 1\nresult = █\n")
    pending = asyncio.ensure_future(ed.ask())
    await asyncio.wait_for(built.wait(), 10)
    ed.pdoc.apply_change((0, 0), (0, 0), "# edited\n")  # no new request for it
    outcome = await pending
    assert outcome.suggestions == [] and "changed" in outcome.reason
    assert fake.completion_requests() == []


async def test_the_debounce_counts_from_the_keystroke_not_from_the_request(engine, fake):
    """The wait ends `debounceMs` after the keystroke that brought the request: the
    time its messages took to be read and handled is part of it. The debouncer's
    clock is stepped: the keystroke at 100 s, the request handled 59.99 s later with a
    60 s debounce, so 10 ms are left (counted from the request, a minute)."""
    settings = engine.settings()
    long_wait = dataclasses.replace(settings, completion=dataclasses.replace(
        settings.completion, debounce_ms=60_000))
    engine.settings = lambda: long_wait
    now = [100.0]
    engine.debouncer.clock = lambda: now[0]
    ed = Editor(engine, engine.docs, "result = █\n")
    ed.type("t")  # the keystroke, at 100 s
    now[0] += 59.99
    outcome = await asyncio.wait_for(ed.ask(), 20)
    assert outcome.suggestions and len(fake.completion_requests()) == 1
