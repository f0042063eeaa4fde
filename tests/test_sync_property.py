"""Document sync is exact: random incremental edits in every position encoding.

An independent oracle converts string offsets to LSP positions (lines split on
`\\r\\n`, `\\r`, `\\n`; columns counted in the encoding's code units), edits are applied
both to a plain reference string and through `ParsedDocument.apply_change`, and after
each batch the text must be identical and the lazily reparsed tree-sitter tree must
equal a fresh parse of the same bytes.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tree_sitter import Node

from flashls.context.document import Document, parse_bytes
from flashls.context.syntax import ParsedDocument

ENCODINGS = ("utf-16", "utf-8", "utf-32")
_BREAK = re.compile(r"\r\n|\r|\n")

# Python-ish fragments so the tree is interesting, plus multi-byte, astral and CRLF.
FRAGMENTS = ["def f(x):\n", "    return x\n", "if a:\n", "  ", "(", ")", "[", "]", ":",
             "\"s", "'", "#", "é", "中文", "😀", "🎉x", "\U0001F468\u200d\U0001F469", "\r\n",
             "\r", "\n", "\t", "x", "1", "ab", "", "class C:\n    pass\n", "\"\"\"", "\\"]


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def oracle_position(text: str, offset: int, encoding: str) -> tuple[int, int]:
    """The LSP position of `offset`, written independently of flashls' own codec."""
    line, start = 0, 0
    for m in _BREAK.finditer(text):
        if m.end() > offset:
            break
        line, start = line + 1, m.end()
    return line, units(text[start:offset], encoding)


def addressable(text: str, offset: int) -> int:
    """An offset LSP can name: never between the `\\r` and `\\n` of one line break."""
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        return offset - 1
    return offset


def walk(node: Node):
    yield node
    for child in node.children:
        yield from walk(child)


def shape(tree) -> list[tuple]:
    """Every node's type, byte span and error flag (string form plus spans)."""
    return [(n.type, n.start_byte, n.end_byte, n.start_point, n.end_point, n.is_missing, n.has_error)
            for n in walk(tree.root_node)]


edit_strategy = st.tuples(
    st.floats(0, 1), st.floats(0, 1),
    st.lists(st.sampled_from(FRAGMENTS), max_size=4).map("".join))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          derandomize=True)
@given(encoding=st.sampled_from(ENCODINGS),
       initial=st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join),
       batches=st.lists(st.lists(edit_strategy, min_size=1, max_size=8),
                        min_size=1, max_size=6))
def test_random_incremental_edits_match_reference_and_fresh_parse(encoding, initial, batches):
    pdoc = ParsedDocument.open(Document("file:///t.py", initial, "python", 1, encoding))
    assert pdoc.syntax is not None
    reference = initial
    pdoc.tree()  # parse once, so later edits take the incremental path
    for batch in batches:
        for a, b, new_text in batch:
            lo, hi = sorted((int(a * len(reference)), int(b * len(reference))))
            lo, hi = addressable(reference, lo), addressable(reference, hi)
            start = oracle_position(reference, lo, encoding)
            end = oracle_position(reference, hi, encoding)
            pdoc.apply_change(start, end, new_text)
            reference = reference[:lo] + new_text + reference[hi:]
            assert pdoc.doc.text == reference
        tree = pdoc.tree()
        # what the parser reads: the text's UTF-8 with a lone "\r" as "\n"
        assert pdoc.doc.source_bytes == parse_bytes(reference)
        assert len(parse_bytes(reference)) == len(reference.encode("utf-8"))
        fresh = pdoc.syntax.parser.parse(parse_bytes(reference))
        assert str(tree.root_node) == str(fresh.root_node)
        assert shape(tree) == shape(fresh)
    assert pdoc.syntax.incremental_parses == len(batches)
    assert pdoc.syntax.full_parses == 1


@settings(max_examples=150, deadline=None, derandomize=True)
@given(encoding=st.sampled_from(ENCODINGS),
       text=st.lists(st.sampled_from(FRAGMENTS), max_size=20).map("".join),
       where=st.floats(0, 1))
def test_position_round_trip_agrees_with_oracle(encoding, text, where):
    doc = Document("file:///r.txt", text, "", 1, encoding)
    offset = addressable(text, int(where * len(text)))
    position = oracle_position(text, offset, encoding)
    assert doc.position_at(offset) == position
    assert doc.offset_at(*position, strict=True) == offset


def test_edits_at_the_very_end_and_empty_edits():
    for encoding in ENCODINGS:
        pdoc = ParsedDocument.open(Document("file:///e.py", "a = 1\r\n", "python", 1, encoding))
        pdoc.tree()
        pdoc.apply_change((1, 0), (1, 0), "b = '😀'")  # append on the last (empty) line
        pdoc.apply_change((1, 0), (1, 0), "")  # empty edit: nothing changes
        end = (1, units("b = '😀'", encoding))
        pdoc.apply_change(end, end, "\r\nc = 3")
        pdoc.apply_change((5, 99), (7, 0), "")  # past the end: lenient, a no-op
        assert pdoc.doc.text == "a = 1\r\nb = '😀'\r\nc = 3"
        fresh = pdoc.syntax.parser.parse(pdoc.doc.text.encode())
        assert str(pdoc.tree().root_node) == str(fresh.root_node)
