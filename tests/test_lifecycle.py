"""Process lifecycle: however stdin ends, flashls exits 0 without a traceback, and a
SIGTERM still writes the usage ledger. Real processes; the timeouts only guard
against a hang (they are never what a test asserts)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_deepseek import FakeDeepSeek, Reply

HANG_GUARD_S = 60
COMMAND = [sys.executable, "-m", "flashls"]


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def initialize(root: Path, options: dict | None = None, msg_id: int = 1) -> bytes:
    params = {"processId": None, "rootUri": root.as_uri(), "capabilities": {
        "textDocument": {"inlineCompletion": {}}}}
    if options is not None:
        params["initializationOptions"] = options
    return (frame({"jsonrpc": "2.0", "id": msg_id, "method": "initialize", "params": params})
            + frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))


def assert_clean(proc: subprocess.CompletedProcess | subprocess.Popen, stderr: bytes) -> None:
    text = stderr.decode(errors="replace")
    assert proc.returncode == 0, text
    assert "Traceback" not in text, text
    assert "Exception in callback" not in text, text


def env_with_state(tmp_path: Path) -> dict:
    return {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}


def test_stdin_from_dev_null_exits_zero(tmp_path):
    proc = subprocess.run(COMMAND, stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=HANG_GUARD_S, env=env_with_state(tmp_path))
    assert_clean(proc, proc.stderr)


def test_empty_pipe_exits_zero(tmp_path):
    proc = subprocess.run(COMMAND, input=b"", capture_output=True, timeout=HANG_GUARD_S,
                          env=env_with_state(tmp_path))
    assert_clean(proc, proc.stderr)


def test_closed_stdin_exits_zero(tmp_path):
    # `<&-`: no file descriptor 0 at all
    command = " ".join(f"'{part}'" for part in COMMAND) + " <&-"
    proc = subprocess.run(["sh", "-c", command], capture_output=True, timeout=HANG_GUARD_S,
                          env=env_with_state(tmp_path))
    assert_clean(proc, proc.stderr)


def test_messages_from_a_regular_file_are_answered_then_exit(tmp_path):
    script = tmp_path / "session.lsp"
    script.write_bytes(initialize(tmp_path)
                       + frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    with script.open("rb") as stdin:
        proc = subprocess.run(COMMAND, stdin=stdin, capture_output=True,
                              timeout=HANG_GUARD_S, env=env_with_state(tmp_path))
    assert_clean(proc, proc.stderr)
    assert b'"id": 2' in proc.stdout or b'"id":2' in proc.stdout


def test_client_closing_the_pipe_after_initialize_exits_zero(tmp_path):
    proc = subprocess.Popen(COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env_with_state(tmp_path))
    proc.stdin.write(initialize(tmp_path))
    proc.stdin.flush()
    assert proc.stdout.readline().startswith(b"Content-Length")  # it is serving
    proc.stdin.close()
    proc.stdin = None  # communicate() must not flush it again
    _out, err = proc.communicate(timeout=HANG_GUARD_S)
    assert_clean(proc, err)


def test_client_gone_on_both_ends_exits_zero(tmp_path):
    """The editor died: stdout is a closed pipe when the answer is written."""
    proc = subprocess.Popen(COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env_with_state(tmp_path))
    proc.stdout.close()
    proc.stdin.write(initialize(tmp_path))
    proc.stdin.close()
    err = proc.stderr.read()
    proc.wait(timeout=HANG_GUARD_S)
    assert_clean(proc, err)


@pytest.fixture
def fake_server():
    server = FakeDeepSeek(lambda req: Reply(text="fake_completion()")).start()
    yield server
    server.stop()


def test_sigterm_exits_zero_and_writes_the_ledger(tmp_path, fake_server):
    ledger = tmp_path / "usage.sqlite3"
    options = {"baseUrl": fake_server.url, "apiKey": "sk-test-key-1234",
               "completion": {"debounceMs": 0},
               "usage": {"ledgerPath": str(ledger)}}
    uri = (tmp_path / "a.py").as_uri()
    proc = subprocess.Popen(COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env_with_state(tmp_path))
    proc.stdin.write(initialize(tmp_path, options) + frame({
        "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": "def f():\n    "}}})
        + frame({"jsonrpc": "2.0", "id": 7, "method": "textDocument/inlineCompletion",
                 "params": {"textDocument": {"uri": uri}, "position": {"line": 1,
                            "character": 4}, "context": {"triggerKind": 1}}}))
    proc.stdin.flush()
    answered = b""
    while b'"id": 7' not in answered:  # the answer to request 7
        line = proc.stdout.readline()
        assert line, proc.stderr.read().decode(errors="replace")
        if line.startswith(b"Content-Length"):
            length = int(line.split(b":")[1])
            while proc.stdout.readline().strip():  # the other headers
                pass
            answered = proc.stdout.read(length)
    assert b"fake_completion" in answered
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=HANG_GUARD_S)
    assert_clean(proc, err)
    db = sqlite3.connect(str(ledger))
    try:
        requests = db.execute("SELECT outcome FROM requests").fetchall()
        suggestions = db.execute("SELECT chars FROM suggestions").fetchall()
    finally:
        db.close()
    assert requests == [("shown",)]
    assert suggestions == [(len("fake_completion()"),)]


def test_dev_null_is_read_by_the_thread_not_the_selector():
    """epoll refuses /dev/null (the PermissionError traceback of old): the server must
    not hand it to the event loop even when it gets that far."""
    from flashls.lsp.stdio import loop_readable
    with open(os.devnull, "rb") as devnull:
        assert loop_readable(devnull) is False
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(read_end, "rb", closefd=False) as pipe:
            assert loop_readable(pipe) is True
    finally:
        os.close(read_end)
        os.close(write_end)
