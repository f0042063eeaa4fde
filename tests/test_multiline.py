"""The single/multi-line decision and the request parameters it sets."""

from __future__ import annotations

import pytest

from flashls.completion.multiline import MAX_STOPS, SINGLE_LINE_TOKENS, decide_shape
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument

EXT = {"python": ".py", "javascript": ".js", "typescript": ".ts", "go": ".go", "rust": ".rs",
       "java": ".java", "c": ".c", "cpp": ".cpp", "plaintext": ".txt"}


def shape(text: str, language: str = "python", setting: str = "auto", max_tokens: int = 64):
    offset = text.index("█")
    pdoc = ParsedDocument.open(Document(f"file:///t{EXT[language]}", text.replace("█", ""),
                                        language))
    return decide_shape(pdoc, offset, setting, max_tokens)


MULTI = [
    ("python", "def f(x):█\n"),
    ("python", "def f(x):\n    █\n\nprint(1)\n"),
    ("python", 'def f(x):\n    """Doc."""\n    █\n'),
    ("python", "class A:\n    def m(self):█\n\n    def n(self):\n        pass\n"),
    ("python", "if x > 0:█\n"),
    ("javascript", "function f() {█}\n"),
    ("javascript", "const g = (a) => {█};\n"),
    ("javascript", "function f() {█\n}\n"),
    ("typescript", "interface A {█}\n"),
    ("go", "func main() {█\n}\n"),
    ("rust", "fn main() {█\n}\n"),
    ("java", "class A {\n    void m() {█\n    }\n}\n"),
    ("c", "int main(void) {\n    █\n}\n"),
    ("cpp", "auto f = [](int a) {█});\n"),
    ("plaintext", "section {█}\n"),
]

SINGLE = [
    ("python", "x = █\n"),  # mid-statement
    ("python", "def f(x):\n    return x█\n"),
    ("python", "def f(x):\n    y = 1\n    █\n"),  # the block is not empty
    ("python", "def f(x):█\n    return x\n"),  # body already there
    ("python", "# a comment about █\n"),
    ("python", 'msg = "hello {█}"\n'),  # a brace inside a string
    ("python", "xs = {1: 2,█\n"),
    ("python", "x = d[1:█\n"),  # a slice's colon is not a block
    ("javascript", "if (x) {█ foo(); }\n"),  # code after the cursor
    ("javascript", "const s = `${a} {█`;\n"),
    ("javascript", "// open {█\n"),
    ("javascript", "foo(█);\n"),
    ("go", "func main() {\n\tfmt.Println(█)\n}\n"),
    ("c", "/* block {█ */\n"),
    ("plaintext", "Hello █\n"),
]


@pytest.mark.parametrize("language, text", MULTI)
def test_auto_is_multiline_where_an_empty_block_starts(language: str, text: str) -> None:
    assert shape(text, language).multiline


@pytest.mark.parametrize("language, text", SINGLE)
def test_auto_is_single_line_elsewhere(language: str, text: str) -> None:
    result = shape(text, language)
    assert not result.multiline
    assert result.stop == ("\n",)


def test_always_and_never_override() -> None:
    assert shape("x = █\n", setting="always").multiline
    assert not shape("def f(x):█\n", setting="never").multiline


def test_single_line_asks_for_fewer_tokens() -> None:
    assert shape("x = █\n", max_tokens=256).max_tokens == SINGLE_LINE_TOKENS
    assert shape("x = █\n", max_tokens=16).max_tokens == 16
    assert shape("def f():█\n", max_tokens=256).max_tokens == 256


def test_multiline_stops_at_block_end_markers() -> None:
    stops = shape("function f() {█\n}\n", "javascript").stop
    assert "\n\n\n" in stops
    assert "\n}" in stops  # the block's closer already exists: stop before repeating it
    assert "\nfunction " in stops
    assert len(stops) <= MAX_STOPS


def test_nested_python_method_stops_at_sibling_definitions() -> None:
    stops = shape("class A:\n    def m(self):█\n").stop
    assert "\n    def " in stops and "\ndef " in stops


def test_no_closer_stop_when_the_block_has_no_closer_yet() -> None:
    stops = shape("function f() {█", "javascript").stop
    assert not any(stop.endswith("}") for stop in stops)


def test_crlf_document_gets_crlf_stops() -> None:
    stops = shape("def f():█\r\n\r\nx = 1\r\n").stop
    assert "\r\n\r\n\r\n" in stops
    assert "\r\ndef " in stops


def test_stops_never_exceed_the_api_limit() -> None:
    assert all(len(shape(text, lang, "always").stop) <= MAX_STOPS for lang, text in MULTI)
