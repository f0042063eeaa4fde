"""Each post-processing step on its own, then `clean` end to end on small documents."""

from __future__ import annotations

import pytest

from flashls.completion.cursor import cursor_context
from flashls.completion.multiline import Shape, decide_shape
from flashls.completion.postprocess import (Cleaned, balance, clean, closer_on_own_line,
                                            cut_at_block_end, cut_at_following,
                                            cut_inline_loops, cut_repeats, first_line,
                                            normalise_newlines, splice_rest, strip_code_fence,
                                            strip_echo, strip_trailing_whitespace)
from flashls.completion.scan import Lexicon, ScanState
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument

PY = Lexicon(('"""', "'''", '"', "'"), "#", None)
JS = Lexicon(('"', "'", "`"), "//", ("/*", "*/"))
SINGLE = Shape(False, ("\n",), 48)
MULTI = Shape(True, ("\n\n\n",), 64)


def doc(text: str, language: str = "python", ext: str = ".py") -> tuple[ParsedDocument, int]:
    offset = text.index("█")
    text = text.replace("█", "")
    return ParsedDocument.open(Document(f"file:///t{ext}", text, language)), offset


# -- strip_echo -------------------------------------------------------------------------
def test_echo_of_the_line_is_stripped() -> None:
    assert strip_echo("    return a + b", "    return a") == " + b"


def test_echo_without_indentation_is_stripped() -> None:
    assert strip_echo("return a + b", "    return a") == " + b"


def test_echo_of_lines_above_is_stripped() -> None:
    assert strip_echo("def f():\n    return 1", "    ", ("x = 1", "def f():")) == "return 1"


def test_echo_of_the_word_being_typed() -> None:
    assert strip_echo("result = 1", "    resu") == "lt = 1"


def test_indentation_the_cursor_sits_at_is_not_doubled() -> None:
    assert strip_echo("\treturn x", "    ") == "return x"


def test_overlap_with_the_end_of_the_line_is_stripped() -> None:
    assert strip_echo("foo(a, b)", "    return foo(a, ") == "b)"
    assert strip_echo("items.append(x)", "for x in xs: items.") == "append(x)"  # `items.`


def test_short_or_mid_word_overlaps_are_not_echoes() -> None:
    assert strip_echo("a + b", "x = a + ") == "a + b"  # only 2 visible characters
    assert strip_echo("value = 1", "new_value = ") == "value = 1"  # starts inside a word


def test_no_echo_is_left_alone() -> None:
    assert strip_echo("b)", "foo(a, ") == "b)"
    assert strip_echo("a + 1", "x = a") == "a + 1"  # one letter is not an echo


# -- first line, loops, repeats ------------------------------------------------------------
def test_code_fence_is_removed() -> None:
    assert strip_code_fence("```python\n    return x\n```") == "    return x"
    assert strip_code_fence("```\n\n    return x\n```\n") == "\n    return x"
    assert strip_code_fence("```js\nfoo();") == "foo();"  # cut before the closing fence
    assert strip_code_fence("x = 1  # ```") == "x = 1  # ```"


def test_markdown_keeps_its_fences() -> None:
    pdoc, offset = doc("Example:\n█\n", "markdown", ".md")
    assert clean("```python\nprint(1)\n```", pdoc, offset, MULTI).text.startswith("```python")


def test_first_line() -> None:
    assert first_line("a = 1\nb = 2") == "a = 1"
    assert first_line("\nb = 2") == ""


def test_normalise_newlines() -> None:
    assert normalise_newlines("a\r\nb\rc\n") == "a\nb\nc\n"


def test_inline_loop_is_cut_after_the_first_round() -> None:
    assert cut_inline_loops("x = foo(foo(foo(") == "x = foo("
    assert cut_inline_loops("ok\nand so on and so on and so on and so on\nmore") == \
        "ok\nand so on "


def test_inline_repetition_of_data_is_not_a_loop() -> None:
    for line in ("xs = [0, 0, 0, 0, 0, 0, 0, 0]", "ys = [0.25, 0.25, 0.25, 0.25]",
                 "zs = ['a', 'a', 'a', 'a']", "a.b.c.d.e.f.g"):
        assert cut_inline_loops(line) == line


def test_repeated_line_is_cut() -> None:
    assert cut_repeats("\n    print(i)\n    print(i)\n    print(i)", "for i in x:") == \
        "\n    print(i)"


def test_repeated_block_is_cut() -> None:
    text = "a()\nb()\na()\nb()\na()"
    assert cut_repeats(text) == "a()\nb()"


def test_line_repeating_the_one_above_the_cursor_is_dropped() -> None:
    assert cut_repeats("x = load()", "    ", ("def f():", "    x = load()")) == ""


def test_users_own_duplicate_above_does_not_kill_a_suggestion() -> None:
    assert cut_repeats("\ny = 2", "x = 1", ("x = 1",)) == "\ny = 2"


def test_distinct_lines_are_kept() -> None:
    assert cut_repeats("a\nb\nc") == "a\nb\nc"


# -- cut_at_following ------------------------------------------------------------------------
def test_cut_where_text_repeats_the_next_line() -> None:
    text = "\n    x = 1;\n}\nfoo();"
    assert cut_at_following(text, "if (a) {", ("}", "foo();")) == "\n    x = 1;"


def test_closer_at_other_indentation_is_not_the_next_line() -> None:
    text = "\n  if (x) {\n    y();\n  }"
    assert cut_at_following(text, "function f() {", ("}",)) == text


def test_first_line_completing_to_the_next_line_is_dropped() -> None:
    assert cut_at_following("return x", "    ", ("    return x",)) == ""


# -- cut_at_block_end ----------------------------------------------------------------------
def test_python_block_ends_at_dedent() -> None:
    pdoc, offset = doc("def f(x):█\n")
    ctx = cursor_context(pdoc, offset)
    text = "\n    y = x\n    return y\n\nprint(f(1))"
    assert cut_at_block_end(text, ctx) == "\n    y = x\n    return y\n"


def test_python_else_continues_the_block() -> None:
    pdoc, offset = doc("def f(x):\n    if x:█\n")
    ctx = cursor_context(pdoc, offset)
    text = "\n        a()\n    else:\n        b()\nc()"
    assert cut_at_block_end(text, ctx) == "\n        a()\n    else:\n        b()"


def test_brace_block_keeps_its_own_closer_when_missing() -> None:
    pdoc, offset = doc("function f() {█", "javascript", ".js")
    ctx = cursor_context(pdoc, offset)
    text = "\n  return 1;\n}\n\nfunction g() {}"
    assert cut_at_block_end(text, ctx) == "\n  return 1;\n}"


def test_brace_block_drops_a_closer_that_exists_below() -> None:
    pdoc, offset = doc("function f() {█\n  \n}\n", "javascript", ".js")
    ctx = cursor_context(pdoc, offset)
    assert cut_at_block_end("\n  return 1;\n}\nmore();", ctx) == "\n  return 1;"


def test_else_branch_keeps_going() -> None:
    pdoc, offset = doc("if (a) {█", "javascript", ".js")
    ctx = cursor_context(pdoc, offset)
    text = "\n  x();\n} else {\n  y();\n}\nz();"
    assert cut_at_block_end(text, ctx) == "\n  x();\n} else {\n  y();\n}"


def test_top_level_cursor_has_no_block_end() -> None:
    pdoc, offset = doc("█\n")
    ctx = cursor_context(pdoc, offset)
    assert cut_at_block_end("a = 1\nb = 2", ctx) == "a = 1\nb = 2"


def test_trailing_whitespace() -> None:
    assert strip_trailing_whitespace("a  \n  b \n\n") == "a\n  b"


# -- splice_rest ---------------------------------------------------------------------------
@pytest.mark.parametrize("text, rest, expected", [
    ("a)", ")", ("a)", 1)),  # closer written again: replace it
    ("a", ")", ("a", 0)),  # plain insert
    ("f(a)", ")", ("f(a)", 0)),  # its `)` closes its own `(`: not the one after the cursor
    ("x);", ");", ("x);", 2)),
    ("x);", ")", ("x);", 1)),  # adds a `;` after the closer
    ("a), b(c)", ")", ("a), b(c)", 1)),  # closes and goes on
    ("x))", ")", ("x)", 1)),  # one closer too many: cut at the first
    (")", ")", ("", 0)),  # only the closer: nothing left
    ("unit + tax", " + tax", ("unit", 0)),  # repeats the rest of the line: cut
    ("b, c) + 1", ") + 1", ("b, c", 0)),
])
def test_splice_rest(text: str, rest: str, expected: tuple[str, int]) -> None:
    assert splice_rest(text, rest, JS) == expected


def test_splice_inside_a_string() -> None:
    start = ScanState(quote='"')
    assert splice_rest('hello");', '");', JS, start) == ('hello");', 3)
    assert splice_rest('n = %d\\n", n);', '");', JS, start) == ('n = %d\\n", n);', 3)
    assert splice_rest('n = %d\\n", n', '");', JS, start) == ('n = %d\\n", n', 1)
    assert splice_rest("hello", '")', JS, start) == ("hello", 0)


def test_splice_mid_word() -> None:
    assert splice_rest("nt(x, 10);", "nt(x);", JS, line_prefix="parseI") == ("nt(x, 10);", 6)
    assert splice_rest("ms)", "s)", JS, line_prefix="ite") == ("m", 0)
    assert splice_rest("nt", "t(x)", JS, line_prefix="pri") == ("n", 0)


# -- balance -------------------------------------------------------------------------------
def test_balance_closes_what_the_text_opened() -> None:
    assert balance("foo(a, b", JS) == "foo(a, b)"
    assert balance("foo(a, b,", JS) == "foo(a, b)"
    assert balance('print("hi', PY) == 'print("hi")'


def test_balance_leaves_a_text_that_ends_by_opening_alone() -> None:
    assert balance("if (count === 1) {", JS) == "if (count === 1) {"
    assert balance("items.forEach(function (x) {", JS) == "items.forEach(function (x) {"
    assert balance("call(", JS) == "call("


def test_balance_leaves_closers_of_outer_brackets_alone() -> None:
    assert balance("a, b", JS) == "a, b"
    assert balance("a)", JS) == "a)"
    assert balance("rld", JS, ScanState(quote='"')) == "rld"


def test_balance_counts_closers_the_rest_of_the_line_supplies() -> None:
    # `round(sum(█), 2)` + `prices) * (1 + tax`: the `)` after the cursor closes `(1 + tax`
    assert balance("prices) * (1 + tax", JS, rest="), 2)") == "prices) * (1 + tax"
    # `foo(█)` + `bar(x`: the `)` after the cursor belongs to foo
    assert balance("bar(x", JS, rest=")") == "bar(x)"


def test_balance_multi_line_closes_on_own_line() -> None:
    text = "\n  if (x) {\n    y(1,"
    assert balance(text, JS) == "\n  if (x) {\n    y(1)\n  }"


def test_balance_ignores_brackets_in_strings_and_comments() -> None:
    assert balance('x = "(" // [', JS) == 'x = "(" // ['


def test_closer_on_own_line() -> None:
    pdoc, offset = doc("function f() {█}", "javascript", ".js")
    ctx = cursor_context(pdoc, offset)
    assert closer_on_own_line("\n  return 1;", "}", 0, ctx) == "\n  return 1;\n"
    assert closer_on_own_line("\n  return 1;\n}", "}", 1, ctx) == "\n  return 1;\n}"
    assert closer_on_own_line("1", "}", 0, ctx) == "1"


# -- clean -----------------------------------------------------------------------------------
def test_clean_single_line_keeps_one_line() -> None:
    pdoc, offset = doc("x = █\n")
    assert clean("compute()\ny = 2", pdoc, offset, SINGLE) == Cleaned("compute()", offset)


def test_clean_returns_none_for_blank() -> None:
    pdoc, offset = doc("x = █\n")
    assert clean("  \n\t\n", pdoc, offset, MULTI) is None
    assert clean("", pdoc, offset, SINGLE) is None


def test_clean_replace_range_stays_on_the_cursor_line() -> None:
    pdoc, offset = doc("print(█)\nprint(2)\n")
    result = clean("1)\nprint(2)", pdoc, offset, MULTI)
    assert result == Cleaned("1)", offset + 1)


def test_clean_keeps_crlf_line_endings() -> None:
    pdoc, offset = doc("def f():█\r\n\r\nx = 1\r\n")
    shape = decide_shape(pdoc, offset, "auto", 64)
    assert shape.multiline
    result = clean("\n    a = 1\n    return a\n", pdoc, offset, shape)
    assert result == Cleaned("\r\n    a = 1\r\n    return a", offset)


def test_clean_converts_spaces_to_the_files_tabs() -> None:
    pdoc, offset = doc("func f() {\n\tx := 1\n\tif x > 0 {█\n\t}\n}\n", "go", ".go")
    result = clean("\n        x++\n    }", pdoc, offset, MULTI)
    assert result == Cleaned("\n\t\tx++", offset)


def test_clean_unknown_language_uses_text_rules() -> None:
    pdoc, offset = doc("note (see █) here", "plaintext", ".txt")
    assert pdoc.spec is None
    assert clean("page 2)", pdoc, offset, SINGLE) == Cleaned("page 2)", offset + 1)


def test_clean_survives_odd_offsets() -> None:
    pdoc, _ = doc("x = 1█\n")
    assert clean("2", pdoc, 10_000, SINGLE) == Cleaned("2", len(pdoc.doc.text))
    empty = ParsedDocument.open(Document("file:///e.py", "", "python"))
    assert clean("a = 1", empty, 0, MULTI) == Cleaned("a = 1", 0)
