"""A new document of a URI parsed before starts from that parse, not from scratch.

A `ParsedDocument` keeps its tree current from the edits it is told about. A fresh
one for a URI seen before (the overlay copy a completion is prepared on,
`completion/service.with_overlay`; a document closed and opened again; each task of
`benchmarks.real_context`) knows no edits and parsed its whole text again: 15-30 ms
on an ordinary file, a quarter to a half of a request. This keeps the last tree
parsed for each of a few URIs with the bytes it was parsed from; a fresh document
finds it, turns the difference between the two texts into one edit (the common
prefix and suffix) and tree-sitter reparses only what that edit touched, as it does
for a keystroke. The result is the tree a parse from scratch gives, except after
error recovery (a Java file with a syntax error came out differently 3 times in 80):
a seeded tree with an error is thrown away for a parse from scratch
(`syntax.SyntaxState.current`), so a document's tree never depends on what was
parsed before it, and a kept tree with an error seeds nothing (the next text will
likely have one too: C/C++ files with macros, whose seeded parses were all parsed
twice, made C/C++ requests slower).

Kept: the trees of the last RECENT_TREES URIs whose text is at most MAX_SEED_BYTES
(big documents are prepared in the background and keep their own tree). A tree
stored here is a copy (`Tree.copy` shares the nodes; an edit to either copies what
it changes), so a document editing its own tree never touches a stored one.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from tree_sitter import Tree

RECENT_TREES = 8
MAX_SEED_BYTES = 128_000
# a difference spanning more than this share of the text is parsed from scratch: the
# reparse would redo most of it anyway
MAX_CHANGED_SHARE = 0.5

_TREES: "OrderedDict[tuple[str, str], tuple[bytes, Tree]]" = OrderedDict()
_LOCK = threading.Lock()


def remember(uri: str, language: str, source: bytes, tree: Tree) -> None:
    """Keep `tree` (parsed from `source`) as the seed for the next fresh document of
    `uri` (`language`: the language's name, a seed never crosses grammars)."""
    if not uri or len(source) > MAX_SEED_BYTES:
        return
    key = (uri, language)
    with _LOCK:
        hit = _TREES.get(key)
        if hit is not None and hit[0] is source:
            _TREES.move_to_end(key)
            return
        _TREES[key] = (source, tree.copy())
        _TREES.move_to_end(key)
        while len(_TREES) > RECENT_TREES:
            _TREES.popitem(last=False)


def seed(uri: str, language: str, source: bytes) -> Tree | None:
    """A copy of the last tree remembered for `uri`, edited to stand for `source`
    (ready for `parser.parse(source, tree)`); None when there is none worth using."""
    if not uri or len(source) > MAX_SEED_BYTES:
        return None
    with _LOCK:
        hit = _TREES.get((uri, language))
    if hit is None:
        return None
    old, tree = hit
    if tree.root_node.has_error:
        # the new text will likely have the error too, and a seeded tree with an error
        # is parsed again from scratch (C/C++ macros, a Java line blanked): not twice
        return None
    start, old_end, new_end = changed_span(old, source)
    if max(old_end, new_end) - start > MAX_CHANGED_SHARE * max(len(source), 1):
        return None
    tree = tree.copy()
    if not (start == old_end == new_end):
        tree.edit(start, old_end, new_end, _point(old, start), _point(old, old_end),
                  _point(source, new_end))
    return tree


def changed_span(old: bytes, new: bytes) -> tuple[int, int, int]:
    """(start, old end, new end): `new` is `old` with old[start:old end] replaced by
    new[start:new end], the common prefix and suffix as long as they can be."""
    n = min(len(old), len(new))
    prefix = _common(n, lambda k: old[:k] == new[:k])
    rest = n - prefix
    suffix = _common(rest, lambda k: old[len(old) - k:] == new[len(new) - k:])
    return prefix, len(old) - suffix, len(new) - suffix


def _common(limit: int, equal) -> int:
    """The largest k <= limit with equal(k) (equal is monotone: true up to some k).
    Slices are compared by memcmp, so this binary search is a few µs on 100 KB."""
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if equal(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _point(source: bytes, byte: int) -> tuple[int, int]:
    return source.count(b"\n", 0, byte), byte - (source.rfind(b"\n", 0, byte) + 1)


def forget() -> None:
    with _LOCK:
        _TREES.clear()
