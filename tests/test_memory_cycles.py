"""A cancelled completion frees its document snapshot by reference counting alone.

Editors cancel most inline-completion requests. A cancelled asyncio task keeps its
CancelledError, whose traceback holds the frames the cancellation went through, and
those frames hold the request's snapshot of the document (text, bytes, tree copy).
When something in those frames points back at the task (an object storing its own
task), the whole snapshot is a reference cycle that only a full collection frees,
and the server's GC policy makes full collections rare: a 15,000-line file typed in
with cancelled requests grew the soak's RSS by 400-800 MB a minute. These tests
run with the cyclic collector disabled and check that nothing of a cancelled
request's snapshot survives once its tasks ended.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import weakref

import pytest

from flashls.completion.service import CompletionEngine, window_only_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.model.deepseek import DeepSeekClient
from flashls.settings import Settings
from tests.fake_deepseek import FakeDeepSeek, Reply

URI = "file:///w/big.py"
TEXT = "".join(f"def f_{i}(x):\n    return x + {i}\n\n" for i in range(400)) + "value = \n"


@pytest.fixture
def no_cyclic_gc():
    """Reference counting only: what the server does between its rare full collections."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@dataclasses.dataclass
class Snapshots:
    """The requests' snapshots, seen by the context provider, held weakly."""
    refs: dict[int, weakref.ref] = dataclasses.field(default_factory=dict)

    def add(self, pdoc: ParsedDocument) -> None:
        self.refs[id(pdoc)] = weakref.ref(pdoc)

    def alive(self) -> int:
        return sum(ref() is not None for ref in self.refs.values())


def _engine(fake: FakeDeepSeek, snapshots: Snapshots
            ) -> tuple[CompletionEngine, DeepSeekClient]:
    base = Settings()
    settings = dataclasses.replace(base, completion=dataclasses.replace(
        base.completion, debounce_ms=0, timeout_ms=60_000))

    def context(pdoc: ParsedDocument, offset: int, budget_tokens: int):
        snapshots.add(pdoc)  # the request's own frozen copy
        return window_only_context(pdoc, offset, budget_tokens)

    client = DeepSeekClient(fake.url, "sk-test")
    docs = {URI: ParsedDocument.open(Document(URI, TEXT, "python", 1), "/w/big.py")}
    return CompletionEngine(client, settings=lambda: settings, documents=docs,
                            context=context), client


def _generation_tasks() -> list[asyncio.Task]:
    """The engine's upstream generations running now (each its own task)."""
    return [t for t in asyncio.all_tasks()
            if getattr(t.get_coro(), "__qualname__", "").endswith("._produce")]


async def _until_ended(tasks: list[asyncio.Task]) -> None:
    if tasks:
        await asyncio.wait(tasks)


async def test_a_cancelled_request_leaves_no_cycle_holding_its_snapshot(no_cyclic_gc):
    snapshots = Snapshots()
    with FakeDeepSeek(lambda req: Reply(fault="never_answer")) as fake:
        engine, client = _engine(fake, snapshots)
        try:
            request = asyncio.ensure_future(engine.complete(URI, len(TEXT) - 1))
            await asyncio.to_thread(fake.wait_for_requests, 1)  # upstream, in flight
            generations = _generation_tasks()
            assert len(generations) == 1
            request.cancel()  # the editor's $/cancelRequest
            await asyncio.wait([request])
            await _until_ended(generations)
            assert request.cancelled() and generations[0].cancelled()
            del request, generations
            assert len(snapshots.refs) == 1 and snapshots.alive() == 0, \
                "a cancelled request's snapshot is kept alive by a reference cycle"
        finally:
            await client.aclose()


async def test_a_superseded_request_leaves_no_cycle_holding_its_snapshot(no_cyclic_gc):
    snapshots = Snapshots()
    with FakeDeepSeek(lambda req: Reply(fault="never_answer")) as fake:
        engine, client = _engine(fake, snapshots)
        try:
            first = asyncio.ensure_future(engine.complete(URI, len(TEXT) - 1))
            await asyncio.to_thread(fake.wait_for_requests, 1)
            pdoc = engine.documents[URI]
            # an edit above the cursor: the stream in flight cannot serve the next request
            pdoc.apply_change((0, 0), (0, 0), "#\n")
            pdoc.doc.version += 1
            second = asyncio.ensure_future(engine.complete(URI, len(pdoc.doc.text) - 1))
            outcome = await first
            assert outcome.reason == "superseded by a newer request"
            await asyncio.to_thread(fake.wait_for_requests, 2)
            generations = _generation_tasks()
            second.cancel()
            await asyncio.wait([second])
            await _until_ended(generations)
            del first, second, generations, outcome
            assert len(snapshots.refs) == 2 and snapshots.alive() == 0, \
                "a superseded request's snapshot is kept alive by a reference cycle"
        finally:
            await client.aclose()


def test_rendering_an_outline_leaves_no_cyclic_garbage(no_cyclic_gc):
    """`render` runs on every context build; a recursive local function is a cycle
    (function -> its closure cell -> function) holding the rendered lines."""
    from flashls.context.outline import Item, render
    items = (Item("Box", "class", 1, 0, 9, ("class Box:",), (), -1, 3),
             Item("get", "method", 2, 1, 2, ("    def get(self): ...",), (), 0, 5),
             Item("put", "method", 2, 3, 4, ("    def put(self, v): ...",), (), 0, 6))
    gc.collect()
    assert render(items, {0, 1, 2}) == ("class Box:\n    def get(self): ...\n"
                                        "    def put(self, v): ...\n")
    assert gc.collect() == 0


def test_a_sliced_parse_keeps_memory_bounded_by_the_source_not_by_its_halts():
    """py-tree-sitter 0.26.1 never frees some of the chunks a read callback returns
    (a halted parse re-reads one on every resume): each chunk must stay small, or a
    big document's background parse leaks halts x chunk bytes (64 KB chunks: 35 MB
    for a 100 KB file halted 1,200 times; the soak's RSS grew with it)."""
    import tracemalloc

    from flashls.context.languages import language_for
    from flashls.context.syntax import _sliced_parse
    source = (TEXT[:TEXT.index("value = ")] * 4).encode()  # 400 functions, 4 times
    spec = language_for("python", "/w/big.py")
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        steps = _sliced_parse(spec.parser(), source, None, 0.0, lambda: False)
        halts = 0
        try:
            while True:
                next(steps)
                halts += 1
        except StopIteration as done:
            tree = done.value
        assert tree is not None and not tree.root_node.has_error and halts > 100
        del tree, steps
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 20 * len(source), f"{kept >> 10} KB kept after a {len(source) >> 10} KB parse"


def _kept_by(parse) -> int:
    """Traced bytes still allocated after `parse()` ran and its tree was dropped."""
    import tracemalloc
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tree = parse()
        assert tree is not None and not tree.root_node.has_error
        del tree
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_a_read_callback_parse_keeps_nothing_in_proportion_to_the_source():
    """py-tree-sitter 0.26.1's read wrapper never drops its reference to what the
    callback returns (`PyObject_GetBuffer` takes one of its own, `rv` is never
    released): every chunk a parse reads stays allocated for the life of the
    process. Python's incremental reparse reads the whole file (its external
    scanner), so each idle reparse of the 15,000-line file kept ~400 KB and each
    background parse ~2x the source. Chunks are now views of one reused buffer: a
    parse keeps a few hundred bytes, whatever the size of the source or its halts."""
    from flashls.context.languages import language_for
    from flashls.context.syntax import _sliced_parse
    spec = language_for("python", "/w/big.py")
    small = (TEXT[:TEXT.index("value = ")] * 4).encode()
    big = small * 8  # 8x the source, 8x the chunks read

    def run(steps):
        try:
            while True:
                next(steps)
        except StopIteration as done:
            return done.value

    def sliced(source: bytes, slice_s: float):
        return lambda: run(_sliced_parse(spec.parser(), source, None, slice_s, lambda: False))

    def reparse(source: bytes):  # an incremental reparse after one edit (the idle one)
        parser = spec.parser()
        tree = parser.parse(source)
        mid = source.index(b"\n", len(source) // 2) + 1
        edited = source[:mid] + b"x = 1\n" + source[mid:]
        row = source.count(b"\n", 0, mid)
        tree.edit(mid, mid, mid + 6, (row, 0), (row, 0), (row + 1, 0))

        return lambda: run(_sliced_parse(parser, edited, tree, 1.0, lambda: False))

    _kept_by(sliced(small, 1.0))  # the grammar's one-off allocations
    for parse in (sliced(small, 1.0), sliced(big, 1.0), sliced(big, 0.0), reparse(big)):
        kept = _kept_by(parse)
        assert kept < 16_384, f"{kept >> 10} KB kept by one parse of {len(big) >> 10} KB"
