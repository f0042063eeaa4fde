"""A document's tree-sitter tree, kept current from incremental edits.

Edits are recorded with `tree.edit` as they arrive; the reparse (which reuses the old
tree) happens lazily, once, when someone asks for the tree — typing ten characters
between two completion requests costs one incremental parse, not ten.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Parser, Tree

from .document import ByteEdit, Document
from .languages import LanguageSpec, language_for

MAX_PARSE_BYTES = 2_000_000  # larger documents get the cursor window only


@dataclass
class SyntaxState:
    spec: LanguageSpec
    parser: Parser
    tree: Tree | None = None
    dirty: bool = True
    full_parses: int = 0
    incremental_parses: int = 0

    def edit(self, edit: ByteEdit) -> None:
        if self.tree is not None:
            self.tree.edit(edit.start_byte, edit.old_end_byte, edit.new_end_byte,
                           edit.start_point, edit.old_end_point, edit.new_end_point)
        self.dirty = True

    def current(self, source: bytes) -> Tree:
        if self.dirty or self.tree is None:
            if self.tree is None:
                self.full_parses += 1
                self.tree = self.parser.parse(source)
            else:
                self.incremental_parses += 1
                self.tree = self.parser.parse(source, self.tree)
            self.dirty = False
        return self.tree


@dataclass
class ParsedDocument:
    """A Document plus its (optional) syntax tree; the unit the server stores."""

    doc: Document
    syntax: SyntaxState | None = field(default=None)

    @classmethod
    def open(cls, doc: Document, path: str = "") -> "ParsedDocument":
        spec = language_for(doc.language_id, path or doc.uri)
        syntax = SyntaxState(spec, spec.parser()) if spec else None
        return cls(doc, syntax)

    @property
    def spec(self) -> LanguageSpec | None:
        return self.syntax.spec if self.syntax else None

    def tree(self) -> Tree | None:
        if self.syntax is None or len(self.doc.source_bytes) > MAX_PARSE_BYTES:
            return None
        return self.syntax.current(self.doc.source_bytes)

    def snapshot(self) -> "ParsedDocument":
        """A frozen copy for work that outlives the next keystroke (post-processing)."""
        doc = self.doc
        copy = Document(doc.uri, doc.text, doc.language_id, doc.version, doc.encoding)
        # the line index and bytes are never mutated in place, only replaced: share them
        copy._starts, copy._bytes = doc._starts, doc._bytes
        if self.syntax is None:
            return ParsedDocument(copy, None)
        tree = self.tree()
        state = SyntaxState(self.syntax.spec, self.syntax.parser,
                            tree.copy() if tree is not None else None, dirty=tree is None)
        return ParsedDocument(copy, state)

    def apply_change(self, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        edit = self.doc.apply_change(start, end, text)
        if self.syntax:
            self.syntax.edit(edit)

    def replace_all(self, text: str) -> None:
        self.doc.replace_all(text)
        if self.syntax:  # a full replacement shares nothing worth reusing
            self.syntax.tree = None
            self.syntax.dirty = True
