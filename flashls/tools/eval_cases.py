"""Held-out completion cases from the user's own repository.

A case is a real line with its content hidden: the document keeps everything before
the line and its indentation, the cursor sits after the indentation, and everything
from the next line on stays as the suffix. The model must write the line back.

Only files inside PATH that `Workspace` allows are read (exclude globs, .gitignore,
no symlinks out, no binaries), and the seeded choice is the same on every machine.
"""

from __future__ import annotations

import hashlib
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from ..context.languages import language_for
from ..context.workspace import Workspace

MIN_LINE_CHARS = 4  # shorter lines ("})", "end") say little about a model
MAX_LINE_CHARS = 200  # longer ones are data or generated code
MAX_FILE_BYTES = 300_000


@dataclass(frozen=True)
class EvalCase:
    case_id: str  # stable: path, line and a hash of the hidden line
    path: str  # absolute, inside the root
    rel: str  # root-relative POSIX path
    line: int  # 0-based line number of the hidden line
    language_id: str
    text: str  # the document as the model sees it (hidden line emptied)
    offset: int  # cursor: after the hidden line's indentation
    expected: str  # the hidden line, without indentation and trailing space


def is_candidate(line: str) -> bool:
    body = line.strip()
    return (MIN_LINE_CHARS <= len(body) <= MAX_LINE_CHARS
            and any(ch.isalnum() for ch in body))


def source_files(workspace: Workspace, root: str) -> Iterator[str]:
    """Files under `root` with a supported language that the workspace lets us read,
    in a stable order. Hidden and excluded folders are not entered."""
    for directory, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                         and not workspace.excluded(os.path.join(directory, d, "_")))
        for name in sorted(files):
            path = os.path.join(directory, name)
            if language_for("", path) is None or os.path.islink(path):
                continue
            if workspace.allowed(path):
                yield path


def _hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def make_case(path: str, rel: str, text: str, line: int) -> EvalCase:
    lines = text.split("\n")
    start = sum(len(l) + 1 for l in lines[:line])
    content = lines[line]
    body = content.lstrip(" \t")
    indent = len(content) - len(body)
    cursor = start + indent
    hidden = text[:cursor] + text[start + len(content):]
    spec = language_for("", path)
    language_id = spec.language_ids[0] if spec and spec.language_ids else ""
    expected = body.rstrip()
    return EvalCase(f"{rel}:{line + 1}:{_hash(expected)}", path, rel, line, language_id,
                    hidden, cursor, expected)


def build_cases(root: str | os.PathLike, count: int, seed: int,
                exclude: Sequence[str] = ()) -> list[EvalCase]:
    """`count` cases chosen with `seed` from every candidate line under `root`."""
    real_root = os.path.realpath(root)
    workspace = Workspace([real_root], exclude, max_bytes=MAX_FILE_BYTES)
    candidates: list[tuple[str, int]] = []  # (rel, line): no texts kept, repos are big
    for path in source_files(workspace, real_root):
        text = workspace.read(path)
        if not text:
            continue
        rel = Path(os.path.relpath(path, real_root)).as_posix()
        lines = text.split("\n")
        candidates += [(rel, i) for i, l in enumerate(lines) if i > 0 and is_candidate(l)]
    rng = random.Random(seed)
    chosen = sorted(rng.sample(candidates, min(count, len(candidates))))
    cases = []
    for rel, line in chosen:
        path = os.path.join(real_root, *rel.split("/"))
        text = workspace.read(path)
        if text is not None and line < text.count("\n") + 1 and is_candidate(
                text.split("\n")[line]):
            cases.append(make_case(path, rel, text, line))
    return cases
