"""The one rule for documents whose text is never sent, and why.

Completions, code actions and next edits ask it about the document being edited;
the other tiers (recent edits, neighbor signatures, next-edit history) ask it about
every other document they would take text from (`as_context=True`). The answer is a
status reason code (the `flashls/status` contract) plus words for the user.

* too large or binary documents: never;
* credential files and other excluded files (built-in globs, `flashls.exclude`, git
  ignores): never, inside or outside the workspace;
* documents outside every workspace folder: only the document itself, and only when
  `flashls.completion.outsideWorkspace` is "allow"; never as context for another;
* unsaved (`untitled:`) buffers: the document itself always (the user is typing it,
  nothing was read from disk), never as context for another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence
from urllib.parse import unquote, urlparse

import pathspec

from ..settings import CREDENTIAL_FILE, EXCLUDED, effective_excludes
from .document import too_large_or_binary
from .workspace import OUTSIDE_WORKSPACE, Workspace, compile_globs, glob_verdict, path_from_uri

TOO_LARGE = "too_large"
UNTITLED_SCHEMES = frozenset({"untitled"})
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]+):")  # two letters at least: not C:\


@dataclass(frozen=True)
class NotSent:
    """Why nothing from a document is sent: a status reason code and a message."""

    code: str  # TOO_LARGE, CREDENTIAL_FILE, EXCLUDED or OUTSIDE_WORKSPACE
    message: str


MESSAGES = {
    TOO_LARGE: "not sent: too large or binary",
    CREDENTIAL_FILE: "not sent: credential file",
    EXCLUDED: "not sent: excluded (flashls.exclude, built-in excludes or .gitignore)",
    OUTSIDE_WORKSPACE: "not sent: outside the workspace (open its folder, or set "
                       "flashls.completion.outsideWorkspace to \"allow\")",
}


def scheme_of(uri: str) -> str:
    match = _SCHEME.match(uri)
    return match.group(1).lower() if match else ""


@lru_cache(maxsize=8)
def _spec(patterns: tuple[str, ...]) -> pathspec.PathSpec | None:
    try:
        return compile_globs(patterns)
    except ValueError:  # told by the settings layer; the built-in globs still apply
        return compile_globs(effective_excludes(()))


def _outside_verdict(path: str, user_excludes: Sequence[str]) -> str | None:
    """Globs on a path outside every folder: matched on the path as named and resolved,
    from the filesystem root (`**/.aws/**` finds `/home/u/.aws/credentials`)."""
    spec = _spec(tuple(effective_excludes(user_excludes)))
    named = Path(path).as_posix()
    try:
        real = Path(path).resolve().as_posix()
    except (OSError, RuntimeError):
        real = named
    return glob_verdict(spec, {named.lstrip("/"), real.lstrip("/")})


def never_sent(uri: str, text: str, *, workspace: Workspace | None,
               user_excludes: Sequence[str] = (), outside_workspace: str = "deny",
               as_context: bool = False, too_large: bool | None = None) -> NotSent | None:
    """None when `text` (the document at `uri`) may be sent, else why not.

    `as_context`: asked for a document other than the one being edited (recent edits,
    neighbors, history); then only workspace documents qualify, whatever the policy.
    `too_large`: the verdict on `text` when the caller keeps it (a big document keeps
    its NUL check across edits instead of scanning megabytes per request)."""
    if too_large_or_binary(text) if too_large is None else too_large:
        return NotSent(TOO_LARGE, MESSAGES[TOO_LARGE])
    scheme = scheme_of(uri)
    if scheme in UNTITLED_SCHEMES:
        return NotSent(OUTSIDE_WORKSPACE, MESSAGES[OUTSIDE_WORKSPACE]) if as_context else None
    on_disk = scheme in ("", "file")
    path = path_from_uri(uri) if on_disk else unquote(urlparse(uri).path)
    code = workspace.verdict(path) if on_disk and workspace is not None else OUTSIDE_WORKSPACE
    if code == OUTSIDE_WORKSPACE:
        code = _outside_verdict(path, user_excludes) if path else None
        if code is None and (as_context or outside_workspace != "allow"):
            code = OUTSIDE_WORKSPACE
    return NotSent(code, MESSAGES[code]) if code else None
