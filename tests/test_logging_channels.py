"""Each server log line reaches the editor once: as `window/logMessage` while a client is
connected, on stderr only before that. VS Code shows stderr too, tagged `[error]`, so a
line written to both appeared twice and looked like an error (issue #16, bug 3)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
from pathlib import Path

from lsprotocol import types as lsp

from flashls.lsp.logs import lsp_message_type

ROOT = Path(__file__).resolve().parent.parent


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def read_messages(stream) -> list[dict]:
    """Every JSON-RPC message on the server's stdout until it closes."""
    messages = []
    while True:
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            byte = stream.read(1)
            if not byte:
                return messages
            header += byte
        length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
        messages.append(json.loads(stream.read(length)))


def test_a_connected_client_gets_each_line_once_as_log_message_never_also_on_stderr(tmp_path):
    server = subprocess.Popen([sys.executable, "-m", "flashls", "--stdio"], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    received: list[dict] = []
    reader = threading.Thread(target=lambda: received.extend(read_messages(server.stdout)))
    reader.start()
    options = {"flashls": {"logLevel": "debug", "apiKey": "sk-test-never-logged",
                           "baseUrl": "http://127.0.0.1:9"}}
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {},
            "initializationOptions": options}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None},
        {"jsonrpc": "2.0", "method": "exit", "params": None},
    ):
        server.stdin.write(frame(message))
        server.stdin.flush()
    stderr = server.stderr.read().decode()
    server.wait(timeout=60)
    reader.join(timeout=60)

    logged = [m["params"] for m in received if m.get("method") == "window/logMessage"]
    assert any("settings updated from initializationOptions" in p["message"] for p in logged), logged
    for params in logged:
        assert params["message"] not in stderr, f"also on stderr: {params['message']!r}\n{stderr}"
    assert "Unable to send data" not in stderr
    assert "sk-test-never-logged" not in stderr + json.dumps(logged)


def test_log_levels_map_to_lsp_message_types():
    assert lsp_message_type(logging.ERROR) == lsp.MessageType.Error
    assert lsp_message_type(logging.CRITICAL) == lsp.MessageType.Error
    assert lsp_message_type(logging.WARNING) == lsp.MessageType.Warning
    assert lsp_message_type(logging.INFO) == lsp.MessageType.Info
    assert lsp_message_type(logging.DEBUG) == lsp.MessageType.Log
    assert lsp_message_type(5) == lsp.MessageType.Log
