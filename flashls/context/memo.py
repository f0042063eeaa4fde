"""The context engine's per-line and per-text memos, and their bounds, in one place.

Typing re-reads mostly unchanged lines, so several steps memoize per line (its
identifiers, its token cost). Every memo is bounded; the bounds here are sized to a
working set (a 5,000-line file with its neighbors fits in `LINE_MEMO_SIZE` lines), not
to a whole day of editing, so a long session's memory levels off within the first
minutes of work instead of creeping up for hours.
"""

from __future__ import annotations

import re
from functools import lru_cache

LINE_MEMO_SIZE = 16_384  # distinct lines remembered by each per-line memo
CHUNK_MEMO_SIZE = 8_192  # runs of lines (rendered outline chunks)
TEXT_MEMO_SIZE = 64  # whole texts (token estimates of assembled parts)

IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


@lru_cache(maxsize=LINE_MEMO_SIZE)
def line_identifiers(line: str) -> frozenset[str]:
    """The distinct identifiers of a line."""
    return frozenset(IDENT.findall(line))
