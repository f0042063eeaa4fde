"""`flashls stats`: what completions cost and what they were worth, today and lately."""

from __future__ import annotations

import argparse
import json
import sys

from ..cli import subcommand
from ..usage.ledger import Ledger, LedgerError, resolve_path
from ..usage.stats import empty_report, render_text, usage_report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--days", type=int, default=7,
                        help="length of the longer window in days (default 7)")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.add_argument("--ledger", metavar="PATH", default="",
                        help="ledger file (default: $XDG_STATE_HOME/flashls/usage.sqlite3)")


@subcommand("stats", "Show requests, acceptance, cache hits, latency and cost.", add_arguments)
def run(args: argparse.Namespace) -> int:
    if not 1 <= args.days <= 3660:
        print("flashls stats: --days must be between 1 and 3660", file=sys.stderr)
        return 2
    path = str(resolve_path(args.ledger))
    try:
        ledger = Ledger(path, create=False)
    except LedgerError as err:
        if "no ledger at" not in str(err):
            print(f"flashls stats: {err}", file=sys.stderr)
            return 1
        report = empty_report(path, days=args.days)
    else:
        try:
            report = usage_report(ledger, days=args.days)
        finally:
            ledger.close()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(render_text(report))
        if report["today"]["requests"] == 0 and report[f"last{args.days}Days"]["requests"] == 0:
            print("\nNothing recorded yet in this window.")
    return 0
