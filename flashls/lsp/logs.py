"""Logging at the configured level, key redacted: each line goes to the editor as
`window/logMessage` once a client is connected, otherwise to stderr — never both, so an
editor that shows stderr too (VS Code tags it `[error]`) does not show every line twice."""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Callable

from lsprotocol import types as lsp

if TYPE_CHECKING:
    from .server import FlashServer

LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO,
          "debug": logging.DEBUG}
# The VS Code client reads the level from this prefix (clients/vscode/src/serverLog.ts).
STDERR_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LSP_TYPES = {logging.ERROR: lsp.MessageType.Error, logging.WARNING: lsp.MessageType.Warning,
             logging.INFO: lsp.MessageType.Info, logging.DEBUG: lsp.MessageType.Log}


class RedactKey(logging.Filter):
    """Replace the API key wherever it would appear in a log line."""

    def __init__(self, key: Callable[[], str]):
        super().__init__()
        self.key = key

    def filter(self, record: logging.LogRecord) -> bool:
        key = self.key()
        if key and len(key) >= 4:
            message = record.getMessage()
            if key in message:
                record.msg = message.replace(key, "<redacted>")
                record.args = ()
        return True


def lsp_message_type(levelno: int) -> lsp.MessageType:
    """The LSP message type for a logging level: the nearest level at or below it."""
    at_or_below = [level for level in LSP_TYPES if level <= levelno]
    return LSP_TYPES[max(at_or_below)] if at_or_below else lsp.MessageType.Log


class ClientOrStderrHandler(logging.Handler):
    """`window/logMessage` while the server has a client transport, stderr before it has one
    (startup) or when sending fails."""

    def __init__(self, server: "FlashServer", stderr: logging.Handler):
        super().__init__()
        self.server = server
        self.stderr = stderr
        self._emitting = False

    def client_connected(self) -> bool:
        protocol = getattr(self.server, "protocol", None)
        return getattr(protocol, "writer", None) is not None

    def emit(self, record: logging.LogRecord) -> None:
        if self._emitting:  # a log line from inside sending one: stderr, never recursion
            self.stderr.handle(record)
            return
        self._emitting = True
        try:
            if not self.client_connected():
                self.stderr.handle(record)
                return
            try:
                self.server.window_log_message(lsp.LogMessageParams(
                    type=lsp_message_type(record.levelno), message=self.format(record)))
            except Exception:
                self.stderr.handle(record)
        finally:
            self._emitting = False


def configure_logging(server: "FlashServer", level: str, key: Callable[[], str]) -> None:
    logger = logging.getLogger("flashls")
    logger.setLevel(LEVELS.get(level, logging.INFO))
    logger.propagate = False
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
    redact = RedactKey(key)
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter(STDERR_FORMAT))
    to_client = ClientOrStderrHandler(server, stderr)
    to_client.setFormatter(logging.Formatter("%(message)s"))
    to_client.addFilter(redact)
    logger.addHandler(to_client)
    # pygls logs whole messages (settings included) at info/debug: keep it quiet
    pygls_logger = logging.getLogger("pygls")
    pygls_logger.setLevel(logging.WARNING)
    pygls_logger.propagate = False
    for handler in list(pygls_logger.handlers):
        pygls_logger.removeHandler(handler)
    pygls_stderr = logging.StreamHandler(sys.stderr)
    pygls_stderr.setFormatter(logging.Formatter(STDERR_FORMAT))
    pygls_stderr.addFilter(redact)
    pygls_logger.addHandler(pygls_stderr)
