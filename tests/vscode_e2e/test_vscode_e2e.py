"""The extension in a real VS Code: code-server in headless chromium, driven by
puppeteer-core, the flashls server from this checkout, the fake DeepSeek on loopback.

One VS Code session serves the whole module (starting one costs ~10 s); the tests run
in file order and each works in its own file. Tools come from `.ci/vscode.sh`. On a
failure, a screenshot and the logs land in build/vscode-e2e/.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest

from tests.fake_deepseek import FakeDeepSeek, Recorded, Reply
from tests.vscode_e2e.harness import (
    CACHE, ROOT, STATUS_RECORDER_JS, CodeServer, Driver, E2EFailure, Tools, Workbench,
    build_vsix,
    wait_until,
)

# The first test also pays for building the .vsix and starting VS Code.
pytestmark = pytest.mark.timeout(300)

OUT = ROOT / "build" / "vscode-e2e"
API_KEY = "sk-e2e-test-key-5678"

# What the fake model completes each line to (the rest after what is typed).
TARGETS = [
    "    total = compute_sum(values)",
    "    result = normalize(values, scale=2)",
    "    limit = clamp(values, 17)",
    "    broken = never_shown()",
]
REWRITE_INSTRUCTION = "add spaces around the operator"
REWRITTEN = "    return a + b"
EXPLANATION = "This adds **FAKE_EXPLANATION** numbers and `returns` them."

# Next edits: the parameter each file's signature renames, and what the fake then
# rewrites in the editable region (every other use of the old name).
NEXT_EDIT_SYSTEM = "You are flashls, predicting the next edit"
NEXT_EDIT_CURSOR = "<|user_cursor|>"
NEXT_EDIT_MAX_TOKENS = 99
RENAMES = {"def area(size": ("width", "size"), "def volume(length": ("side", "length"),
           "def shift(delta": ("offset", "delta")}
GEOMETRY = ("import math\n"
            "\n"
            "\n"
            "def area(width, height):\n"
            "    product = width * height\n"
            "    print('width', width)\n"
            "    return product\n")
FOCUS = ("def shift(offset, items):\n"
         "    return [i + offset for i in items]\n")
VOLUME = ("def volume(side, depth):\n"
          "    base = side * side\n"
          "    return base * depth\n")


def tools_or_skip() -> Tools:
    tools, missing = Tools.locate()
    if tools:
        return tools
    unreachable = CACHE / "unreachable"
    if unreachable.exists():
        pytest.skip(f"real-VS-Code suite skipped: {unreachable.read_text().strip()}")
    message = f"real-VS-Code tools missing ({', '.join(missing)}): run `bash .ci/vscode.sh`"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def model_text(req: Recorded) -> str:
    body = req.body
    return body.get("prompt") or "".join(m.get("content", "") for m in body.get("messages", []))


def requests_for(fake: FakeDeepSeek, marker: str, since: int = 0) -> list[Recorded]:
    """Completion requests at a cursor in one file (a late prefetch for another file is not
    news). The FIM prompt ends with the cursor's file after its last `=====` header;
    other files' text may come before it as context."""
    return [r for r in fake.completion_requests()[since:]
            if marker in r.body.get("prompt", "").rsplit("=====", 1)[-1]]


_FENCE = re.compile(r"^(`{3,})[^\n]*\n(.*?)\n\1$", re.S | re.M)


def is_next_edit(req: Recorded) -> bool:
    messages = req.body.get("messages") or [{}]
    return str(messages[0].get("content", "")).startswith(NEXT_EDIT_SYSTEM)


def next_edit_region(req: Recorded) -> str:
    """The editable region: the last fenced block of the last user message."""
    user = [m for m in req.body["messages"] if m["role"] == "user"][-1]["content"]
    return [m.group(2) for m in _FENCE.finditer(user)][-1]


def next_edit_answer(req: Recorded) -> Reply:
    """The region with the other uses of a renamed parameter renamed too (quoted words
    kept), or unchanged: one fenced block, as the contract says."""
    region = next_edit_region(req).replace(NEXT_EDIT_CURSOR, "")
    for signature, (old, new) in RENAMES.items():
        if signature in region:
            region = re.sub(rf"(?<!')\b{old}\b(?!')", new, region)
    return Reply(text=f"```python\n{region}\n```")


def respond(req: Recorded) -> Reply:
    if is_next_edit(req):
        return next_edit_answer(req)
    if req.path.endswith("/beta/completions"):
        line = req.body.get("prompt", "").rsplit("\n", 1)[-1]
        for target in TARGETS:
            if target.startswith(line) and line.strip() and line != target:
                return Reply(text=target[len(line):])
        return Reply(text="")
    if REWRITE_INSTRUCTION in model_text(req):
        return Reply(text=f"```python\n{REWRITTEN}\n```")
    return Reply(text=EXPLANATION)


WORKSPACE_FILES = {
    "status.py": "def e(values):\n    \n",
    "complete.py": "def f(values):\n    \n",
    "words.py": "def g(values):\n    \n",
    "live.py": "def h(values):\n    \n",
    "rewrite.py": "def add(a, b):\n    return a+b\n",
    "explain.py": "def add(a, b):\n    return a + b\n",
    "unauthorized.py": "def k(values):\n    \n",
    "geometry.py": GEOMETRY,
    "volume.py": VOLUME,
    "focus.py": FOCUS,
}

# Keep VS Code's own popups out of the way of Tab and the palette.
EDITOR_SETTINGS = {
    "workbench.startupEditor": "none",
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "workbench.tips.enabled": False,
    "chat.disableAIFeatures": True,
    "git.enabled": False,
    "editor.quickSuggestions": {"other": False, "comments": False, "strings": False},
    "editor.suggestOnTriggerCharacters": False,
    "editor.wordBasedSuggestions": "off",
    "editor.autoClosingBrackets": "never",
    "editor.autoClosingQuotes": "never",
    "editor.inlineSuggest.enabled": True,
    "files.autoSave": "off",
}


def workspace_settings(fake: FakeDeepSeek, **extra) -> dict:
    return {"flashls.baseUrl": fake.url, "flashls.apiKey": API_KEY,
            "flashls.completion.debounceMs": 0, "flashls.trace.server": "messages",
            "flashls.nextEdit.debounceMs": 300, "flashls.nextEdit.maxTokens": NEXT_EDIT_MAX_TOKENS,
            **extra}


class Session:
    def __init__(self, tools: Tools, home: Path, fake: FakeDeepSeek):
        self.fake = fake
        self.home = home
        self.workspace = home / "workspace"
        self.code = CodeServer(tools, home)
        self.driver = Driver(tools, OUT)
        self.ui = Workbench(self.driver)
        self.flashls = Path(sys.executable).with_name("flashls")
        self.missing_server_notice = ""
        self.missing_server_log = ""

    def settings_path(self) -> Path:
        return self.workspace / ".vscode" / "settings.json"

    def write_workspace_settings(self, **extra) -> None:
        self.settings_path().write_text(json.dumps(workspace_settings(self.fake, **extra), indent=2))

    def log(self, channel: str = "flashls") -> str:
        return self.code.output_log(channel)

    def healthy_log(self) -> str:
        """The flashls channel since the server (last) started."""
        text = self.log()
        return text[text.rfind("Starting "):] if "Starting " in text else ""

    def type_at_end_of_line(self, name: str, line: int, text: str) -> None:
        self.ui.open_file(name)
        self.ui.goto(line)
        self.ui.keys("End")
        self.ui.type(text)

    def save(self, name: str, expected: str) -> str:
        self.ui.keys("Control+S")
        path = self.workspace / name
        return wait_until(f"{name} saved", lambda: path.read_text() == expected and expected,
                          timeout_s=20) and path.read_text()

    def dump(self, name: str) -> None:
        self.driver.screenshot(name)
        for channel in ("flashls", "flashls Trace"):
            (OUT / f"{name}.{channel.replace(' ', '-')}.log").write_text(self.log(channel))
        if self.code.log_file.exists():
            shutil.copy(self.code.log_file, OUT / f"{name}.code-server.log")


@pytest.fixture(scope="module")
def vscode(tmp_path_factory):
    tools = tools_or_skip()
    OUT.mkdir(parents=True, exist_ok=True)
    home = tmp_path_factory.mktemp("vscode-e2e")
    fake = FakeDeepSeek(respond, api_key=API_KEY).start()
    session = Session(tools, home, fake)
    try:
        for name, text in WORKSPACE_FILES.items():
            (session.workspace / name).parent.mkdir(parents=True, exist_ok=True)
            (session.workspace / name).write_text(text)
        session.settings_path().parent.mkdir()
        session.write_workspace_settings()
        session.code.install(build_vsix(home))
        # No serverPath anywhere yet, and flashls is not on code-server's PATH.
        session.code.write_settings("User", EDITOR_SETTINGS)
        session.code.start()
        session.driver.call("launch", url=f"{session.code.url}?folder={session.workspace}",
                            chromium=str(tools.chromium))
        session.ui.eval(STATUS_RECORDER_JS)
        session.ui.wait_status("codicon-debug-disconnect")
        session.missing_server_notice = "\n".join(session.ui.wait_js(
            "(() => { const n = [...document.querySelectorAll('.notification-list-item-message')]"
            ".map((e) => e.innerText); return n.length ? n : null; })()"))
        session.missing_server_log = wait_until(
            "the missing-server lines in the output channel",
            lambda: "Looked for the server" in session.log() and session.log())
        # Machine settings are what a remote extension host reads for serverPath.
        session.code.write_settings("Machine", {"flashls.serverPath": str(session.flashls)})
        session.ui.wait_status("codicon-zap")
        session.ui.keys("Escape")  # the missing-server notification
        yield session
    except BaseException:
        session.dump("setup")
        raise
    finally:
        session.driver.close()
        session.code.stop()
        fake.stop()


@pytest.fixture(autouse=True)
def screenshot_on_failure(request, vscode):
    yield
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        vscode.dump(request.node.name)


def test_missing_server_says_where_to_set_server_path_then_starts_from_it(vscode):
    """Bug 1 and 5: in code-server the extension host is remote."""
    notice = vscode.missing_server_notice
    assert "Remote settings" in notice and ".vscode/settings.json" in notice, notice
    assert "a value in User settings is not read" in notice
    assert "login shell" in notice  # bug 5: why PATH can differ from a terminal's
    assert "setting flashls.serverPath: not set" in vscode.missing_server_log
    # Bug 4: one space between the command and "(from ...)".
    assert f"Starting {vscode.flashls} (from setting flashls.serverPath)" in vscode.log()


def test_status_bar_goes_starting_ready_then_shows_latency(vscode):
    vscode.type_at_end_of_line("status.py", 2, "total = ")
    try:
        vscode.ui.wait_ghost("compute_sum(values)", timeout_s=15)
    except E2EFailure:
        # The first keystrokes of the session can land between the server's "ready" and
        # VS Code registering its inline completion provider (seen once in four runs:
        # no inlineCompletion request at all). Type on, as a user would.
        vscode.ui.type(" ")
        vscode.ui.keys("Backspace")
        vscode.ui.wait_ghost("compute_sum(values)")
    status = vscode.ui.wait_js(
        "(() => { const s = document.querySelector('[id*=\"flashls.status\"]');"
        " return s && /\\d+ ms|\\d\\.\\d s/.test(s.innerText) ? s.innerText : null; })()")
    assert re.search(r"flashls \d+ ms|flashls \d\.\d s", status), status
    states = vscode.ui.eval("window.__flashlsStates")
    started = states[states.index("codicon-debug-disconnect flashls"):]
    assert started[:3] == ["codicon-debug-disconnect flashls", "codicon-loading flashls",
                           "codicon-zap flashls"], states


def test_ghost_text_appears_and_tab_accepts_it_into_the_file(vscode):
    vscode.type_at_end_of_line("complete.py", 2, "total = ")
    vscode.ui.wait_ghost("compute_sum(values)")
    vscode.ui.keys("Tab")
    assert vscode.save("complete.py", "def f(values):\n    total = compute_sum(values)\n")
    sent = vscode.fake.completion_requests()[-1]
    assert sent.headers.get("authorization") == f"Bearer {API_KEY}"


def test_accept_next_word_takes_one_word_and_keeps_the_rest_without_a_new_request(vscode):
    vscode.type_at_end_of_line("words.py", 2, "result = ")
    vscode.ui.wait_ghost("normalize(values, scale=2)")
    before = len(vscode.fake.completion_requests())
    vscode.ui.keys("Control+ArrowRight")  # editor.action.inlineSuggest.acceptNextWord
    vscode.ui.wait_js("(() => [...document.querySelectorAll('.view-line')]"
                      ".some((l) => l.textContent.replace(/\\u00a0/g, ' ').includes('result = normalize')))()")
    rest = vscode.ui.wait_ghost("(values, scale=2)")
    assert "normalize" not in rest, rest
    extra = [r.body.get("prompt", "")[-40:] for r in requests_for(vscode.fake, "def g(values)", before)]
    assert extra == [], extra  # the rest came from memory
    vscode.ui.keys("Tab")
    assert vscode.save("words.py", "def g(values):\n    result = normalize(values, scale=2)\n")
    # Accepting the whole suggestion may prefetch what comes after it
    # (completion.speculate); that is the only request since the first.
    after = [r.body.get("prompt", "") for r in requests_for(vscode.fake, "def g(values)", before)]
    assert all(p.endswith("result = normalize(values, scale=2)") for p in after), after


def test_a_change_in_settings_json_reaches_the_server_live(vscode):
    updates = vscode.log().count("settings updated from")
    vscode.write_workspace_settings(**{"flashls.completion.maxTokens": 17})
    wait_until("the server to take the new settings",
               lambda: vscode.log().count("settings updated from") > updates)
    before = len(vscode.fake.completion_requests())
    vscode.type_at_end_of_line("live.py", 2, "limit = ")
    vscode.ui.wait_ghost("clamp(values, 17)")
    latest = requests_for(vscode.fake, "def h(values)", before)
    assert latest and all(r.body.get("max_tokens") == 17 for r in latest), [r.body for r in latest]


def test_rewrite_selection_through_the_input_box_applies_the_edit(vscode):
    vscode.ui.open_file("rewrite.py")
    vscode.ui.goto(2)
    vscode.ui.keys("Home", "Shift+End")
    vscode.ui.palette("flashls: Rewrite Selection")
    vscode.ui.wait_js("(() => { const t = document.querySelector('.quick-input-title');"
                      " return !!t && t.innerText.includes('Rewrite Selection'); })()")
    vscode.ui.type(REWRITE_INSTRUCTION, delay=5)
    vscode.ui.keys("Enter")
    vscode.ui.wait_js("(() => [...document.querySelectorAll('.view-line')]"
                      ".some((l) => l.textContent.replace(/\\u00a0/g, ' ') === 'return a + b'.padStart(16)))()")
    assert vscode.save("rewrite.py", f"def add(a, b):\n{REWRITTEN}\n")
    chat = [r for r in vscode.fake.requests if r.path.endswith("/chat/completions")]
    assert any(REWRITE_INSTRUCTION in model_text(r) and "return a+b" in model_text(r) for r in chat)


def test_explain_opens_the_side_panel_with_the_fakes_markdown(vscode):
    vscode.ui.open_file("explain.py")
    vscode.ui.goto(2)
    vscode.ui.palette("flashls: Explain Selection")
    shown = vscode.driver.call("frameText", contains="FAKE_EXPLANATION", timeoutMs=30000)
    assert "<strong>FAKE_EXPLANATION</strong>" in shown["html"], shown["html"][:2000]
    assert "<code>returns</code>" in shown["html"]
    vscode.ui.wait_js("[...document.querySelectorAll('.tab')].some((t) => t.textContent.includes('flashls: Explain'))")


def test_show_context_opens_the_prompt(vscode):
    vscode.ui.open_file("complete.py")
    vscode.ui.goto(2)
    vscode.ui.keys("End")
    vscode.ui.palette("flashls: Show Context for Cursor")
    text = vscode.ui.wait_js(
        "(() => { const t = [...document.querySelectorAll('.monaco-editor .view-lines')]"
        ".map((v) => v.textContent.replace(/\\u00a0/g, ' ')).find((x) => x.includes('flashls context at'));"
        " return t || null; })()")
    assert "flashls context at complete.py:2:" in text, text
    # The editor renders only the lines in view: the breakdown and the top of the prompt.
    assert "## Breakdown" in text and "window prefix" in text, text
    assert "def f(values):    total = compute_sum(values)" in text, text


def test_trace_setting_alone_traces_the_lsp_messages(vscode):
    """Bug 2: flashls.trace.server "messages" (workspace settings) is all it takes."""
    trace = wait_until("the trace channel", lambda: "Sending request 'initialize" in
                       vscode.log("flashls Trace") and vscode.log("flashls Trace"))
    assert "textDocument/inlineCompletion" in trace


def test_healthy_session_has_no_error_lines_and_no_duplicates(vscode):
    """Bug 3: server log lines were all [error] and each shown twice."""
    healthy = vscode.healthy_log()
    assert "settings updated from" in healthy
    assert "[error]" not in healthy, healthy
    lines = [line.split("] ", 1)[-1] for line in healthy.splitlines() if "] " in line]
    # The server's own lines come once, through window/logMessage, never also from stderr.
    assert not any(re.match(r"(DEBUG|INFO|WARNING|ERROR) flashls", line) for line in lines), lines


def next_edit_requests(fake: FakeDeepSeek, marker: str, since: int = 0) -> list[Recorded]:
    """The upstream next-edit requests since `since` whose region holds `marker`."""
    return [r for r in fake.completion_requests()[since:]
            if is_next_edit(r) and marker in next_edit_region(r)]


def rename_parameter(vscode, name: str, line: int, column: int, new: str) -> None:
    """Select the word at line:column (from 1) and type a new name over it."""
    vscode.ui.open_file(name)
    vscode.ui.goto(line, column)
    vscode.ui.keys("Control+Shift+ArrowRight")
    vscode.ui.type(new)


def trace_count(vscode, message: str) -> int:
    return vscode.log("flashls Trace").count(message)


def ledger_next_edits(vscode) -> list[tuple[str, int, float | None]]:
    """(suggestion id, chars, accepted_ts) of the next edits in the server's usage
    ledger (its default place: $XDG_STATE_HOME/flashls, inside the test's folder)."""
    path = vscode.home / "xdg-state" / "flashls" / "usage.sqlite3"
    if not path.exists():
        return []
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)) as db:
        return db.execute("SELECT suggestion_id, chars, accepted_ts FROM suggestions"
                          " WHERE suggestion_id LIKE 'nes-%' ORDER BY ts").fetchall()


RENAMED_GEOMETRY = GEOMETRY.replace("width", "size").replace("'size'", "'width'")


def test_a_next_edit_after_a_rename_is_shown_jumped_to_and_accepted_with_tab(vscode):
    """#17: rename a parameter in the signature; after the pause its uses below are
    offered (old name struck through, the new one after it); Alt+N jumps, Tab accepts."""
    before = len(vscode.fake.completion_requests())
    rename_parameter(vscode, "geometry.py", 4, 10, "size")
    shown = vscode.ui.wait_next_edit()
    assert shown == {"deleted": ["width", "width"], "inserted": ["size", "size"]}, shown
    assert vscode.ui.line_text(6) == "    print('width', width)"  # nothing applied yet
    sent = next_edit_requests(vscode.fake, "def area(size", before)
    assert sent, [r.body for r in vscode.fake.completion_requests()[before:]]
    request = sent[-1]
    assert request.path.endswith("/chat/completions")
    assert request.body["thinking"] == {"type": "disabled"}
    assert request.body["max_tokens"] == NEXT_EDIT_MAX_TOKENS
    user = request.body["messages"][-1]["content"]
    assert "-def area(width, height):" in user and "+def area(size, height):" in user, user
    assert NEXT_EDIT_CURSOR in next_edit_region(request)
    assert trace_count(vscode, "Sending notification 'textDocument/didShowInlineEdit'")

    vscode.ui.keys("Alt+N")  # flashls.jumpToNextEdit: to the first part of the edit
    vscode.ui.wait_cursor(5, 15)
    vscode.ui.keys("Tab")  # flashls.acceptNextEdit
    vscode.ui.wait_no_next_edit()
    assert vscode.save("geometry.py", RENAMED_GEOMETRY)
    # The edit's command reached the server: the ledger has it shown and accepted.
    accepted = wait_until("the accepted next edit in the ledger", lambda: [
        row for row in ledger_next_edits(vscode) if row[1] == len("sizesize") and row[2]])
    assert len(accepted) == 1, ledger_next_edits(vscode)


RENAMED_VOLUME = VOLUME.replace("(side,", "(length,")


def test_a_next_edit_dismissed_with_escape_leaves_the_file_unchanged(vscode):
    before = len(vscode.fake.completion_requests())
    rename_parameter(vscode, "volume.py", 1, 12, "length")
    shown = vscode.ui.wait_next_edit()
    assert shown == {"deleted": ["side", "side"], "inserted": ["length", "length"]}, shown
    assert next_edit_requests(vscode.fake, "def volume(length", before)
    commands = trace_count(vscode, "Sending request 'workspace/executeCommand")

    vscode.ui.keys("Escape")  # flashls.dismissNextEdit
    vscode.ui.wait_no_next_edit()
    # The server is told it was rejected (flashls.nextEdit.rejected).
    wait_until("the rejection sent to the server",
               lambda: trace_count(vscode, "Sending request 'workspace/executeCommand") > commands)
    assert vscode.ui.line_text(2) == "    base = side * side"
    assert vscode.save("volume.py", RENAMED_VOLUME)
    assert not [row for row in ledger_next_edits(vscode) if row[2] and row[1] == len("lengthlength")]



def editor_focused(vscode) -> bool:
    return vscode.ui.eval("!!document.activeElement && !!document.activeElement.closest('.monaco-editor')")


def test_with_tab_moving_focus_tab_leaves_a_next_edit_alone(vscode):
    """Ctrl+M ("Tab moves focus", an accessibility mode) gives Tab to focus
    navigation: it must not accept a next edit the user cannot see being applied."""
    rename_parameter(vscode, "focus.py", 1, 11, "delta")
    assert vscode.ui.wait_next_edit() == {"deleted": ["offset"], "inserted": ["delta"]}
    vscode.ui.keys("Control+M")  # editor.action.toggleTabFocusMode
    vscode.ui.wait_js("[...document.querySelectorAll('.statusbar-item')]"
                      ".some((i) => i.innerText.includes('Tab Moves Focus'))")
    try:
        vscode.ui.keys("Tab")
        wait_until("Tab to move the focus out of the editor", lambda: not editor_focused(vscode),
                   timeout_s=10)
    finally:
        vscode.driver.call("click", selector=".editor-group-container.active .monaco-editor .view-lines")
        vscode.ui.keys("Control+M")
        vscode.ui.wait_js("![...document.querySelectorAll('.statusbar-item')]"
                          ".some((i) => i.innerText.includes('Tab Moves Focus'))")
    vscode.ui.keys("Escape")
    vscode.ui.wait_no_next_edit()
    assert vscode.save("focus.py", FOCUS.replace("(offset,", "(delta,"))


# Last: it leaves the server paused on a bad key.
def test_a_401_from_the_api_turns_the_status_bar_to_error(vscode):
    vscode.fake.api_key = "sk-some-other-key"
    before = len(vscode.fake.completion_requests())
    vscode.type_at_end_of_line("unauthorized.py", 2, "broken = ")
    vscode.fake.wait_for_requests(before + 1, timeout_s=30)
    status = vscode.ui.wait_status("codicon-warning")
    assert status["error"], status
    assert "401" in status["label"] or "key" in status["label"].lower(), status
