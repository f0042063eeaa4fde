"""Settings pushed by the editor while the server is reading them (`workspace/configuration`).

Neovim's plugin pushes its whole settings object with `didChangeConfiguration` when a
setting changes; the server also pulls them at `initialized`. An answer to the pull that
the editor wrote before the push, but that the server resumes after it, must not undo
the push: that was the intermittent "a completion with the new model" failure of the real
Neovim test, where `set_setting('model', ...)` right after start-up was lost.
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types as lsp

from flashls.lsp.server import create_server


class PendingConfiguration:
    """Stands in for the editor's side of `workspace/configuration`: the answer is given
    when the test says so, and the test can wait until the question was asked."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.answer: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()

    def __call__(self, params: lsp.ConfigurationParams) -> asyncio.Future[list[Any]]:
        self.asked.set()
        return self.answer


def pulling_session(pending: PendingConfiguration):
    server = create_server()
    server.workspace_configuration_async = pending  # the editor's answer, held
    session = server.session
    session.client_pulls_configuration = True
    return session


async def test_a_push_while_the_settings_are_read_is_not_undone_by_the_older_answer():
    pending = PendingConfiguration()
    session = pulling_session(pending)
    pull = asyncio.ensure_future(session.pull_settings())
    await pending.asked.wait()
    session.push_settings({"model": "deepseek-flash-new"})
    pending.answer.set_result([{"model": "deepseek-flash-old"}])  # written before the push
    await pull
    assert session.settings.model == "deepseek-flash-new"


async def test_a_pull_with_no_push_meanwhile_applies_its_answer():
    pending = PendingConfiguration()
    session = pulling_session(pending)
    pull = asyncio.ensure_future(session.pull_settings())
    await pending.asked.wait()
    pending.answer.set_result([{"model": "deepseek-flash-pulled"}])
    await pull
    assert session.settings.model == "deepseek-flash-pulled"


async def test_a_push_before_the_pull_started_does_not_void_it():
    pending = PendingConfiguration()
    session = pulling_session(pending)
    session.push_settings({"model": "deepseek-flash-pushed"})
    pull = asyncio.ensure_future(session.pull_settings())
    await pending.asked.wait()
    pending.answer.set_result([{"model": "deepseek-flash-pulled"}])
    await pull
    assert session.settings.model == "deepseek-flash-pulled"
