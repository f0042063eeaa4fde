"""The action pipeline in-process: real DeepSeek adapter, fake DeepSeek server, no LSP."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from flashls.actions.pipeline import ActionFailed, ActionRunner
from flashls.actions.service import ActionService, Target
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.model.deepseek import DeepSeekClient
from flashls.model.gate import UpstreamGate
from flashls.settings import Settings
from tests.fake_deepseek import FakeDeepSeek, Reply

SOURCE = "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n"
BODY = Target("file:///w/t.py", (1, 0), (5, 0))


class Events:
    """Records status events like the session's StatusEvents."""

    def __init__(self):
        self.started: list[str] = []
        self.finished: list[str] = []

    def request_started(self, kind, model):
        self.started.append(model)

    def request_finished(self, kind, result, error, outcome):
        assert kind == "action"
        self.finished.append(outcome)


@pytest.fixture
async def setup():
    fake = FakeDeepSeek().start()
    model = DeepSeekClient(fake.url, "sk-test")
    settings = Settings()
    events = Events()
    gate = UpstreamGate()
    docs = {BODY.uri: ParsedDocument.open(Document(BODY.uri, SOURCE, "python", 3), "t.py")}
    state = {"settings": settings}
    runner = ActionRunner(model=lambda: model, settings=lambda: state["settings"],
                          gate=lambda: gate, events=events)
    service = ActionService(runner, documents=docs, settings=lambda: state["settings"],
                            path_of=lambda uri: uri.rsplit("/", 1)[-1],
                            roots=lambda: [Path("/w")])  # the document is in the workspace
    yield fake, service, events, state, gate
    await model.aclose()
    fake.stop()


async def test_retryable_upstream_error_moves_to_the_next_attempt(setup):
    fake, service, events, _, _ = setup
    calls = []

    def responder(req):
        calls.append(req.model)
        return Reply(status=500) if len(calls) == 1 else Reply(text="```\nreturn sum(items)\n```")
    fake.responder = responder
    result = await service.rewrite(BODY, "simplify")
    assert result.edit.new_text == "    return sum(items)\n"
    assert result.edit.version == 3 and result.edit.start == (1, 0)
    assert [a.ok for a in result.attempts] == [False, True]
    assert "500" in result.attempts[0].reason
    assert calls == ["deepseek-flash", "deepseek-flash"]
    assert events.finished == ["error", "edit"] and len(events.started) == 2


async def test_non_retryable_error_stops_at_once(setup):
    fake, service, events, _, gate = setup
    fake.responder = lambda req: Reply(status=402)
    with pytest.raises(ActionFailed) as info:
        await service.rewrite(BODY, "simplify")
    assert info.value.told  # the status events told the user once already
    assert "402" in str(info.value) and "not changed" in str(info.value)
    assert len(fake.completion_requests()) == 1
    assert gate.closed_reason() is not None


async def test_answer_cut_off_at_max_tokens_is_rejected(setup):
    fake, service, events, _, _ = setup
    fake.responder = lambda req: Reply(text="```\nreturn s\n```", finish_reason="length")
    with pytest.raises(ActionFailed, match="cut off at flashls.actions.maxTokens"):
        await service.rewrite(BODY, "simplify")
    assert events.finished == ["rejected"] * 3


async def test_refusals_make_no_request(setup):
    fake, service, _, state, _ = setup
    state["settings"] = dataclasses.replace(
        state["settings"], actions=dataclasses.replace(state["settings"].actions, max_tokens=5))
    with pytest.raises(ActionFailed, match="more than flashls.actions.maxTokens"):
        await service.rewrite(BODY, "simplify")
    state["settings"] = dataclasses.replace(Settings(), exclude=["t.py"])
    assert service.selection(BODY) is None  # never offered
    with pytest.raises(ActionFailed, match="t.py: not sent: excluded"):
        await service.explain(BODY)
    state["settings"] = Settings()
    with pytest.raises(ActionFailed, match="changed since"):
        await service.rewrite(dataclasses.replace(BODY, version=2), "simplify")
    with pytest.raises(ActionFailed, match="non-empty selection"):
        await service.rewrite(dataclasses.replace(BODY, end=(1, 0)), "simplify")
    assert fake.completion_requests() == []


async def test_empty_explanation_escalates_once(setup):
    fake, service, _, _, _ = setup
    fake.responder = lambda req: Reply(text="" if req.model == "deepseek-flash" else "Sums.")
    outcome = await service.explain(BODY)
    assert (outcome.markdown, outcome.model) == ("Sums.", "deepseek-v4-pro")
    assert [r.model for r in fake.completion_requests()] == ["deepseek-flash",
                                                             "deepseek-v4-pro"]


async def test_positions_follow_the_documents_encoding(setup):
    fake, service, _, _, _ = setup
    text = "label = '😀中'; x = compute(a,  b)\n"
    uri = "file:///w/u.py"
    service.documents[uri] = ParsedDocument.open(Document(uri, text, "python", 1, "utf-16"),
                                                 "u.py")
    start = len(text[:text.index("compute")].encode("utf-16-le")) // 2  # 😀 is 2 units
    end = start + len("compute(a,  b)")
    fake.responder = lambda req: Reply(text="```\ncompute(a, b)\n```")
    result = await service.rewrite(Target(uri, (0, start), (0, end)), "simplify")
    assert (result.edit.start, result.edit.end) == ((0, start), (0, end))
    assert result.edit.new_text == "compute(a, b)"
    sent = fake.completion_requests()[0].body["messages"][-1]["content"]
    assert "label = '😀中'; x = <<<SELECTION>>>" in sent


async def test_an_api_error_echoing_the_key_is_not_repeated(setup):
    fake, service, _, _, _ = setup
    key = "sk-abcdefghijklmnopqrstuvwxyz0123"
    fake.responder = lambda req: Reply(status=500, error_body='{"error": {"message": '
                                       f'"overloaded for key {key}"}}}}')
    with pytest.raises(ActionFailed) as info:
        await service.rewrite(BODY, "simplify")
    assert "500" in str(info.value) and key not in str(info.value)
    assert all(key not in a.reason for a in info.value.attempts)
