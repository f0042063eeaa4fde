"""Opening a big file: the first request is served with what is ready and never waits
for the background preparation, and a huge top-level node is extracted in slices
with exactly the result of a fresh analysis."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from benchmarks.bigfiles import synthetic_python
from flashls.context import analysis
from flashls.context.analysis import _ROWS_PER_LOOK, analyze, analyze_steps
from flashls.context.assemble import assemble_context
from flashls.context.background import needs_background, preparation_steps
from flashls.context.document import Document
from flashls.context.syntax import BACKGROUND_BYTES, ParsedDocument
from flashls.lsp import session as session_module
from flashls.lsp.foreground import AFTER_ANSWER_S, Foreground
from flashls.lsp.server import create_server, foreground_kind
from flashls.lsp.stdio import LoopStdin
from flashls.lsp.warmup import warm_up
from tests.fake_deepseek import FakeDeepSeek, Reply
from tests.test_bigfiles import _fresh_context as fresh_context, _summary, \
    prepare_while_editing

URI = "file:///work/huge.py"


def huge_class(methods: int = 1500) -> str:
    """One top-level node of ~7,500 lines (a generated client, a legacy god class)."""
    body = "".join(f"    def method_{i}(self, value, scale={i % 5}):\n"
                   f"        \"\"\"Step {i}.\"\"\"\n"
                   f"        total_{i} = value * scale + {i}\n"
                   f"        return self.method_{(i + 1) % methods}(total_{i})\n\n"
                   for i in range(methods))
    return f"import os\n\n\nclass Huge:\n{body}\nHUGE = Huge()\n"


HUGE = huge_class()


@pytest.fixture(autouse=True)
def _clean():
    analysis.clear()
    yield
    analysis.clear()


def _fresh_context(text: str, offset: int) -> tuple:
    return fresh_context(text, offset, URI)


def _background_doc(text: str) -> ParsedDocument:
    pdoc = ParsedDocument.open(Document(URI, text, "python", 1), URI)
    pdoc.background = True
    return pdoc


# -- a huge node in slices --------------------------------------------------------------
def test_a_huge_node_is_extracted_in_slices_with_the_fresh_result():
    pdoc = _background_doc(HUGE)
    assert len(HUGE.encode()) > BACKGROUND_BYTES
    spec = pdoc.spec
    tree = spec.parser().parse(pdoc.doc.source_bytes)
    top_level = tree.root_node.children
    huge_rows = max(n.end_point[0] - n.start_point[0] for n in top_level)
    steps = analyze_steps(spec, HUGE, tree.copy(), ("k", 1), "sliced", slice_s=0.0)
    yields = sum(1 for _ in steps)
    # every block of rows of the huge node looked at the clock and yielded: the loop
    # handles other messages between them (before: one step for the whole node)
    assert yields >= huge_rows // _ROWS_PER_LOOK > 20
    sliced = analysis._CURRENT[(spec.name, ("k", 1))]
    analysis.clear()
    fresh = analyze(spec, HUGE, ("k", 2), tree=tree)
    assert (sliced.items, sliced.imports, sliced.usages, sliced.top_starts) == (
        fresh.items, fresh.imports, fresh.usages, fresh.top_starts)
    assert any(it.name == "method_1200" for it in fresh.items)


@pytest.mark.parametrize("edit_at_step", [1, 30, 60, 200])
def test_edits_during_a_huge_nodes_extraction_end_in_the_fresh_analysis(edit_at_step):
    """Edits inside the huge node while it is extracted (and an Enter that shifts
    every following line): the context afterwards is a fresh analysis's."""
    pdoc = _background_doc(HUGE)
    lines = HUGE.split("\n")
    edits = [(2000, len(lines[2000]), "  # typed"), (40, len(lines[40]), "\n        extra = 1"),
             (6000, 0, "    def inserted(self, a):\n        return a\n\n")]
    prepare_while_editing(pdoc, edits, edit_at_step)
    text = pdoc.doc.text
    offset = text.index("extra = 1") + 3
    got = _summary(assemble_context(pdoc.snapshot(), offset, budget_tokens=3000))
    assert "def inserted" in text and got[0]  # an outline, not the window alone
    assert got == _fresh_context(text, offset)


# -- the foreground comes first ---------------------------------------------------------
async def test_a_held_foreground_keeps_the_preparation_waiting_until_released():
    foreground = Foreground(max_hold_s=3600)
    token = foreground.hold("x")
    turn = asyncio.ensure_future(foreground.turn())
    for _ in range(20):
        await asyncio.sleep(0)
    assert not turn.done() and foreground.waits == 1
    foreground.release(token)
    await asyncio.wait_for(turn, 10)
    assert not foreground.busy()


def test_an_upstream_call_releases_the_holds_and_forgotten_ones_expire():
    foreground = Foreground(max_hold_s=3600)
    first, second = foreground.hold("a"), foreground.hold("b")
    foreground.release(first)
    assert foreground.busy()  # the other request still holds
    foreground.release_all(after_s=3600)  # its upstream call left: not yet expired
    assert foreground.busy()
    foreground.release_all()
    assert not foreground.busy() and second
    forgotten = Foreground(max_hold_s=0.0)
    forgotten.hold("lost")  # never released: it expires, the preparation goes on
    assert not forgotten.busy()


def test_unread_input_holds_the_preparation_back():
    async def check():
        stream = asyncio.StreamReader()
        reader = LoopStdin(stream)
        assert not reader.has_input()
        stream.feed_data(b"Content-Length: 2\r\n\r\n{}")
        assert reader.has_input()
        await reader.readline()
        await reader.readline()
        await reader.readexactly(2)
        assert not reader.has_input()
    asyncio.run(check())


def test_only_requests_hold_and_automatic_completions_do_not():
    server = create_server()
    protocol = server.protocol

    def message(data):
        return protocol.structure_message({"jsonrpc": "2.0", **data})

    position = {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}}
    invoked = message({"id": 1, "method": "textDocument/inlineCompletion",
                       "params": {**position, "context": {"triggerKind": 1}}})
    automatic = message({"id": 2, "method": "textDocument/inlineCompletion",
                         "params": {**position, "context": {"triggerKind": 2}}})
    command = message({"id": 3, "method": "workspace/executeCommand",
                       "params": {"command": "flashls.showSettings"}})
    change = message({"method": "$/cancelRequest", "params": {"id": 1}})
    assert foreground_kind(invoked) == "textDocument/inlineCompletion"
    assert foreground_kind(automatic) is None and foreground_kind(change) is None
    assert foreground_kind(command) == "workspace/executeCommand"


async def test_the_warm_up_structures_every_sample_message():
    server = create_server()
    assert warm_up(server.protocol) == []


# -- through the protocol: the first request does not wait ---------------------------------
class _Collect:
    """The server's output, parsed; `answered` is set when a response arrives."""

    def __init__(self):
        self.messages: list[dict] = []
        self.answered = asyncio.Event()

    def write(self, data: bytes) -> None:
        body = data.split(b"\r\n\r\n", 1)[1]
        message = json.loads(body)
        self.messages.append(message)
        if "id" in message and "method" not in message:
            self.answered.set()

    def close(self) -> None:
        pass


async def test_a_request_right_after_opening_is_served_before_any_preparation_step(
        tmp_path, monkeypatch):
    """didOpen of a big file then at once an invoked completion: no step of the
    background preparation runs before the completion's upstream call is made (they
    used to interleave with each of its steps: a third of its server time), and the
    answer comes from the window while the preparation still has its work ahead."""
    steps_run = [0]

    def counted(pdoc, *args, **kwargs):
        for _ in preparation_steps(pdoc, *args, **kwargs):
            steps_run[0] += 1
            yield

    monkeypatch.setattr(session_module, "preparation_steps", counted)
    fake = FakeDeepSeek(lambda req: Reply(text="value = 1"), latency_s=0.0).start()
    server = create_server()
    session = server.session
    session.foreground.max_hold_s = 3600  # however slow this machine, the hold holds
    seen_at_upstream: list[tuple[int, bool]] = []
    started = session.events.request_started

    def request_started(kind, model):
        seen_at_upstream.append((steps_run[0], needs_background(session.documents[uri])))
        started(kind, model)

    session.events.request_started = request_started
    out = _Collect()
    server.protocol.set_writer(out)
    protocol = server.protocol

    def send(data):
        protocol.handle_message(protocol.structure_message({"jsonrpc": "2.0", **data}))

    text = synthetic_python(1400)
    path = tmp_path / "big.py"
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    try:
        send({"id": 1, "method": "initialize", "params": {
            "capabilities": {}, "rootUri": tmp_path.as_uri(),
            "initializationOptions": {"baseUrl": fake.url, "apiKey": "sk-open-0123456789",
                                      "completion": {"debounceMs": 0}}}})
        send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}}})
        out.answered.clear()
        send({"id": 2, "method": "textDocument/inlineCompletion", "params": {
            "textDocument": {"uri": uri}, "position": {"line": 7000, "character": 4},
            "context": {"triggerKind": 1}}})
        while not any(m.get("id") == 2 for m in out.messages):
            out.answered.clear()
            await asyncio.wait_for(out.answered.wait(), 60)
        answer = next(m for m in out.messages if m.get("id") == 2)
        assert answer["result"]["items"], answer  # the window was enough
        assert seen_at_upstream == [(0, True)]  # no step ran, nothing was ready yet
        assert session.foreground.waits >= 1  # the preparation did want to run
        preparing = session._preparing.get(uri)  # None: it already finished
        if preparing is not None:
            await asyncio.wait_for(preparing, 120)
        assert not needs_background(session.documents[uri]) and steps_run[0] > 10
    finally:
        await session.close()
        fake.stop()


# -- neighbor files: what is ready now, the rest in the background -------------------------
def _project(tmp_path, big_functions: int = 600):
    (tmp_path / "helpers.py").write_text(synthetic_python(big_functions), encoding="utf-8")
    (tmp_path / "small.py").write_text("def tiny(a):\n    return a\n", encoding="utf-8")
    main = "from helpers import handler_5\nfrom small import tiny\n\n\ndef run(v):\n" \
           "    return handler_5(tiny(v))\n"
    (tmp_path / "main.py").write_text(main, encoding="utf-8")
    return main


def test_a_big_neighbor_is_analyzed_in_the_background_then_joins(tmp_path, monkeypatch):
    from flashls.context.background import NEIGHBOR_SPOT_BYTES, NEIGHBORS
    from flashls.context.neighbors import neighbor_files
    from flashls.context.workspace import Workspace
    told = []
    monkeypatch.setattr(NEIGHBORS, "on_added", lambda: told.append(1))
    monkeypatch.setattr(NEIGHBORS, "pending", {})
    main = _project(tmp_path)
    assert len((tmp_path / "helpers.py").read_bytes()) > NEIGHBOR_SPOT_BYTES
    workspace = Workspace([str(tmp_path)])
    path = str(tmp_path / "main.py")
    pdoc = ParsedDocument.open(Document((tmp_path / "main.py").as_uri(), main, "python", 1),
                               path)
    mine = analyze(pdoc.spec, main, ("main", 1))
    before = analysis.stats["chunks_extracted"]
    first = neighbor_files(pdoc.spec, path, mine, workspace, {}, background=True)
    # the small import is analyzed on the spot, the big one is not (600 functions)
    assert [f.source for f in first] == ["small.py"]
    assert analysis.stats["chunks_extracted"] - before < 10
    assert told and len(NEIGHBORS.pending) == 1  # the server is told, then runs it:
    while (steps := NEIGHBORS.next_steps()) is not None:
        # in slices (how many depends on the machine's speed: 4 ms each)
        assert sum(1 for _ in steps) >= 2
    later = neighbor_files(pdoc.spec, path, mine, workspace, {}, background=True)
    assert [f.source for f in later] == ["helpers.py", "small.py"]
    # exactly what an analysis on the spot gives (a direct caller's)
    analysis.clear()
    fresh = {f.source: f.analysis for f in neighbor_files(pdoc.spec, path, mine,
                                                          workspace, {})}
    for f in later:
        assert f.analysis.items == fresh[f.source].items
        assert f.analysis.usages == fresh[f.source].usages
        assert f.analysis.imports == fresh[f.source].imports


async def test_the_server_analyzes_left_neighbors_after_its_requests(tmp_path, monkeypatch):
    from flashls.context.background import NEIGHBORS
    from flashls.context.neighbors import neighbor_files
    from flashls.context.workspace import Workspace
    monkeypatch.setattr(NEIGHBORS, "pending", {})
    server = create_server()
    session = server.session
    main = _project(tmp_path)
    path = str(tmp_path / "main.py")
    spec = ParsedDocument.open(Document("file:///m.py", main, "python", 1), path).spec
    mine = analyze(spec, main, ("main", 2))
    workspace = Workspace([str(tmp_path)])
    token = session.foreground.hold("a request")
    neighbor_files(spec, path, mine, workspace, {}, background=True)
    task = session._neighbor_task
    assert task is not None
    for _ in range(20):
        await asyncio.sleep(0)
    assert not task.done() and session.foreground.waits >= 1  # waits for the request
    session.foreground.release(token)
    await asyncio.wait_for(task, 120)
    assert [f.source for f in neighbor_files(spec, path, mine, workspace, {},
                                             background=True)] == ["helpers.py", "small.py"]
    await session.close()


def test_a_code_action_on_a_big_document_being_prepared_does_not_analyze_it(tmp_path):
    from flashls.actions.context import gather
    pdoc = _background_doc(HUGE)
    for _ in pdoc.syntax.parse_steps(pdoc.doc.source_bytes):  # parsed, not analyzed
        pass
    assert pdoc.tree() is not None and needs_background(pdoc)
    before = analysis.stats["chunks_extracted"]
    start = HUGE.index("def method_700")
    ctx = gather(pdoc, start, start + 10, "huge.py")
    assert analysis.stats["chunks_extracted"] == before  # no analysis on the spot
    assert ctx.outline == "" and "method_700" in ctx.scope  # the region, as ready
    while needs_background(pdoc):
        for _ in preparation_steps(pdoc):
            pass
    assert "class Huge" in gather(pdoc, start, start + 10, "huge.py").outline


async def test_the_http_steps_of_a_model_request_reach_the_server(monkeypatch):
    """The trace of one request: its send releases the foreground, its answer holds
    it until closed (the session's listeners; a listener that raises breaks nothing)."""
    from flashls.model import streaming
    calls = []

    def started():
        calls.append("answering")
        return lambda: calls.append("closed")

    monkeypatch.setattr(streaming, "on_request_sent", lambda: calls.append("sent"))
    monkeypatch.setattr(streaming, "on_answer_started", started)
    trace = streaming._tracer()
    for event in ("connection.connect_tcp.started", "http11.send_request_headers.complete",
                  "http11.send_request_body.complete",
                  "http11.receive_response_headers.started",
                  "http11.receive_response_headers.complete",
                  "http11.receive_response_body.started", "http11.response_closed.complete"):
        await trace(event, {})
    assert calls == ["sent", "answering", "closed"]
    monkeypatch.setattr(streaming, "on_request_sent", lambda: 1 / 0)
    await streaming._tracer()("http11.send_request_body.complete", {})  # no error


async def test_an_answer_holds_the_foreground_only_for_a_request_that_holds_it():
    from flashls.lsp.foreground import handling
    server = create_server()
    session = server.session
    automatic = session._answer_hold()  # no request in this context: an automatic one
    assert not session.foreground.busy()
    marked = handling.set("textDocument/inlineCompletion")
    try:
        release = session._answer_hold()
    finally:
        handling.reset(marked)
    assert session.foreground.busy()
    release()
    automatic()
    assert not session.foreground.busy()


async def test_an_answer_holds_its_request_until_the_request_is_answered():
    """The request's own hold, let go when its upstream call left, is renewed when the
    model's answer arrives and lasts until the request is answered (not only until
    the stream closes: the clean-up and the editor's answer come after it)."""
    from flashls.lsp.foreground import handling, handling_token
    server = create_server()
    session = server.session
    foreground = session.foreground
    token = foreground.hold("textDocument/inlineCompletion")  # as `handle_message` does
    foreground.release_all()  # the upstream request was sent
    assert not foreground.busy()
    marked, marked_token = handling.set("textDocument/inlineCompletion"), \
        handling_token.set(token)
    try:
        closed = session._answer_hold()  # the answer's headers arrived
    finally:
        handling_token.reset(marked_token)
        handling.reset(marked)
    assert foreground.busy()
    closed()  # the stream closed: the answer is still being cleaned and sent
    assert foreground.busy()
    foreground.release(token)  # the request was answered
    assert not foreground.hold_again(token)  # an answered request holds nothing more
    assert not foreground.busy(now=time.monotonic() + AFTER_ANSWER_S)


def test_the_preparation_waits_a_moment_after_an_answered_request():
    """The editor's next message often follows an answer at once (the next edit and
    request of an invoked completion); a background step begun just then, the
    whole tree's reparse that cannot be halted, delayed it (a 5,000-line file invoked
    after each edit: p50 7 -> 17 ms before the upstream request)."""
    foreground = Foreground(max_hold_s=3600)
    token = foreground.hold("textDocument/inlineCompletion")
    foreground.release_all()  # its upstream request was sent
    assert foreground.hold_again(token, "answer")  # the model's answer arrived
    foreground.release(token)  # answered
    now = time.monotonic()
    assert foreground.busy(now=now)  # a moment for the next message
    assert not foreground.busy(now=now + AFTER_ANSWER_S)
    plain = Foreground(max_hold_s=3600)
    other = plain.hold("flashls.showSettings")  # answered without a model answer
    plain.release(other)
    assert not plain.busy(now=time.monotonic())
