"""The "thinking" status goes to the editor once the upstream request's body is on the
wire, not before it: written before the send, the notification woke the editor's
process exactly when the request was to leave (on a loaded 2-core machine the two
then compete for a core, and the send waits)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from flashls.lsp.foreground import Foreground
from flashls.lsp.session import StatusEvents
from flashls.model.types import ModelResult


class _Protocol:
    def __init__(self):
        self.states: list[str] = []

    def notify(self, method: str, params: dict) -> None:
        assert method == "flashls/status"
        self.states.append(params["state"])


def _events() -> tuple[StatusEvents, _Protocol]:
    protocol = _Protocol()
    session = SimpleNamespace(server=SimpleNamespace(protocol=protocol),
                              foreground=Foreground(), upstream_failed=lambda err: None)
    return StatusEvents(session), protocol


def _result() -> ModelResult:
    return ModelResult(text="x", model="deepseek-flash", endpoint="fim")


def test_thinking_is_told_when_the_body_has_left():
    events, protocol = _events()
    events.request_started("completion", "deepseek-flash")
    assert protocol.states == []  # nothing written while the request is still to be sent
    events.request_sent()
    assert protocol.states == ["thinking"]
    events.request_sent()  # a second report (or another request's) says nothing more
    events.request_finished("completion", _result(), None, "shown")
    assert protocol.states == ["thinking", "ready"]


def test_an_answer_without_a_sent_report_still_says_thinking_first():
    events, protocol = _events()
    events.request_started("completion", "deepseek-flash")
    events.request_finished("completion", _result(), None, "shown")
    assert protocol.states == ["thinking", "ready"]


async def test_a_transport_that_never_reports_the_send_gets_thinking_on_a_timer():
    events, protocol = _events()
    events.thinking_fallback_s = 0.01
    events.request_started("completion", "deepseek-flash")
    await asyncio.sleep(0.05)
    assert protocol.states == ["thinking"]
    events.request_sent()  # late: already told
    assert protocol.states == ["thinking"]


async def test_the_servers_send_report_reaches_the_status(tmp_path):
    from flashls.lsp.server import create_server
    from flashls.model import streaming
    server = create_server()
    session = server.session
    told: list[str] = []
    session.events._notify = lambda state, *a, **k: told.append(state)
    session.events.request_started("completion", "deepseek-flash")
    assert told == []
    streaming.on_request_sent()  # what httpcore's trace calls when the body is written
    assert told == ["thinking"]
