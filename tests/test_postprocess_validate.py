"""Parse validation: reject or shorten multi-line suggestions that break the syntax."""

from __future__ import annotations

import pytest

from flashls.completion import validate
from flashls.completion.multiline import Shape
from flashls.completion.postprocess import Cleaned
from flashls.completion.quality import suggest
from flashls.completion.validate import count_errors, introduces_errors, shorten_until_valid
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument

MULTI = Shape(True, ("\n\n\n",), 64)


@pytest.fixture(autouse=True, params=["top-level region", "whole file"])
def parse_scope(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test runs both ways: re-parsing the edited top-level region, and (as for
    regions too large for that) incrementally re-parsing the whole file."""
    if request.param == "whole file":
        monkeypatch.setattr(validate, "REGION_MAX_BYTES", 0)
    return request.param


def doc(text: str, language: str = "python", ext: str = ".py") -> tuple[ParsedDocument, int]:
    offset = text.index("█")
    return ParsedDocument.open(Document(f"file:///t{ext}", text.replace("█", ""), language)), offset


def test_valid_body_introduces_no_errors() -> None:
    pdoc, offset = doc("def f(x):█\n\nprint(f(1))\n")
    assert not introduces_errors(pdoc, offset, offset, "\n    return x + 1")


def test_broken_body_introduces_errors() -> None:
    pdoc, offset = doc("def f(x):█\n\nprint(f(1))\n")
    assert introduces_errors(pdoc, offset, offset, "\n    return x +")
    assert introduces_errors(pdoc, offset, offset, "\n    return (x + 1")


def test_errors_already_in_the_file_do_not_count() -> None:
    pdoc, offset = doc("x = (1 +\n\ndef f(x):█\n\ny = ]\n")
    assert count_errors(pdoc.tree().root_node) > 0
    assert not introduces_errors(pdoc, offset, offset, "\n    return x")


def test_python_block_left_empty_is_an_error() -> None:
    pdoc, offset = doc("def f(x):█\n\nprint(f(1))\n")
    assert introduces_errors(pdoc, offset, offset, "\n    if x:\n    return 1")
    assert introduces_errors(pdoc, offset, offset, "\n    for y in x:")
    assert not introduces_errors(pdoc, offset, offset, "\n    if x:\n        return 1")
    assert not introduces_errors(pdoc, offset, offset, "\n    d = {1:\n    2}")


def test_completing_a_broken_block_is_fine() -> None:
    pdoc, offset = doc("function f() {█", "javascript", ".js")
    assert not introduces_errors(pdoc, offset, offset, "\n  return 1;\n}")


def test_replaced_range_is_honoured() -> None:
    pdoc, offset = doc("function f() {█}\n", "javascript", ".js")
    assert not introduces_errors(pdoc, offset, offset + 1, "\n  return 1;\n}")
    assert introduces_errors(pdoc, offset, offset, "\n  return 1;\n}")  # a second `}`


def test_non_ascii_before_the_cursor() -> None:
    pdoc, offset = doc('s = "héllo wörld 🎉"\ndef f(x):█\n')
    assert not introduces_errors(pdoc, offset, offset, "\n    return s")
    assert introduces_errors(pdoc, offset, offset, "\n    return s)")


def test_unknown_language_uses_bracket_balance() -> None:
    pdoc, offset = doc("list (█)\n", "plaintext", ".txt")
    assert pdoc.spec is None
    assert not introduces_errors(pdoc, offset, offset + 1, "a, b)")
    assert introduces_errors(pdoc, offset, offset, "a, b))")


def test_region_is_the_top_level_definitions_around_the_cursor(parse_scope: str) -> None:
    text = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(50))
    pdoc, offset = doc(text + "def g(x):█\n")
    start = pdoc.doc.byte_at(offset)
    region = validate._top_level_region(pdoc.tree(), start, start)
    if parse_scope == "whole file":
        assert region is None
        return
    assert pdoc.doc.source_bytes[region[0]:region[1]] == b"def g(x):"
    pdoc, offset = doc(text.replace("def f7(x):", "█def f7(x):"))
    start = pdoc.doc.byte_at(offset)
    lo, hi = validate._top_level_region(pdoc.tree(), start, start)
    assert pdoc.doc.source_bytes[lo:hi] == b"def f6(x):\n    return x + 6\n\n\ndef f7(x):\n    return x + 7"


def test_validation_leaves_the_document_tree_alone() -> None:
    pdoc, offset = doc("def f(x):█\n")
    before = str(pdoc.tree().root_node)
    introduces_errors(pdoc, offset, offset, "\n    return (x")
    assert str(pdoc.tree().root_node) == before
    assert pdoc.doc.text == "def f(x):\n"


def test_shorten_drops_broken_trailing_lines() -> None:
    pdoc, offset = doc("def f(x):█\n")
    cleaned = Cleaned("\n    y = x * 2\n    return y)", offset)
    assert shorten_until_valid(pdoc, offset, cleaned) == Cleaned("\n    y = x * 2", offset)


def test_shorten_keeps_valid_candidates_as_they_are() -> None:
    pdoc, offset = doc("def f(x):█\n")
    cleaned = Cleaned("\n    return x", offset)
    assert shorten_until_valid(pdoc, offset, cleaned) is cleaned


def test_shorten_gives_up_when_nothing_parses() -> None:
    pdoc, offset = doc("int f(void) {█\n}\n", "c", ".c")
    assert shorten_until_valid(pdoc, offset, Cleaned("\n    return + ;\n    }} int", offset)) \
        is None


def test_single_line_candidates_pass_through() -> None:
    pdoc, offset = doc("x = █\n")
    cleaned = Cleaned("(1 +", offset)
    assert shorten_until_valid(pdoc, offset, cleaned) is cleaned


def test_suggest_never_returns_a_breaking_multiline_suggestion() -> None:
    for raw in ("\n    return x +\n", "\n    if x:\n    return 1", "\n    y = [1, 2\n    z = 3"):
        pdoc, offset = doc("def f(x):█\n\nprint(f(2))\n")
        result = suggest(raw, pdoc, offset, MULTI)
        if result is not None:
            assert not introduces_errors(pdoc, offset, result.replace_end, result.text), raw
