"""`flashls context FILE:LINE:COL`: exactly what a completion there would send.

The same engine the editor uses builds the context and the request; nothing is sent.
LINE and COL are 1-based, as editors and compilers print them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

from ..cli import subcommand
from ..completion.factory import build_engine
from ..context.document import Document
from ..context.languages import language_for
from ..context.syntax import ParsedDocument
from ..settings import Settings, apply_settings


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("location", metavar="FILE:LINE:COL",
                        help="the cursor, 1-based line and column")
    parser.add_argument("--root", help="workspace folder (default: the file's git root, "
                        "else its folder)")
    parser.add_argument("--settings", help="JSON file with a flashls settings object")
    parser.add_argument("--budget", type=int, help="completion.contextTokens for this run")
    parser.add_argument("--endpoint", choices=("fim", "chat"), help="completion.endpoint")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def parse_location(text: str) -> tuple[Path, int, int]:
    parts = text.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        raise ValueError(f"expected FILE:LINE:COL (1-based), got {text!r}")
    line, col = int(parts[1]), int(parts[2])
    if line < 1 or col < 1:
        raise ValueError("LINE and COL are 1-based")
    return Path(parts[0]), line - 1, col - 1


def git_root(path: Path) -> Path | None:
    try:
        out = subprocess.run(["git", "-C", str(path.parent), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None


def load_settings(args: argparse.Namespace) -> tuple[Settings, list[str]]:
    raw: dict = {}
    if args.settings:
        raw = json.loads(Path(args.settings).read_text(encoding="utf-8"))
        raw = raw.get("flashls", raw) if isinstance(raw, dict) else raw
    settings, errors = apply_settings(Settings(), raw)
    completion = settings.completion
    if args.budget is not None:
        completion = dataclasses.replace(completion, context_tokens=args.budget)
    if args.endpoint:
        completion = dataclasses.replace(completion, endpoint=args.endpoint)
    return dataclasses.replace(settings, completion=completion), [str(e) for e in errors]


@subcommand("context", "Show exactly what a completion at FILE:LINE:COL would send.", _arguments)
def run(args: argparse.Namespace) -> int:
    try:
        path, line, col = parse_location(args.location)
        settings, problems = load_settings(args)
    except (ValueError, OSError) as err:
        print(f"flashls context: {err}", file=sys.stderr)
        return 2
    for problem in problems:
        print(f"flashls context: {problem}", file=sys.stderr)
    path = path.resolve()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        print(f"flashls context: cannot read {path}: {err}", file=sys.stderr)
        return 2
    root = Path(args.root).resolve() if args.root else (git_root(path) or path.parent)
    spec = language_for("", str(path))
    uri = path.as_uri()
    doc = Document(uri, text, spec.language_ids[0] if spec else "", 1, "utf-32")
    pdoc = ParsedDocument.open(doc, str(path))
    documents = {uri: pdoc}

    def relative(u: str) -> str:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            return path.name

    engine = build_engine(None, settings=lambda: settings, documents=documents,
                          roots=lambda: [root], path_of=relative)
    offset = doc.offset_at(line, col)
    preview = engine.preview(uri, offset)
    if args.json:
        print(json.dumps(preview, indent=2))
    else:
        print(preview["breakdown"])
        print(f"\n--- request: {preview['endpoint']} · {preview['model']} · max_tokens "
              f"{preview['maxTokens']} · stop {preview['stop']!r} · "
              f"{'multi-line' if preview['multiline'] else 'single line'}")
    return 0
