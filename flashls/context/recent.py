"""Tier 4: code the user touched recently or has open, ranked by similarity.

`RecentEdits` remembers where edits happened (uri, line), newest first. Candidate
snippets are fixed chunks (aligned to `CHUNK_STEP` lines, so the same code yields the
same snippet) around recent edits and from other open documents; each is scored by
Jaccard similarity between its identifiers and the cursor window's, recent-edit chunks
with a bonus. Chunks overlapping the window, or mostly made of lines the window
already shows, are skipped.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Mapping

from cachetools import LRUCache

from .local_parse import document_lines
from .neighbors import identifiers, line_identifiers
from .secrets import clean
from .symbols import split_lines
from .syntax import ParsedDocument
from .tokens import estimate_tokens
from .workspace import Workspace, path_from_uri

CHUNK_LINES = 24
CHUNK_STEP = 12
RECENT_BONUS = 0.15
MIN_SIMILARITY = 0.08
MAX_DOC_LINES = 3000  # other open documents are sampled from their first lines
DUPLICATE_SHARE = 0.5  # skip a chunk when this share of its lines are in the window
# Keywords of the supported languages say nothing about what code is about.
KEYWORDS = frozenset("""
and as assert async await break case catch class const continue def default defer del
do elif else enum except export extends false final finally fn for from func function go
if impl import in interface is let loop match mod mut new nil none None null or package
pass private protected pub public raise return self Self static struct super switch this
throw throws trait true True False try type typeof use var void while with yield int
string str bool float double char long unsigned auto namespace template typename
""".split())
QUERY_LINES_BEFORE = 20  # lines around the cursor whose identifiers are compared
QUERY_LINES_AFTER = 10


class RecentEdits:
    """Where the user edited lately, newest first; nearby edits merge into one."""

    def __init__(self, capacity: int = 32, merge_lines: int = CHUNK_STEP):
        self.capacity = capacity
        self.merge_lines = merge_lines
        self._edits: OrderedDict[tuple[str, int], None] = OrderedDict()
        self._lock = threading.Lock()

    def note_edit(self, uri: str, line: int) -> None:
        if not uri or line < 0:
            return
        with self._lock:
            for key in list(self._edits):
                if key[0] == uri and abs(key[1] - line) <= self.merge_lines:
                    del self._edits[key]
            self._edits[(uri, line)] = None
            self._edits.move_to_end((uri, line), last=False)
            while len(self._edits) > self.capacity:
                self._edits.popitem(last=True)

    def forget(self, uri: str) -> None:
        with self._lock:
            for key in [k for k in self._edits if k[0] == uri]:
                del self._edits[key]

    def locations(self) -> list[tuple[str, int]]:
        with self._lock:
            return list(self._edits)


@dataclass(frozen=True)
class Snippet:
    uri: str
    source: str  # workspace-relative path
    start: int
    end: int  # inclusive
    text: str  # cleaned, whole lines, newline-terminated
    tokens: int
    score: float


_CHUNK_IDS: LRUCache = LRUCache(maxsize=64)  # (uri, version, len, hash) -> chunk id sets
_CACHE_LOCK = threading.Lock()


def _chunk_start(line: int) -> int:
    return max(0, (line - CHUNK_LINES // 2 + CHUNK_STEP // 2) // CHUNK_STEP * CHUNK_STEP)


def _doc_chunks(pdoc: ParsedDocument) -> tuple[list[str], list[tuple[int, frozenset[str]]]]:
    text = pdoc.doc.text
    key = (pdoc.doc.uri, pdoc.doc.version, len(text), hash(text))
    with _CACHE_LOCK:
        hit = _CHUNK_IDS.get(key)
    if hit is not None:
        return hit
    lines = split_lines(text)
    chunks = []
    for start in range(0, min(len(lines), MAX_DOC_LINES), CHUNK_STEP):
        ids: set[str] = set()
        for line in lines[start:start + CHUNK_LINES]:
            ids |= line_identifiers(line)
        chunks.append((start, frozenset(ids) - KEYWORDS))
    result = (lines, chunks)
    with _CACHE_LOCK:
        _CHUNK_IDS[key] = result
    return result


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def recent_snippets(*, current: ParsedDocument, window_lines: tuple[int, int],
                    prefix: str, suffix: str, open_docs: Mapping[str, ParsedDocument],
                    recent: RecentEdits | None, workspace: Workspace | None,
                    source_of) -> list[Snippet]:
    """Candidate snippets, best first (not yet budgeted). Similarity is measured
    against the code right around the cursor (`QUERY_LINES` lines), which says more
    about what comes next than the whole window does."""
    before = prefix.rsplit("\n", QUERY_LINES_BEFORE)
    after = suffix.split("\n", QUERY_LINES_AFTER)
    window_ids = identifiers("\n".join(before[1:] if len(before) > QUERY_LINES_BEFORE else before)
                             + "\n".join(after[:QUERY_LINES_AFTER])) - KEYWORDS
    window_set = {line.strip() for line in (prefix + suffix).splitlines() if line.strip()}
    current_uri = current.doc.uri
    docs: dict[str, ParsedDocument] = {}
    for uri, pdoc in open_docs.items():
        if uri == current_uri:
            continue
        path = path_from_uri(uri)
        if workspace is None or not workspace.allowed(path):
            continue  # outside the workspace or excluded: never sent
        if len(pdoc.doc.text) > workspace.max_bytes or "\0" in pdoc.doc.text[:8192]:
            continue
        docs[uri] = pdoc
    docs[current_uri] = current

    recent_starts: dict[tuple[str, int], int] = {}
    for order, (uri, line) in enumerate(recent.locations() if recent else []):
        if uri in docs:
            recent_starts.setdefault((uri, _chunk_start(line)), order)

    scored: list[tuple[float, str, int]] = []
    current_lines: list[str] | None = None
    for uri, pdoc in docs.items():
        if uri == current_uri:  # the current file contributes its recent edits only
            starts = sorted(s for (u, s) in recent_starts if u == uri)
            if not starts:
                continue
            current_lines = document_lines(pdoc)  # never the whole file's split
            chunks = [(s, frozenset().union(*(line_identifiers(ln) for ln in
                                              current_lines[s:s + CHUNK_LINES])) - KEYWORDS)
                      for s in starts if s < len(current_lines)]
        else:
            _, chunks = _doc_chunks(pdoc)
        for start, ids in chunks:
            is_recent = (uri, start) in recent_starts
            score = _jaccard(window_ids, ids)
            if is_recent:
                score += RECENT_BONUS
            elif score < MIN_SIMILARITY:
                continue
            scored.append((score, uri, start))
    scored.sort(key=lambda s: (-s[0], s[1], s[2]))

    out: list[Snippet] = []
    taken: dict[str, list[tuple[int, int]]] = {}
    lo_win, hi_win = window_lines
    for score, uri, start in scored:
        lines = current_lines if uri == current_uri and current_lines is not None \
            else _doc_chunks(docs[uri])[0]
        end = min(len(lines), start + CHUNK_LINES) - 1
        if uri == current_uri and start <= hi_win and end >= lo_win:
            continue  # overlaps the window
        if any(start <= e and end >= s for s, e in taken.get(uri, ())):
            continue  # overlaps a better snippet
        chunk = lines[start:end + 1]
        body = [ln for ln in chunk if ln.strip()]
        if not body:
            continue
        dup = sum(1 for ln in body if ln.strip() in window_set)
        if dup >= DUPLICATE_SHARE * len(body):
            continue
        text = clean("".join(line + "\n" for line in chunk)).strip("\n") + "\n"
        taken.setdefault(uri, []).append((start, end))
        source = source_of(uri)
        out.append(Snippet(uri, source, start, end, text, estimate_tokens(text), score))
    return out


def source_for(uri: str, workspace: Workspace | None) -> str:
    path = path_from_uri(uri)
    if workspace is not None and workspace.contains(path):
        return workspace.relative(path)
    return os.path.basename(path) or uri
