"""A keystroke in a big document parses the edited top-level nodes, not the file.

tree-sitter's incremental reparse visits every top-level node for grammars with an
external scanner (Python, JavaScript, TypeScript): about 7 µs each, 20-40 ms on a
3,000-function file wherever the edit is. A request on a big document whose tree is
stale therefore parses only the region the edit touched, plus one unchanged top-level
node on each side, with `included_ranges` so positions are the document's
(`analysis.analyze_region` checks those two sentinel nodes and falls back to the whole
tree otherwise). The region's tree serves the cursor's queries too (`tree_near`); the
document's whole tree catches up after a pause in the typing (the server's idle
reparse) or when something needs it, never on a request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from tree_sitter import Parser, Point, Range, Tree

from .analysis import (Analysis, analyze, analyze_region, analyzed_lines, has_provisional,
                       syntax_errors)
from .background import analysis_ready, document_key
from .doc_lines import DocumentLines
from .edit_span import DocEdits
from .syntax import ParsedDocument

# a region larger than this (edits spread over the file, or a node swallowing much of
# it) is not worth a separate parse: the whole tree's incremental reparse is then used
MAX_REGION_BYTES = 256_000


@dataclass
class RegionTree:
    """A parse of bytes start..end of one version of the document (`source`)."""

    source: bytes = field(repr=False)
    start: int
    end: int
    tree: Tree
    checked: bool = False  # its sentinels matched: it stands for the whole file's parse


def _parser(pdoc: ParsedDocument) -> Parser:
    syntax = pdoc.syntax
    if syntax.region_parser is None:
        syntax.region_parser = syntax.spec.parser()
    return syntax.region_parser


def _region_parser(pdoc: ParsedDocument, source: bytes):
    def parse(start: int, end: int, start_point: tuple[int, int],
              end_point: tuple[int, int]) -> Tree | None:
        if end - start > MAX_REGION_BYTES or start >= end:
            return None
        parser = _parser(pdoc)
        parser.included_ranges = [Range(Point(*start_point), Point(*end_point), start, end)]
        try:
            tree = parser.parse(source)
        finally:
            parser.included_ranges = []
        pdoc.syntax.region = RegionTree(source, start, end, tree)
        return tree
    return parse


def current_analysis(pdoc: ParsedDocument) -> Analysis | None:
    """The analysis of the document's current version for a request: from a parse of
    the edited region when that stands for the whole file's, else from the whole
    tree. None while a big document is being prepared (the window only)."""
    spec = pdoc.spec
    if spec is None or not analysis_ready(pdoc):
        return None
    doc = pdoc.doc
    key = document_key(pdoc)
    if pdoc.region_pending():
        source = doc.source_bytes
        result = analyze_region(spec, doc.text, key, doc.uri, source,
                                _region_parser(pdoc, source), DocEdits(doc))
        if result is not None:
            region = pdoc.syntax.region
            if region is not None and region.source is source:
                region.checked = True
            return result
    tree = pdoc.tree()
    if tree is None:
        return None
    return analyze(spec, doc.text, key, tree=tree, current=True, state_key=doc.uri,
                   source=doc.source_bytes, edits=DocEdits(doc))


def provisional(pdoc: ParsedDocument) -> bool:
    """Whether the document's current analysis came from a region parse with a syntax
    error, which may differ from the whole file's parse until its next reparse."""
    return has_provisional(pdoc.doc.uri)


def tree_near(pdoc: ParsedDocument, byte: int) -> Tree | None:
    """A tree that holds the top-level node around `byte` exactly as the whole file's
    current tree does: the checked region parse when `byte` lies well inside it, else
    the whole tree (reparsed if stale)."""
    syntax = pdoc.syntax
    region = syntax.region if syntax is not None else None
    if region is not None and region.checked and syntax.dirty and \
            region.source is pdoc.doc.source_bytes and region.start + 1 < byte < region.end - 1:
        return region.tree
    return pdoc.tree()


def has_error(pdoc: ParsedDocument) -> bool:
    """Whether the whole file's current tree has a syntax error, without reparsing it
    when the current version was analyzed from a region: some top-level node holds
    one (the analysis counts them)."""
    syntax = pdoc.syntax
    if syntax is not None and syntax.dirty:
        region = syntax.region
        if region is not None and region.checked and region.source is pdoc.doc.source_bytes:
            errors = syntax_errors(pdoc.doc.uri, region.source)
            if errors is not None:  # (a provisional region's error counts too)
                return errors > 0 or region.tree.root_node.has_error
    tree = pdoc.tree()
    return tree is not None and tree.root_node.has_error


def document_lines(pdoc: ParsedDocument) -> Sequence[str]:
    """`split_lines(pdoc.doc.text)` without splitting: the analysis's lines of this very
    version when there is one (read-only), else a view reading the document's line
    index (`doc_lines.DocumentLines`)."""
    known = pdoc.doc.known_bytes()
    lines = analyzed_lines(pdoc.doc.uri, known) if known is not None else None
    return lines if lines is not None else DocumentLines(pdoc.doc)
