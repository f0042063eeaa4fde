"""Read the editor's messages on the event loop itself, not through a thread.

pygls reads stdin with a blocking `readline` run in its thread pool: every header line
and every body is a hop to a worker thread and back (3 per message). Each hop is cheap
when the process is idle, but while the loop is busy (building a request on a large
file) the woken thread waits for the GIL, up to the 5 ms switch interval — that wait
lands on the next keystroke's latency. A pipe read by the loop's own selector has no
hop at all. When stdin is not a pipe (a regular file, or one socket shared with
stdout, which non-blocking mode would break), pygls' own reader is used.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
from typing import Any, BinaryIO

from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async

log = logging.getLogger(__name__)

STREAM_LIMIT = 1 << 20  # longest header line kept; longer junk is skipped, not fatal


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

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self.stream.readexactly(n)
        except asyncio.IncompleteReadError as err:  # the client went away mid-message
            return err.partial


def loop_readable(stdin: BinaryIO) -> bool:
    """Whether the event loop can watch `stdin` directly (a pipe, socket or tty of
    its own)."""
    try:
        fd = stdin.fileno()
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)):
            return False
        return not os.path.sameopenfile(fd, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False


async def _serve(server: Any, stdin: BinaryIO) -> None:
    loop = asyncio.get_running_loop()
    reader: Any
    try:
        stream = asyncio.StreamReader(limit=STREAM_LIMIT)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), stdin)
        reader = LoopStdin(stream)
    except (OSError, ValueError) as err:
        log.info("reading stdin through a thread (%s)", err)
        reader = StdinAsyncReader(stdin, server.thread_pool)
    await run_async(stop_event=server._stop_event, reader=reader, protocol=server.protocol,
                    logger=log, error_handler=server.report_server_error)


def serve_stdio(server: Any) -> None:
    """pygls' `start_io`, with stdin read by the event loop when it can be."""
    stdin = sys.stdin.buffer
    if not loop_readable(stdin):
        server.start_io()
        return
    import threading
    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    try:
        asyncio.run(_serve(server, stdin))
    except BrokenPipeError:
        log.error("the connection to the client is lost: shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
