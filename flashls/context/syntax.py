"""A document's tree-sitter tree, kept current from incremental edits.

Edits are recorded with `tree.edit` as they arrive; the reparse (which reuses the old
tree) happens lazily, once, when someone asks for the tree — typing ten characters
between two completion requests costs one incremental parse, not ten.

A big document's first parse (hundreds of ms for a 2 MB file, holding the GIL) is never
done on a request: `parse_steps` parses it in slices of a few ms that the event loop
runs between other work (tree-sitter halts on its progress callback and resumes where
it stopped), and until it is done `tree()` answers None, as for an unparseable file.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Iterator

from tree_sitter import Parser, Tree

from . import tree_seed
from .document import ByteEdit, Document
from .languages import LanguageSpec, language_for

MAX_PARSE_BYTES = 2_000_000  # larger documents get the cursor window only
# larger documents are first parsed and analyzed in the background (cold analysis costs
# about 1 ms per 1,000 bytes); smaller ones on the request, as before
BACKGROUND_BYTES = 128_000
SLICE_S = 0.004  # background work runs this long between two turns of the event loop
# an incremental reparse resumed after a halt redoes part of its work (4 ms slices made
# it 2-4x slower): it is halted less often
REPARSE_SLICE_S = 0.02
# documents at least this big parse only the edited region on a request while their
# whole tree is stale (`local_parse`); smaller ones reparse the whole tree
REGION_MIN_BYTES = BACKGROUND_BYTES
# what the read callback returns at a time (1 KB costs no parse time; see `ChunkReader`)
_READ_BYTES = 1 << 10


@dataclass
class SyntaxState:
    spec: LanguageSpec
    parser: Parser
    tree: Tree | None = None
    dirty: bool = True
    full_parses: int = 0  # first parses of the document's text (seeded ones too)
    incremental_parses: int = 0
    seeded_parses: int = 0  # first parses that started from another document's tree
    # edits that arrived while a background parse ran (replayed on its tree), and the
    # count of full replacements (one voids a background parse under way)
    pending: list[ByteEdit] | None = None
    replacements: int = 0
    edits: int = 0
    halted: tuple | None = None  # a background reparse between two slices
    # the last parse of an edited region alone and its parser (`local_parse`)
    region: Any = None
    region_parser: Parser | None = None

    def edit(self, edit: ByteEdit) -> None:
        self.edits += 1
        if self.tree is not None:
            _apply(self.tree, edit)
        elif self.pending is not None:
            self.pending.append(edit)
        self.dirty = True

    def replace(self) -> None:
        """The whole text was replaced: nothing of the old tree is worth reusing."""
        self.tree = None
        self.dirty = True
        self.pending = None
        self.replacements += 1

    def reparse_steps(self, source: bytes, slice_s: float = REPARSE_SLICE_S
                      ) -> Iterator[None]:
        """Bring a stale tree up to date (an incremental parse) in slices, yielding
        between them. Gives up as soon as another edit arrives or someone else parsed
        it (the next call starts over from the edited tree)."""
        old = self.tree
        if old is None or not self.dirty:
            return
        edits = self.edits
        parser = self.spec.parser()

        def superseded() -> bool:
            return self.edits != edits or self.tree is not old or not self.dirty

        def between(read) -> None:  # a request meanwhile finishes this parse
            self.halted = None if read is None else (parser, old, edits, read)

        try:
            tree = yield from _sliced_parse(parser, source, old, slice_s, superseded, between)
            if tree is None:
                return
            # kept as it is, reading node texts back through the read callback: what
            # follows an idle reparse reads the few names of the nodes an edit touched
            # (a few µs each), while the reparse that would make the tree hold the
            # bytes (as `parse_steps` does for the first analysis, which reads every
            # name) is one call of 10-14 ms on the 15,000-line file that holds the loop
            self.tree = tree
            self.dirty = False
            self.incremental_parses += 1
        finally:
            self.halted = None

    def parse_steps(self, source: bytes, slice_s: float = SLICE_S) -> Iterator[None]:
        """Parse `source` (the document's bytes now) from scratch in slices, yielding
        between them; edits made meanwhile are replayed on the new tree. Gives up when
        the text is replaced or someone else parsed it first."""
        replacements = self.replacements
        self.pending = []
        parser = self.spec.parser()  # its own: a halted parse resumes on the next call

        def superseded() -> bool:
            return self.replacements != replacements or self.tree is not None

        try:
            tree = yield from _sliced_parse(parser, source, None, slice_s, superseded)
            if tree is None:
                return
            # a tree parsed through a read callback reads node texts back through it
            # (slow); an incremental reparse of the same bytes (~2 ms) holds them
            tree = parser.parse(source, tree)
            for edit in self.pending or ():
                _apply(tree, edit)
            self.dirty = bool(self.pending)
            self.tree = tree
            self.full_parses += 1
        finally:
            if self.replacements == replacements:
                self.pending = None

    def current(self, source: bytes, seed: Tree | None = None) -> Tree:
        """The tree of `source`; a first parse starts from `seed` when there is one
        (`tree_seed`: an earlier document's tree, edited to stand for `source`)."""
        if self.dirty or self.tree is None:
            if self.tree is None:
                self.full_parses += 1
                tree = self.parser.parse(source, seed) if seed is not None else None
                if tree is not None and not tree.root_node.has_error:
                    self.seeded_parses += 1
                else:  # error recovery can differ from a parse from scratch (seen in
                    # Java): a tree with an error is the one from scratch
                    tree = self.parser.parse(source)
                self.tree = tree
            else:
                self.incremental_parses += 1
                self.tree = self._resume() or self.parser.parse(source, self.tree)
            self.dirty = False
        return self.tree

    def _resume(self) -> Tree | None:
        """Finish the background reparse of this very tree and edits, if one halted."""
        halted, self.halted = self.halted, None
        if halted is None:
            return None
        parser, old, edits, read = halted
        if old is not self.tree or edits != self.edits:
            return None
        try:
            tree = parser.parse(read, old)  # (reading texts back: see `reparse_steps`)
        except ValueError:
            return None
        read.parsed = True
        return tree


def _apply(tree: Tree, edit: ByteEdit) -> None:
    tree.edit(edit.start_byte, edit.old_end_byte, edit.new_end_byte,
              edit.start_point, edit.old_end_point, edit.new_end_point)


@dataclass
class ParsedDocument:
    """A Document plus its (optional) syntax tree; the unit the server stores."""

    doc: Document
    syntax: SyntaxState | None = field(default=None)
    # the server prepares big documents in the background (`context.background`);
    # direct callers (tools, tests, benchmarks) get everything computed on the spot
    background: bool = False

    @classmethod
    def open(cls, doc: Document, path: str = "") -> "ParsedDocument":
        spec = language_for(doc.language_id, path or doc.uri)
        syntax = SyntaxState(spec, spec.parser()) if spec else None
        return cls(doc, syntax)

    @property
    def spec(self) -> LanguageSpec | None:
        return self.syntax.spec if self.syntax else None

    @property
    def big(self) -> bool:
        """Prepared in the background: too slow to parse and analyze on a request."""
        return self.background and len(self.doc.source_bytes) > BACKGROUND_BYTES

    def parseable(self) -> bool:
        return self.syntax is not None and len(self.doc.source_bytes) <= MAX_PARSE_BYTES

    def tree(self) -> Tree | None:
        """The current tree; None when the document has no grammar, is too large, or
        is big and its first parse is still under way (`parse_steps`)."""
        if not self.parseable():
            return None
        syntax = self.syntax
        if syntax.tree is None and self.big:
            return None
        source = self.doc.source_bytes
        if self.big:
            return syntax.current(source)
        seed = tree_seed.seed(self.doc.uri, syntax.spec.name, source) \
            if syntax.tree is None else None
        tree = syntax.current(source, seed)
        tree_seed.remember(self.doc.uri, syntax.spec.name, source, tree)
        return tree

    def snapshot(self) -> "ParsedDocument":
        """A frozen copy for work that outlives the next keystroke (post-processing)."""
        doc = self.doc
        doc.source_bytes  # computed once here, shared by the copy and the document
        copy = doc.copy()
        if self.syntax is None:
            return ParsedDocument(copy, None, self.background)
        syntax = self.syntax
        if self.region_pending():  # the copy parses its edited region (`local_parse`)
            state = SyntaxState(syntax.spec, syntax.parser, syntax.tree.copy(), dirty=True,
                                region_parser=syntax.region_parser)
            return ParsedDocument(copy, state, self.background)
        tree = self.tree()
        state = SyntaxState(syntax.spec, syntax.parser,
                            tree.copy() if tree is not None else None, dirty=tree is None)
        return ParsedDocument(copy, state, self.background)

    def region_pending(self) -> bool:
        """A big document whose whole tree is stale: a request parses the edit only."""
        syntax = self.syntax
        return (syntax is not None and syntax.dirty and syntax.tree is not None
                and syntax.halted is None and self.parseable()
                and len(self.doc.source_bytes) >= REGION_MIN_BYTES)

    def apply_change(self, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        edit = self.doc.apply_change(start, end, text)
        if self.syntax:
            self.syntax.edit(edit)

    def replace_all(self, text: str) -> None:
        self.doc.replace_all(text)
        if self.syntax:  # a full replacement shares nothing worth reusing
            self.syntax.replace()


class ChunkReader:
    """A read callback for `Parser.parse` whose chunks cost no memory after the parse.

    py-tree-sitter 0.26.1's read wrapper never releases its reference to what the
    callback returns (`PyObject_GetBuffer` takes one of its own and the call's result
    is never dropped; still so upstream in July 2026): every chunk a parse reads
    stays allocated for the life of the process. That was ~2x the source per
    background parse, and ~1x per incremental reparse of a Python file (its external
    scanner reads the whole file): 400 KB per idle reparse of a 15,000-line file.
    The wrapper accepts any buffer and only reads a chunk until the next call, so
    every chunk here is the same view of one small buffer, refilled per call: the
    references it leaks all point at that one view (a tail view near the end of the
    source is made once per length)."""

    __slots__ = ("source", "_buffer", "_full", "_tails", "parsed")

    def __init__(self, source: bytes, size: int = _READ_BYTES) -> None:
        self.source = source
        self._buffer = bytearray(size)
        self._full = memoryview(self._buffer)
        self._tails: dict[int, memoryview] = {}
        # once the parse is over, the tree keeps this callback to read node texts
        # back, and py-tree-sitter reads those only from bytes (a view crashes it;
        # no reference leaks on that path)
        self.parsed = False

    def __call__(self, offset: int, point: tuple[int, int] = (0, 0)) -> memoryview | bytes:
        size = len(self._buffer)
        if self.parsed:
            return self.source[offset:offset + size]
        n = min(size, len(self.source) - offset)
        if n <= 0:
            return b""
        self._buffer[:n] = self.source[offset:offset + n]  # same length: no resize
        if n == size:
            return self._full
        view = self._tails.get(n)
        if view is None:
            view = self._tails[n] = self._full[:n]
        return view


def _sliced_parse(parser, source: bytes, old: Tree | None, slice_s: float,
                  superseded: Callable[[], bool],
                  between: Callable[[object], None] | None = None
                  ) -> Generator[None, None, Tree | None]:
    """`parser.parse(source, old)` through a read callback, halted every `slice_s`
    seconds and resumed after a yield (py-tree-sitter holds the GIL while it parses).
    None as soon as `superseded()` says the result is no longer wanted. `between` is
    told the read callback while halted (None when resuming), so that a request can
    finish the parse itself."""
    deadline = [0.0]

    def progress(offset: int, has_error: bool) -> bool:
        return time.perf_counter() > deadline[0]

    read = ChunkReader(source)

    while True:
        deadline[0] = time.perf_counter() + slice_s
        try:
            tree = parser.parse(read, progress_callback=progress) if old is None else \
                parser.parse(read, old, progress_callback=progress)
        except ValueError:  # halted by `progress`: resumed by the next call
            tree = None
        if superseded():
            return None
        if tree is not None:
            read.parsed = True
            return tree
        if between is not None:
            between(read)
        yield
        if between is not None:
            between(None)
