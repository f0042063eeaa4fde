"""Typed-through cache: suggestions served from memory while the user types along them.

When a suggestion S is produced for text-before-cursor B and text-after-cursor A, we
also write forwarding entries for B + S[:i] → S[i:] (Tabby's idea), so each character
the user types along a suggestion is answered from memory; deleting back to B finds
the original entry. Keys hash exactly what determines the answer, so an entry can never
be served once the text around the cursor differs.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from typing import Any

from cachetools import TTLCache

MAX_FORWARD_CHARS = 64  # an entry per character typed along a suggestion, this far
MAX_BOUNDARY_CHARS = 2048  # past that, entries at word/line boundaries only (partial
#                            accept: the editor inserts a word or a line at a time)


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _boundary(text: str, i: int) -> bool:
    """Where accepting the next word or line can stop: between a word character and
    anything else, or around whitespace and punctuation."""
    return not (_is_word(text[i - 1]) and _is_word(text[i]))


def encoded(text: str) -> bytes:
    """The bytes a key hashes (lone surrogates of a broken document included)."""
    return text.encode("utf-8", "surrogatepass")


def hash_state(text: str = "") -> Any:
    """A running hash of `text` that more text can extend; a key is its digest."""
    return hashlib.blake2b(encoded(text), digest_size=16)


def text_key(text: str) -> str:
    """The key of the text before the cursor."""
    return hash_state(text).hexdigest()


def suffix_key(text: str) -> str:
    """The key of the text after the cursor: the digest of the text reversed, so that
    it can be streamed from the end of the document (`text_keys`)."""
    return text_key(text[::-1])


@dataclass(frozen=True)
class CacheKey:
    before: str  # hash of the document text before the cursor
    after: str  # hash of the text after the cursor
    scope: str  # uri + settings/model fingerprint + context epoch


@dataclass(frozen=True)
class CachedSuggestion:
    text: str  # what remains to be inserted at the cursor
    replace_suffix: int  # characters after the cursor the suggestion replaces
    model: str
    origin_id: str  # the suggestion this entry came from (for acceptance tracking)


def _entry_size(key: CacheKey, value: CachedSuggestion) -> int:
    return 200 + sys.getsizeof(value.text)


class SuggestionCache:
    """LRU+TTL bounded by entry count and by approximate memory."""

    def __init__(self, max_entries: int = 2048, ttl_s: float = 600.0,
                 max_bytes: int = 4 * 1024 * 1024):
        # cachetools keeps the running total of `getsizeof`, so the memory bound is
        # enforced without scanning; the entry-count bound is checked on insert.
        self._entries: TTLCache[CacheKey, CachedSuggestion] = TTLCache(
            max_bytes, ttl_s, getsizeof=lambda value: _entry_size(None, value))
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def approx_bytes(self) -> int:
        return int(self._entries.currsize)

    def get(self, key: CacheKey) -> CachedSuggestion | None:
        found = self._entries.get(key)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def put_suggestion(self, before: str, after: str, scope: str, value: CachedSuggestion,
                       line_break: str = "\n") -> None:
        """Store `value` at `before` plus forwarding entries for typing along it."""
        self.put_keyed(hash_state(before), suffix_key(after), scope, value)

    def put_keyed(self, before_state, after_key: str, scope: str,
                  value: CachedSuggestion) -> None:
        """`put_suggestion` from the keys: `before_state`, the hash state of the text
        before the cursor (a copy is extended), and the key of the text after it."""
        text = value.text
        running = before_state.copy()
        if _entry_size(None, value) * 2 > self.max_bytes:
            return  # absurdly long suggestion: not worth evicting everything else for
        limit = min(len(text), MAX_BOUNDARY_CHARS)
        for i in range(limit + 1):
            remaining = text[i:]
            if i and not remaining.strip():
                break  # fully typed: nothing left to suggest
            if i <= MAX_FORWARD_CHARS or _boundary(text, i):
                key = CacheKey(running.hexdigest(), after_key, scope)
                self._entries[key] = CachedSuggestion(remaining, value.replace_suffix,
                                                      value.model, value.origin_id)
            if i < len(text):  # hash `before + text[:i+1]` without copying `before`
                running.update(encoded(text[i]))
        self._shrink()

    def _shrink(self) -> None:
        while len(self._entries) > self.max_entries:
            self._entries.popitem()

    def clear(self) -> None:
        self._entries.clear()
