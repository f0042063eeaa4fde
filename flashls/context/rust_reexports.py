"""Rust re-export chains: which module files are worth a second hop, and what for.

A crate's `lib.rs` re-exports what its modules define (`pub use crate::naive::{NaiveDate,
..}`), and those modules are often `mod.rs` files re-exporting their own submodules
(`pub use self::date::NaiveDate;`): a name a file imports from the crate root is
defined two module files away. The neighbor search (`neighbors.neighbor_files`)
follows one barrel hop for every language; for Rust, a `mod.rs` / `lib.rs` reached
that way is followed once more, to the files defining a name the current file's
imports name (`use crate::{NaiveDate}`). (Names written after `::` anywhere in the
file were tried as well on dev: they pulled in regex-syntax's Unicode tables and lost
three tasks.)

Among a barrel's many modules, one that re-exports a wanted name (`pub use
self::date::NaiveDate;` in `naive/mod.rs`) is as good a lead as one defining it, so a
Rust barrel's targets are indexed with the names their `pub use` lines bind too.
"""

from __future__ import annotations

import os
import re

from .memo import PerAnalysis, line_identifiers

RUST_BARREL_STEMS = frozenset({"mod", "lib"})
_PUB_USE = re.compile(r"^\s*pub(?:\([^)]*\))?\s+use\b")
_USE_WORDS = frozenset({"pub", "use", "crate", "self", "super", "as", "in"})


def deep_barrel(path: str) -> bool:
    """A Rust module file that declares submodules by convention (`mod.rs`, `lib.rs`)."""
    return path.endswith(".rs") and os.path.basename(path)[:-3] in RUST_BARREL_STEMS


def _compute_reexported(analysis) -> frozenset[str]:
    """The names a Rust file's `pub use` statements bind (`pub use self::date::{NaiveDate,
    MIN_DATE};` -> NaiveDate, MIN_DATE, date), multi-line statements included."""
    lines = analysis.lines
    out: set[str] = set()
    for imp in analysis.imports:
        if imp.kind == "mod_item" or imp.start >= len(lines) or \
                not _PUB_USE.match(lines[imp.start]):
            continue
        for row in range(imp.start, min(imp.end, len(lines) - 1) + 1):
            out |= line_identifiers(lines[row])
    return frozenset(out - _USE_WORDS)


reexported_names: PerAnalysis[frozenset[str]] = PerAnalysis(_compute_reexported)
