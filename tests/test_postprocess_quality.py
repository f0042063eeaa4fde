"""Entry points: suggest (clean + validation) and the candidates of an Invoked request."""

from __future__ import annotations

from flashls.completion.multiline import decide_shape
from flashls.completion.postprocess import Cleaned
from flashls.completion.quality import candidates, distinct, first_line_variant, suggest
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument


def doc(text: str, language: str = "javascript", ext: str = ".js"):
    offset = text.index("█")
    return ParsedDocument.open(Document(f"file:///t{ext}", text.replace("█", ""), language)), offset


def test_first_line_variant_of_a_body() -> None:
    pdoc, offset = doc("function f(xs) {█}\n")
    long = Cleaned("\n  const n = xs.length;\n  return n * 2;\n", offset)
    assert first_line_variant(pdoc, offset, long) == Cleaned("\n  const n = xs.length;\n", offset)


def test_first_line_variant_closes_what_its_line_opened() -> None:
    pdoc, offset = doc("function f(xs) {█}\n")
    long = Cleaned("\n  go(xs,\n     1);\n  stop();\n", offset)
    assert first_line_variant(pdoc, offset, long) == Cleaned("\n  go(xs)\n", offset)


def test_no_variant_that_is_an_empty_block() -> None:
    pdoc, offset = doc("function f(xs) {█}\n")
    long = Cleaned("\n  if (xs) {\n    go();\n  }\n", offset)
    assert first_line_variant(pdoc, offset, long) is None


def test_no_variant_for_a_one_line_body() -> None:
    pdoc, offset = doc("function f(xs) {█}\n")
    assert first_line_variant(pdoc, offset, Cleaned("\n  return 1;\n", offset)) is None


def test_distinct_compares_resulting_documents() -> None:
    pdoc, offset = doc("foo(█);\n")
    same_a = Cleaned("a)", offset + 1)  # replaces `)`
    same_b = Cleaned("a", offset)  # inserts before it: the same document
    other = Cleaned("b", offset)
    assert distinct(pdoc, offset, [same_a, None, same_b, other]) == [same_a, other]


def test_invoked_candidates_are_distinct_and_include_a_short_form() -> None:
    pdoc, offset = doc("function total(xs) {█}\n")
    shape = decide_shape(pdoc, offset, "auto", 64)
    raws = ["\n  let t = 0;\n  for (const x of xs) t += x;\n  return t;\n}",
            "\n  let t = 0;\n  for (const x of xs) t += x;\n  return t;",  # same after cleaning
            "\n  return xs.reduce((a, b) => a + b, 0);\n}"]
    got = candidates(raws, pdoc, offset, shape)
    assert [c.text for c in got] == [
        "\n  let t = 0;\n  for (const x of xs) t += x;\n  return t;\n}",
        "\n  return xs.reduce((a, b) => a + b, 0);\n}",
        "\n  let t = 0;\n",
    ]


def test_suggest_validates_only_multiline_shapes() -> None:
    pdoc, offset = doc("const x = █\n")
    shape = decide_shape(pdoc, offset, "auto", 64)
    assert not shape.multiline
    assert suggest("(1 + 2", pdoc, offset, shape) == Cleaned("(1 + 2)", offset)
