"""`textDocument/didPartiallyAcceptCompletion` (Copilot's notification): the user kept
the first `acceptedLength` UTF-16 code units of an inline item's `insertText`, a word
or a line at a time. Counted in the usage ledger by characters."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("flashls")

METHOD = "textDocument/didPartiallyAcceptCompletion"
ACCEPT_COMMAND = "flashls.accepted"


@dataclass(frozen=True)
class PartialAccept:
    suggestion_id: str
    chars: int  # Python characters (code points) of insertText kept


def _get(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def utf16_prefix_chars(text: str, units: int) -> int:
    """How many characters of `text` its first `units` UTF-16 code units cover
    (a unit count inside a surrogate pair keeps the whole character out)."""
    used = 0
    for index, char in enumerate(text):
        used += 2 if ord(char) > 0xFFFF else 1
        if used > units:
            return index
    return len(text)


def parse(params: Any) -> PartialAccept | None:
    """The suggestion and kept length, or None (logged) when the params do not say."""
    item = _get(params, "item")
    length = _get(params, "acceptedLength")
    if isinstance(length, bool) or not isinstance(length, int) or length < 0:
        log.info("%s: acceptedLength must be a whole number >= 0", METHOD)
        return None
    command = _get(item, "command")
    arguments = _get(command, "arguments") or []
    if _get(command, "command") != ACCEPT_COMMAND or not arguments:
        log.info("%s: the item is not one of flashls' suggestions", METHOD)
        return None
    text = _get(item, "insertText") or _get(item, "insert_text") or ""
    if not isinstance(text, str):
        text = _get(text, "value") or ""  # a StringValue snippet
    return PartialAccept(str(arguments[0]), utf16_prefix_chars(str(text), length))
