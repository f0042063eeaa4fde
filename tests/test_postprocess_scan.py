"""The helpers under post-processing: fragment scanner, indentation style, cursor context."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashls.completion.cursor import cursor_context
from flashls.completion.indent import IndentStyle, columns, detect_style, normalise
from flashls.completion.scan import Lexicon, ScanState, final_state, is_closers_only, scan
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument

PY = Lexicon(('"""', "'''", '"', "'"), "#", None)
JS = Lexicon(('"', "'", "`"), "//", ("/*", "*/"))
RUST = Lexicon(('"',), "//", ("/*", "*/"))


# -- scan --------------------------------------------------------------------------------
def test_scan_tracks_brackets_it_opened() -> None:
    state = final_state("foo(a, [b", JS)
    assert [opener for opener, _ in state.stack] == ["(", "["]
    assert state.stack[0][1] == 3  # position of the `(`


def test_scan_counts_closers_of_outer_brackets() -> None:
    assert final_state("a), b)", JS).closed_outside == 2
    assert final_state("f(a)", JS).closed_outside == 0


def test_scan_ignores_brackets_in_strings_and_comments() -> None:
    state = final_state('x = ")" + \'(\' # (', PY)
    assert state.stack == () and state.closed_outside == 0 and state.comment == "line"
    assert final_state("x = 1 /* ( */ // [", JS).stack == ()
    assert final_state("s = `(${x}`", JS).stack == ()


def test_scan_escapes_and_triple_quotes() -> None:
    assert final_state(r'"a\"(" + b', JS) == ScanState()
    assert final_state('"""doc "quoted" (\n still"""', PY) == ScanState()


def test_scan_from_inside_a_string() -> None:
    states = scan('abc") + f(', JS, ScanState(quote='"'))
    assert states[3].same_level(ScanState(quote='"'))
    assert states[-1].closed_outside == 2  # the string, then the call's `)`
    assert states[-1].stack == (("(", 9),)


def test_single_quote_strings_end_at_the_line() -> None:
    assert final_state("don't (\nx = 1", PY).quote is None


def test_rust_lifetimes_are_not_strings() -> None:
    assert final_state("fn f<'a>(x: &'a str) {", RUST).stack == (("{", 21),)


def test_closers_only() -> None:
    assert is_closers_only(")")
    assert is_closers_only('"]);')
    assert is_closers_only(" }")
    assert not is_closers_only(";")
    assert not is_closers_only(") {")
    assert not is_closers_only("x)")
    assert not is_closers_only("")


# -- indentation ---------------------------------------------------------------------------
def test_columns() -> None:
    assert columns("\t", 4) == 4
    assert columns("  \t", 4) == 4
    assert columns("    ", 4) == 4


@pytest.mark.parametrize("text, style", [
    ("a:\n    b\n    c:\n        d\n", IndentStyle(False, 4)),
    ("a {\n  b {\n    c\n  }\n}\n", IndentStyle(False, 2)),
    ("a {\n\tb {\n\t\tc\n\t}\n}\n", IndentStyle(True, 4)),
    ("no indentation\nat all\n", None),
])
def test_detect_style(text: str, style: IndentStyle | None) -> None:
    assert detect_style(text) == style


def test_normalise_spaces_to_tabs() -> None:
    text = "\n    a\n        b\n    c"
    assert normalise(text, IndentStyle(True, 4), False) == "\n\ta\n\t\tb\n\tc"


def test_normalise_two_space_model_to_tabs() -> None:
    assert normalise("x\n  a\n    b", IndentStyle(True, 4), False) == "x\n\ta\n\t\tb"


def test_normalise_tabs_to_spaces() -> None:
    assert normalise("\ta\n\t\tb", IndentStyle(False, 2), True) == "  a\n    b"


def test_normalise_leaves_the_first_line_and_matching_styles_alone() -> None:
    assert normalise("    x\n    y", IndentStyle(True, 4), False) == "    x\n\ty"
    assert normalise("a\n  b", IndentStyle(False, 2), False) == "a\n  b"
    assert normalise("a\n\tb", None, False) == "a\n\tb"


# -- cursor context ---------------------------------------------------------------------------
def ctx(text: str, language: str, ext: str):
    offset = text.index("█")
    pdoc = ParsedDocument.open(Document(f"file:///t{ext}", text.replace("█", ""), language))
    return cursor_context(pdoc, offset)


@pytest.mark.parametrize("text, language, ext, quote", [
    ('x = "ab█c"\n', "python", ".py", '"'),
    ("x = f'ab█c'\n", "python", ".py", "'"),
    ('x = """doc\nmore█\n"""\n', "python", ".py", '"""'),
    ("const s = `a█b`;\n", "javascript", ".js", "`"),
    ('let s = "█";\n', "rust", ".rs", '"'),
    ("var s = `█`\n", "go", ".go", "`"),
])
def test_cursor_inside_strings(text: str, language: str, ext: str, quote: str) -> None:
    assert ctx(text, language, ext).start.quote == quote


@pytest.mark.parametrize("text, language, ext", [
    ("x = 1  # note█\n", "python", ".py"),
    ("// note█\nint x;\n", "c", ".c"),
    ("/* a █ b */\n", "java", ".java"),
    ("/// doc █\nfn f() {}\n", "rust", ".rs"),
])
def test_cursor_inside_comments(text: str, language: str, ext: str) -> None:
    assert ctx(text, language, ext).in_comment


@pytest.mark.parametrize("text, language, ext", [
    ('x = "abc"█\n', "python", ".py"),
    ("const s = `${a█}`;\n", "javascript", ".js"),
    ("/* done */█\n", "c", ".c"),
    ("fn f<'a>(x: &'a str) {█}\n", "rust", ".rs"),
])
def test_cursor_in_code(text: str, language: str, ext: str) -> None:
    context = ctx(text, language, ext)
    assert not context.in_string and not context.in_comment


def test_unterminated_string_found_by_text_rules() -> None:
    assert ctx('print("hello█\n', "python", ".py").start.quote == '"'
    assert ctx('note "quoted█\n', "plaintext", ".txt").start.quote == '"'


def test_cursor_context_lines_and_eol() -> None:
    context = ctx("a\r\nb█c\r\nd\r\n", "python", ".py")
    assert (context.line_prefix, context.rest) == ("b", "c")
    assert context.prev_lines == ("a",) and context.next_lines[0] == "d"
    assert context.eol == "\r\n"


def test_block_of_an_opener_line() -> None:
    block = ctx("    if (x) {█}\n", "javascript", ".js").block
    assert block.opens_here and block.empty and block.closer == "}" and block.closer_follows
    assert block.base == 4


def test_block_of_a_line_inside_a_body() -> None:
    block = ctx("def f():\n    x = 1\n    y█\n", "python", ".py").block
    assert not block.opens_here and block.base == 0
    assert ctx("x = 1█\n", "python", ".py").block.base is None


_LEXICONS = [Lexicon(), Lexicon(('"""', "'''", '"', "'"), "#"),
             Lexicon(('"', "'", "`"), "//", ("/*", "*/")), Lexicon(('"',), "--", ("{-", "-}"))]
_STARTS = [ScanState(), ScanState(quote='"'), ScanState(quote='"""'),
           ScanState(comment="block"), ScanState(comment="line")]


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet='()[]{}"\'`#/*-\\\n xé', max_size=80),
       lex=st.sampled_from(_LEXICONS), start=st.sampled_from(_STARTS))
def test_final_state_is_the_last_state_of_a_full_scan(text, lex, start) -> None:
    """The fast path that keeps no per-character states ends where the full scan does."""
    assert final_state(text, lex, start) == scan(text, lex, start)[-1]
