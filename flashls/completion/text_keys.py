"""The suggestion cache's keys of the text before and after the cursor, in time
proportional to the edit.

A key is a digest of exactly the text it stands for (`cache.text_key` of the text
before the cursor, `cache.suffix_key` of the text after it), so it must not depend
on how the text is stored. Hashing both halves whole on every request cost 0.5 ms on
a 15,000-line file and several on a 2 MB one. The document keeps its text as pieces
that an edit leaves untouched except where it cut (`Document.pieces`), so the
hash states at piece boundaries are kept per document: the prefix's forward from the
start, the suffix's over the reversed text from the end. A request then hashes the
cursor's piece only, from the last state still valid on each side; the digests are
those of the whole texts (a stream's digest does not depend on where it was split).
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..context.document import Document
from .cache import encoded, hash_state, suffix_key

DOCUMENTS_KEPT = 8  # documents whose piece states are remembered (a few bytes each)


_encoded = encoded  # (a module name of its own: a test counts what is hashed)


@dataclass(frozen=True)
class TextKeys:
    """The keys of one cursor position: `before_state` hashes the text before the
    cursor (a copy is extended by the characters typed along a suggestion)."""

    before_state: Any
    before: str
    after: str


@dataclass
class _Chain:
    pieces: tuple[str, ...]
    forward: list = field(default_factory=lambda: [hash_state()])  # [k]: pieces[:k]
    backward: list = field(default_factory=lambda: [hash_state()])  # [k]: last k, reversed

    def follow(self, pieces: tuple[str, ...]) -> None:
        """Keep the states over the pieces `pieces` shares with the last version at
        each end (the same objects: an edit replaces only the pieces it cuts)."""
        old = self.pieces
        if pieces is old:
            return
        n = min(len(old), len(pieces))
        head = 0
        while head < n and pieces[head] is old[head]:
            head += 1
        tail = 0
        while tail < n - head and pieces[-1 - tail] is old[-1 - tail]:
            tail += 1
        del self.forward[head + 1:]
        del self.backward[tail + 1:]
        self.pieces = pieces

    def forward_state(self, k: int) -> Any:
        """The state over pieces[:k]."""
        states = self.forward
        while len(states) <= k:
            state = states[-1].copy()
            state.update(_encoded(self.pieces[len(states) - 1]))
            states.append(state)
        return states[k]

    def backward_state(self, k: int) -> Any:
        """The state over the last `k` pieces, reversed (the last one first)."""
        states = self.backward
        while len(states) <= k:
            state = states[-1].copy()
            state.update(_encoded(self.pieces[-len(states)][::-1]))
            states.append(state)
        return states[k]


class KeyIndex:
    """Per document (by URI), the piece states of its last version."""

    def __init__(self, kept: int = DOCUMENTS_KEPT):
        self._chains: OrderedDict[str, _Chain] = OrderedDict()
        self.kept = kept

    def keys(self, doc: Document, offset: int) -> TextKeys:
        pieces, starts = doc.pieces()
        chain = self._chains.pop(doc.uri, None)
        if chain is None:
            chain = _Chain(pieces)
        chain.follow(pieces)
        self._chains[doc.uri] = chain
        while len(self._chains) > self.kept:
            self._chains.popitem(last=False)
        if not pieces:
            return TextKeys(hash_state(), hash_state().hexdigest(), hash_state().hexdigest())
        p = max(0, bisect.bisect_right(starts, offset) - 1)
        cut = offset - starts[p]
        before = chain.forward_state(p).copy()
        before.update(_encoded(pieces[p][:cut]))
        after = chain.backward_state(len(pieces) - 1 - p).copy()
        after.update(_encoded(pieces[p][cut:][::-1]))
        return TextKeys(before, before.hexdigest(), after.hexdigest())

    def forget(self, uri: str) -> None:
        self._chains.pop(uri, None)


def plain_keys(before: str, after: str) -> TextKeys:
    """The same keys computed from the two texts whole (a virtual document)."""
    state = hash_state(before)
    return TextKeys(state, state.hexdigest(), suffix_key(after))
