"""Command line: `flashls` speaks LSP on stdio; subcommands are tools for humans.

Stable interface: `flashls [--stdio]`, `flashls --tcp --port N`, `flashls --version`,
and the subcommands registered in SUBCOMMANDS (each adds itself; none is removed).
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable

from . import __version__
from .docs_links import HELP_PREFIX, help_epilog

# name -> (help, add_arguments, run); filled by the modules that own each command
SUBCOMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None],
                             Callable[[argparse.Namespace], int]]] = {}


def subcommand(name: str, help_text: str, add_arguments: Callable[[argparse.ArgumentParser], None]):
    def register(run: Callable[[argparse.Namespace], int]):
        SUBCOMMANDS[name] = (help_text, add_arguments, run)
        return run
    return register


def _load_subcommands() -> None:
    """Import the modules that register subcommands (kept lazy for a fast LSP start)."""
    import importlib
    for module in ("flashls.tools.context_cli", "flashls.tools.stats_cli",
                   "flashls.tools.doctor", "flashls.tools.evaluate",
                   "flashls.tools.loadtest"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name != module:
                raise


class _HelpFormatter(argparse.HelpFormatter):
    """Wraps as usual, except the docs link: a path broken at a hyphen cannot be copied."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith(HELP_PREFIX):
            return indent + text
        return super()._fill_text(text, width, indent)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flashls", formatter_class=_HelpFormatter, description="AI inline completions and code actions over LSP "
        "(DeepSeek Flash). With no subcommand, speaks LSP on stdio.",
        epilog=help_epilog(None))
    parser.add_argument("--version", action="version", version=f"flashls {__version__}")
    parser.add_argument("--stdio", action="store_true", help="speak LSP on stdio (default)")
    parser.add_argument("--tcp", action="store_true", help="speak LSP over TCP on 127.0.0.1")
    parser.add_argument("--host", default="127.0.0.1", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=2087, help="TCP port (with --tcp)")
    subs = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, add_arguments, _run) in sorted(SUBCOMMANDS.items()):
        sub = subs.add_parser(name, help=help_text, description=help_text,
                              epilog=help_epilog(name), formatter_class=_HelpFormatter)
        add_arguments(sub)
    return parser


def stdin_has_nothing() -> bool:
    """stdin is closed or /dev/null: an LSP session could never start, so end at once
    (before the server's imports) with status 0."""
    import os
    import stat
    try:
        fd = sys.stdin.fileno()
        mode = os.fstat(fd)
    except (AttributeError, ValueError, OSError):
        return True
    if not stat.S_ISCHR(mode.st_mode) or os.isatty(fd):
        return False
    try:
        return mode.st_rdev == os.stat(os.devnull).st_rdev
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and not {"--stdio", "--tcp"} & set(argv):
        _load_subcommands()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command:
        return SUBCOMMANDS[args.command][2](args)
    if not args.tcp and stdin_has_nothing():
        return 0
    from .lsp.server import create_server
    server = create_server()
    if args.tcp:
        if args.host not in ("127.0.0.1", "localhost", "::1"):
            parser.error("--tcp listens on loopback only")
        server.start_tcp(args.host, args.port)
    else:
        from .lsp.stdio import serve_stdio
        return serve_stdio(server)
    return 0
