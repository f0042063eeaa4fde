"""Proxies and custom CAs, against real sockets on loopback: the fake DeepSeek behind a
TLS front whose certificate comes from a CA made in the test (trustme), reached
through a small CONNECT proxy written here that counts what goes through it."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import ssl
import subprocess
import sys
import threading

import pytest
from lsprotocol import types as lsp

from flashls.model.network import (NetworkSettingError, choose, client_kwargs,
                                   no_proxy_patterns, tls_failure)
from tests.conftest import ROOT, base_settings, start_session
from tests.lsp_helpers import inline, open_doc

trustme = pytest.importorskip("trustme")


class LoopThread:
    """An event loop in a thread, for servers the tests talk to over sockets."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)

    def stop(self):
        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        self.run(cancel_all())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def _splice(a: tuple, b: tuple) -> None:
    await asyncio.gather(_pipe(a[0], b[1]), _pipe(b[0], a[1]))


class TlsFront:
    """TLS on the outside, the plain fake DeepSeek behind it."""

    def __init__(self, loops: LoopThread, backend_port: int, context: ssl.SSLContext):
        self.backend_port = backend_port
        self.server = loops.run(asyncio.start_server(
            self._handle, "127.0.0.1", 0, ssl=context))
        self.port = self.server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    async def _handle(self, reader, writer):
        try:
            backend = await asyncio.open_connection("127.0.0.1", self.backend_port)
        except OSError:
            writer.close()
            return
        await _splice((reader, writer), backend)


class ConnectProxy:
    """An HTTP proxy that only tunnels (CONNECT), counting the tunnels it opened."""

    def __init__(self, loops: LoopThread):
        self.tunnels: list[str] = []
        self.server = loops.run(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = self.server.sockets[0].getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _handle(self, reader, writer):
        request = await reader.readline()
        while (await reader.readline()).strip():
            pass  # the other headers
        method, target, _ = request.decode().split(" ", 2)
        if method != "CONNECT":
            writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
            writer.close()
            return
        host, port = target.rsplit(":", 1)
        self.tunnels.append(target)
        upstream = await asyncio.open_connection(host, int(port))
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        await _splice((reader, writer), upstream)


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    authority = trustme.CA()
    cert = authority.issue_cert("127.0.0.1", "localhost")
    pem = tmp_path_factory.mktemp("ca") / "corp-ca.pem"
    authority.cert_pem.write_to_path(str(pem))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert.configure_cert(context)
    return pem, context


@pytest.fixture
def loops():
    thread = LoopThread()
    yield thread
    thread.stop()


@pytest.fixture
def front(loops, fake, ca):
    return TlsFront(loops, fake.port, ca[1])


@pytest.fixture
def proxy(loops):
    return ConnectProxy(loops)


def dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- choosing -------------------------------------------------------------------------
def test_the_setting_wins_over_the_environment():
    env = {"HTTPS_PROXY": "http://env-proxy:1", "SSL_CERT_FILE": "/env/ca.pem"}
    chosen = choose("https://api.example", "http://set-proxy:2", "/set/ca.pem", env)
    assert (chosen.proxy, chosen.proxy_source) == ("http://set-proxy:2", "flashls.proxy")
    assert (chosen.ca, chosen.ca_source) == ("/set/ca.pem", "flashls.caFile")
    chosen = choose("https://api.example", "", "", env)
    assert (chosen.proxy, chosen.proxy_source) == ("http://env-proxy:1", "HTTPS_PROXY")
    assert (chosen.ca, chosen.ca_source) == ("/env/ca.pem", "SSL_CERT_FILE")
    assert choose("https://api.example", "", "", {}).proxy_source == "none"


def test_no_proxy_bypasses_even_the_setting():
    env = {"NO_PROXY": "localhost,.corp.example, 127.0.0.1"}
    assert choose("https://api.corp.example", "http://p:1", "", env).proxy is None
    assert "NO_PROXY" in choose("https://127.0.0.1:9", "http://p:1", "", env).proxy_source
    assert choose("https://api.example", "http://p:1", "", env).proxy == "http://p:1"
    assert "all://127.0.0.1" in no_proxy_patterns(env)
    assert no_proxy_patterns({"NO_PROXY": "*"}) == ["all://"]
    assert client_kwargs("http://p:1", "", env)["mounts"]["all://localhost"] is None


def test_an_unreadable_ca_file_is_a_clear_error(tmp_path):
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate")
    for path in (tmp_path / "missing.pem", junk):
        with pytest.raises(NetworkSettingError, match="flashls.caFile"):
            client_kwargs("", str(path))


def test_tls_failure_names_the_cause():
    err = ssl.SSLCertVerificationError(1, "certificate verify failed")
    err.verify_message = "self-signed certificate in certificate chain"
    wrapped = RuntimeError("cannot reach")
    wrapped.__cause__ = err
    assert "self-signed certificate" in tls_failure(wrapped)
    assert "flashls.caFile" in tls_failure(wrapped)
    assert tls_failure(RuntimeError("connection refused")) is None


# -- through LSP ------------------------------------------------------------------------
async def test_completions_through_the_proxy_setting_with_the_ca_setting(
        client, fake, front, proxy, ca, tmp_path):
    settings = {**base_settings(fake), "baseUrl": front.url, "proxy": proxy.url,
                "caFile": str(ca[0])}
    await start_session(client, fake, tmp_path, settings=settings)
    uri = open_doc(client, tmp_path / "t.py", "def f():\n    return \n")
    items = await inline(client, uri, 1, 11)
    assert [i.insert_text for i in items] == ["fake_completion()"]
    assert proxy.tunnels == [f"127.0.0.1:{front.port}"]
    assert len(fake.completion_requests()) == 1


async def test_without_the_ca_nothing_is_sent_and_the_status_says_tls(
        client, fake, front, tmp_path):
    statuses: list = []
    client.feature("flashls/status")(lambda params: statuses.append(params))
    settings = {**base_settings(fake), "baseUrl": front.url}
    await start_session(client, fake, tmp_path, settings=settings)
    uri = open_doc(client, tmp_path / "t.py", "def f():\n    return \n")
    assert await inline(client, uri, 1, 11, invoked=True) == []
    assert fake.completion_requests() == []
    errors = [s for s in statuses if getattr(s, "state", None) == "error"]
    assert errors and "CERTIFICATE_VERIFY_FAILED" in errors[0].message


async def test_a_bad_ca_file_setting_is_refused(client, fake, tmp_path):
    settings = {**base_settings(fake), "caFile": str(tmp_path / "missing.pem")}
    await start_session(client, fake, tmp_path, settings=settings)
    uri = open_doc(client, tmp_path / "t.py", "def f():\n    return \n")
    assert len(await inline(client, uri, 1, 11)) == 1  # still served, previous network
    view = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="flashls.showSettings"))
    assert view["caFile"] == ""
    assert any("flashls.caFile" in m.message for m in client.messages)


# -- flashls doctor (the environment variables) ------------------------------------------
def doctor(*args: str, env: dict) -> dict:
    clean = {k: v for k, v in os.environ.items()
             if k.upper() not in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY",
                                  "SSL_CERT_FILE", "SSL_CERT_DIR")}
    proc = subprocess.run([sys.executable, "-m", "flashls", "doctor", "--json",
                           "--api-key", "sk-test-key-1234", "--timeout", "20", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**clean, **env})
    assert "Traceback" not in proc.stderr, proc.stderr
    return {c["name"]: c for c in json.loads(proc.stdout)["checks"]}


def test_doctor_uses_https_proxy_and_ssl_cert_file(front, proxy, ca):
    checks = doctor("--base-url", front.url,
                    env={"HTTPS_PROXY": proxy.url, "SSL_CERT_FILE": str(ca[0])})
    network = checks["Proxy and CA"]
    assert proxy.url in network["detail"] and "[HTTPS_PROXY]" in network["detail"]
    assert str(ca[0]) in network["detail"] and "[SSL_CERT_FILE]" in network["detail"]
    assert checks["Endpoint reachable"]["status"] == "ok"
    assert proxy.tunnels  # the requests went through it


def test_doctor_no_proxy_goes_direct(front, proxy, ca):
    checks = doctor("--base-url", front.url, env={
        "HTTPS_PROXY": proxy.url, "NO_PROXY": "127.0.0.1", "SSL_CERT_FILE": str(ca[0])})
    assert "NO_PROXY" in checks["Proxy and CA"]["detail"]
    assert checks["Endpoint reachable"]["status"] == "ok"
    assert proxy.tunnels == []


def test_doctor_proxy_option_wins_over_the_environment(front, proxy, ca):
    checks = doctor("--base-url", front.url, "--proxy", proxy.url, "--ca-file", str(ca[0]),
                    env={"HTTPS_PROXY": f"http://127.0.0.1:{dead_port()}"})
    assert "[flashls.proxy]" in checks["Proxy and CA"]["detail"]
    assert checks["Endpoint reachable"]["status"] == "ok"
    assert proxy.tunnels


def test_doctor_explains_a_failed_tls_handshake(front):
    checks = doctor("--base-url", front.url, env={})
    reach = checks["Endpoint reachable"]
    assert reach["status"] == "fail"
    assert "TLS handshake failed" in reach["detail"]
    assert "certificate" in reach["detail"] and "caFile" in reach["fix"]


def test_doctor_reports_an_unloadable_ca_file(tmp_path):
    checks = doctor("--ca-file", str(tmp_path / "missing.pem"), env={})
    assert checks["Proxy and CA"]["status"] == "fail"
    assert checks["Endpoint reachable"]["status"] == "skip"
