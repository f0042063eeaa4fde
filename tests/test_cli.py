"""The command line: LSP by default, --version, and `flashls context`."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WS = ROOT / "fixtures" / "workspaces" / "py_inventory"


def flashls(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flashls", *args], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)


def test_version_and_help_list_the_subcommands():
    assert flashls("--version").stdout.startswith("flashls ")
    help_text = flashls("--help").stdout
    for name in ("context", "stats", "doctor", "eval", "--tcp", "--stdio"):
        assert name in help_text


def test_context_shows_the_tiers_and_the_exact_prompt():
    result = flashls("context", f"{WS / 'app.py'}:12:1", "--root", str(WS), "--json")
    assert result.returncode == 0, result.stderr
    preview = json.loads(result.stdout)
    assert preview["endpoint"] == "fim" and preview["model"] == "deepseek-flash"
    sources = {t["source"] for t in preview["tiers"]}
    assert "inventory/models.py" in sources  # a neighbor through `import`
    lines = (WS / "app.py").read_text().splitlines()
    assert preview["prompt"].endswith("\n".join(lines[9:11]) + "\n")  # ends at the cursor
    assert preview["suffix"].startswith(lines[11])


def test_context_rejects_bad_locations_clearly():
    result = flashls("context", "app.py:0:1")
    assert result.returncode == 2 and "1-based" in result.stderr
    result = flashls("context", "/nonexistent/file.py:1:1")
    assert result.returncode == 2 and "cannot read" in result.stderr


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _session_bytes(tmp_path: Path) -> bytes:
    return b"".join(_frame(m) for m in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"capabilities": {}, "rootUri": tmp_path.as_uri(),
                    "initializationOptions": {"apiKey": "sk-cli-test"}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand",
         "params": {"command": "flashls.showSettings", "arguments": []}}))
    # then end of input: the server stops (shutdown/exit need a client that waits
    # for answers, which a replayed byte stream cannot do)


def _answer_ids(stdout: bytes) -> list:
    ids = []
    for chunk in stdout.split(b"Content-Length: ")[1:]:
        body = chunk.split(b"\r\n\r\n", 1)[1]
        length = int(chunk.split(b"\r\n", 1)[0])
        message = json.loads(body[:length])
        if "id" in message and "method" not in message:
            ids.append(message["id"])
    return ids


def test_stdio_from_a_pipe_and_from_a_regular_file(tmp_path):
    """Editors give a pipe (read by the event loop); a file on stdin (scripts, replays)
    falls back to pygls' threaded reader. Both answer every request and exit."""
    data = _session_bytes(tmp_path)
    piped = subprocess.run([sys.executable, "-m", "flashls"], input=data,
                           capture_output=True, timeout=60, cwd=ROOT)
    assert _answer_ids(piped.stdout) == [1, 2], piped.stderr[-2000:]
    replay = tmp_path / "session.bin"
    replay.write_bytes(data)
    with replay.open("rb") as stdin:
        from_file = subprocess.run([sys.executable, "-m", "flashls"], stdin=stdin,
                                   capture_output=True, timeout=60, cwd=ROOT)
    assert _answer_ids(from_file.stdout) == [1, 2], from_file.stderr[-2000:]


def test_an_overlong_header_line_is_skipped_not_fatal(tmp_path):
    junk = b"X" * (3 << 20) + b"\r\n"  # 3 MB "header" line, longer than the read limit
    data = _session_bytes(tmp_path)
    first, rest = data.split(b"Content-Length", 2)[1:3]
    stream = b"Content-Length" + first + junk + b"Content-Length" + rest
    run = subprocess.run([sys.executable, "-m", "flashls"], input=stream,
                         capture_output=True, timeout=60, cwd=ROOT)
    assert _answer_ids(run.stdout) == [1, 2], run.stderr[-2000:]
    # Told to the client (window/logMessage on stdout), not also on stderr.
    assert b"skipped an overlong header line" in run.stdout
    assert b"skipped an overlong header line" not in run.stderr
