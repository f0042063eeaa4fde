"""Read the editor's messages on the event loop itself, and end cleanly however the
connection ends.

pygls reads stdin with a blocking `readline` run in its thread pool: every header line
and every body is a hop to a worker thread and back (3 per message). Each hop is cheap
when the process is idle, but while the loop is busy (building a request on a large
file) the woken thread waits for the GIL, up to the 5 ms switch interval — that wait
lands on the next keystroke's latency. A pipe read by the loop's own selector has no
hop at all. When stdin cannot be watched by the selector (a regular file, /dev/null,
one socket shared with stdout), a daemon thread reads big chunks into the same stream.

Lifecycle: end of input, a closed or missing stdin, a client gone from stdout and
SIGTERM/SIGHUP all end the process with status 0 and no traceback, after the session
is closed (the usage ledger written). The `exit` notification keeps LSP's status
(0 after `shutdown`, else 1).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import stat
import sys
import threading
from typing import Any, BinaryIO

from pygls.io_ import StdoutWriter, run_async

log = logging.getLogger(__name__)

STREAM_LIMIT = 1 << 20  # longest header line kept; longer junk is skipped, not fatal
CHUNK = 1 << 16
STOP_SIGNALS = ("SIGTERM", "SIGHUP")


class LoopStdin:
    """The reader interface pygls' message loop expects, over an asyncio stream."""

    def __init__(self, stream: asyncio.StreamReader):
        self.stream = stream

    async def readline(self) -> bytes:
        # Let the loop turn once per line: a coroutine handler started by the previous
        # message (didChangeConfiguration) must run its first step before the next,
        # already buffered, message is handled — the order the client sent them in.
        await asyncio.sleep(0)
        try:
            return await self.stream.readline()
        except ValueError:  # a "line" longer than STREAM_LIMIT: dropped by the stream
            log.warning("skipped an overlong header line from the client")
            return b"X-Skipped: overlong line\r\n"  # not a header pygls acts on

    def has_input(self) -> bool:
        """Bytes received and not yet read: a message waits to be handled (big
        documents' background preparation lets it go first)."""
        return bool(getattr(self.stream, "_buffer", None))

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self.stream.readexactly(n)
        except asyncio.IncompleteReadError as err:  # the client went away mid-message
            return err.partial


class SafeStdoutWriter(StdoutWriter):
    """A client gone from stdout is the end of the session, not an error to print."""

    def __init__(self, stdout: BinaryIO, on_lost: Any):
        super().__init__(stdout)
        self.on_lost = on_lost

    def write(self, data: bytes) -> None:
        try:
            super().write(data)
        except (BrokenPipeError, ConnectionResetError, ValueError, OSError) as err:
            self.on_lost(err)


def loop_readable(stdin: BinaryIO) -> bool:
    """Whether the event loop's selector can watch `stdin` (a pipe or socket of its
    own, or a terminal; not /dev/null nor a regular file, which epoll refuses)."""
    try:
        fd = stdin.fileno()
        mode = os.fstat(fd).st_mode
        if stat.S_ISCHR(mode):
            if not os.isatty(fd):
                return False
        elif not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            return False
        return not os.path.sameopenfile(fd, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False


def _feed_from_thread(loop: asyncio.AbstractEventLoop, stream: asyncio.StreamReader,
                      fd: int) -> None:
    """Blocking reads of `fd` handed to the loop's stream; a daemon thread, so a read
    that never returns cannot keep the process alive."""

    def run() -> None:
        while True:
            try:
                chunk = os.read(fd, CHUNK)
            except OSError:
                chunk = b""
            try:
                if not chunk:
                    loop.call_soon_threadsafe(stream.feed_eof)
                    return
                loop.call_soon_threadsafe(stream.feed_data, chunk)
            except RuntimeError:  # the loop is closed: nobody is listening
                return

    threading.Thread(target=run, name="flashls-stdin", daemon=True).start()


async def _open_reader(stdin: BinaryIO) -> LoopStdin:
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader(limit=STREAM_LIMIT)
    if loop_readable(stdin):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), stdin)
    else:
        log.debug("reading stdin through a thread (not a pipe of its own)")
        _feed_from_thread(loop, stream, stdin.fileno())
    return LoopStdin(stream)


def _stop_on_signals(task: asyncio.Task) -> None:
    loop = asyncio.get_running_loop()
    for name in STOP_SIGNALS:
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        try:
            loop.add_signal_handler(signum, _stop, task, name)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
            pass


def _stop(task: asyncio.Task, why: str) -> None:
    log.info("%s: shutting down", why)
    task.cancel()


async def _serve(server: Any, stdin: BinaryIO) -> None:
    reader = await _open_reader(stdin)
    foreground = getattr(getattr(server, "session", None), "foreground", None)
    if foreground is not None:
        foreground.input_pending = reader.has_input
    serving = asyncio.ensure_future(run_async(
        stop_event=server._stop_event, reader=reader, protocol=server.protocol,
        logger=log, error_handler=server.report_server_error))
    server.lost_client = lambda err: _lost_client(serving, err)
    _stop_on_signals(serving)
    try:
        await serving
    except asyncio.CancelledError:
        pass  # a stop signal or a lost client: the session still closes below
    await _close_session(server)


def _lost_client(serving: asyncio.Future, err: BaseException) -> None:
    log.info("the client closed its end of the connection (%s): shutting down", err)
    _silence_stdout()
    serving.cancel()


async def _close_session(server: Any) -> None:
    close = getattr(server, "close_session", None)
    if close is None:
        return
    try:
        await close()
    except Exception as err:  # never a traceback on the way out
        log.warning("closing the session: %s", err)


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null, so the interpreter's final flush of a dead pipe does
    not print 'Exception ignored ... BrokenPipeError'."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def serve_stdio(server: Any) -> int:
    """pygls' `start_io`, with stdin read by the event loop, and a clean end."""
    stdin = getattr(sys.stdin, "buffer", None)
    try:
        if stdin is None:
            raise ValueError("no stdin")
        stdin.fileno()
    except (ValueError, OSError):
        log.info("stdin is closed: nothing to serve")
        return 0
    server._stop_event = threading.Event()
    server.lost_client = lambda err: None
    server.protocol.set_writer(SafeStdoutWriter(
        sys.stdout.buffer, lambda err: server.lost_client(err)))
    code = 0
    try:
        asyncio.run(_serve(server, stdin))
    except BrokenPipeError:
        _silence_stdout()
    except KeyboardInterrupt:
        pass
    except SystemExit as exit_:  # the `exit` notification: LSP decides the status
        code = exit_.code if isinstance(exit_.code, int) else 0
    finally:
        server.shutdown()
        server.close_session_sync()
    return code
