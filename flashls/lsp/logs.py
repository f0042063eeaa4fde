"""Logging: stderr always, `window/logMessage` at the configured level, key redacted."""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Callable

from lsprotocol import types as lsp

if TYPE_CHECKING:
    from .server import FlashServer

LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO,
          "debug": logging.DEBUG}
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


class LspLogHandler(logging.Handler):
    def __init__(self, server: "FlashServer"):
        super().__init__()
        self.server = server
        self._emitting = False

    def emit(self, record: logging.LogRecord) -> None:
        if self._emitting:
            return
        self._emitting = True
        try:
            level = max(l for l in LSP_TYPES if l <= record.levelno) if record.levelno >= logging.DEBUG else logging.DEBUG
            self.server.window_log_message(lsp.LogMessageParams(
                type=LSP_TYPES[level], message=self.format(record)))
        except Exception:
            pass
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
    stderr.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    lsp_handler = LspLogHandler(server)
    lsp_handler.setFormatter(logging.Formatter("%(message)s"))
    for handler in (stderr, lsp_handler):
        handler.addFilter(redact)
        logger.addHandler(handler)
    # pygls logs whole messages (settings included) at info/debug: keep it quiet
    pygls_logger = logging.getLogger("pygls")
    pygls_logger.setLevel(logging.WARNING)
    pygls_logger.propagate = False
    for handler in list(pygls_logger.handlers):
        pygls_logger.removeHandler(handler)
    pygls_stderr = logging.StreamHandler(sys.stderr)
    pygls_stderr.addFilter(redact)
    pygls_logger.addHandler(pygls_stderr)
