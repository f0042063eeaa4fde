"""The chat messages for a next edit.

Laid out for the prefix cache: the fixed instructions, then related signatures (the
same while the user works in one place), then the edit history as unified diffs
(grows at its end), then the editable region with the cursor marked as the **last
fenced code block of the last user message** — outside tools and tests rely on that
contract, and on the answer being the rewritten region as one fenced block.
Everything except the region is redacted; a region holding a secret is never sent
(see `service`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..context.secrets import redact
from ..model.types import ChatMessage
from .history import Hunk
from .region import CURSOR, Region

SYSTEM = (
    "You are flashls, predicting the next edit a developer will make in a code editor. "
    "You see the developer's recent edits as unified diffs, oldest first, and an "
    "editable region of the file they are in, with the cursor marked " + CURSOR + ". "
    "Continue what the recent edits started: update the code they made stale (uses of "
    "a renamed name, callers of a changed signature, the constructor and repr of a new "
    "field, the next call site of a fix). Answer with the complete editable region, "
    "rewritten, as exactly one fenced code block and nothing else: same lines, same "
    "indentation, everything you do not change kept verbatim, without the cursor "
    "marker. Do not undo or rewrite what the developer just typed. When no further "
    "edit is needed, answer with the region unchanged.")


@dataclass(frozen=True)
class PromptParts:
    path: str
    language: str
    region: Region
    history: tuple[Hunk, ...] = ()
    signatures: tuple[tuple[str, str], ...] = ()


def fence(text: str, info: str = "") -> str:
    """`text` in a Markdown fence longer than any backtick run inside it."""
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text}\n{ticks}"


def next_edit_messages(parts: PromptParts) -> tuple[ChatMessage, ...]:
    blocks: list[str] = []
    for source, text in parts.signatures:
        blocks.append(f"Signatures from {source}, which {parts.path} imports:\n"
                      + fence(redact(text.rstrip("\n")), parts.language))
    if parts.history:
        blocks.append("Recent edits, oldest first:")
        for hunk in parts.history:
            blocks.append(f"User edited {hunk.path}:\n"
                          + fence(redact(hunk.diff.rstrip("\n")), "diff"))
    else:
        blocks.append("No recent edits.")
    region = parts.region
    blocks.append(f"The editable region of {parts.path}, lines {region.first + 1}-"
                  f"{region.last + 1}, cursor marked {CURSOR}:\n"
                  + fence(region.marked(), parts.language))
    return (ChatMessage("system", SYSTEM), ChatMessage("user", "\n\n".join(blocks)))
