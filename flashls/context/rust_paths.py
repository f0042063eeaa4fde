"""Rust paths the language-neutral `q::name` reading misses.

`evidence.line_attributes` pairs a name with the identifier before its `::`; a path
through a turbofish, `SmallVec::<[u8; 2]>::from_iter(0..3)`, has `>` there, so the
call named no type and `SmallVec::from_iter` was scored as an unqualified name (a trait
impl's method at 0.6 of that: smallvec's tests write every constructor this way).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .memo import LINE_MEMO_SIZE

# `Type::<..>::name`: the generic arguments end at the first `>::` that closes them
_TURBOFISH_PATH = re.compile(r"(?<![\w:])([A-Za-z_]\w*)::<[^;()]*?(?:;[^()]*?)?>::([A-Za-z_]\w*)")


@lru_cache(maxsize=LINE_MEMO_SIZE)
def turbofish_paths(line: str) -> tuple[tuple[str, str], ...]:
    """(type, name) for every `Type::<..>::name` of a line."""
    return tuple(_TURBOFISH_PATH.findall(line))
