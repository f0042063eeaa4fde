"""Every golden case through decide_shape + clean + parse validation.

Each case pins the exact inserted text and range, and accepting it must not leave a
duplicated line, a duplicated closing character or a new syntax error.
"""

from __future__ import annotations

from collections import Counter

import pytest

from flashls.completion import validate
from flashls.completion.multiline import decide_shape
from flashls.completion.quality import suggest
from flashls.completion.validate import count_errors
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument

from .golden import (GoldenCase, bracket_trouble, duplicated_line_pairs, duplication_problems,
                     load_golden_cases)

CASES = load_golden_cases()
REQUIRED_LANGUAGES = {"python", "javascript", "typescript", "go", "rust", "java", "c", "cpp",
                      "plaintext"}
# the ugly situations the issue names; each must be covered by some case
REQUIRED_TAGS = {"echo", "suffix-repeat", "autoclose", "mid-word", "crlf", "tabs", "nested",
                 "loop", "no-suggestion", "invalid"}


def _errors(case: GoldenCase, text: str) -> int:
    pdoc = ParsedDocument.open(Document(case.uri, text, case.language_id))
    tree = pdoc.tree()
    return count_errors(tree.root_node) if tree is not None else 0


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_case(case: GoldenCase) -> None:
    pdoc = case.pdoc()
    shape = decide_shape(pdoc, case.offset, case.setting, case.max_tokens)
    if case.expect_multiline is not None:
        assert shape.multiline == case.expect_multiline, "multi-line decision"
    result = suggest(case.raw, pdoc, case.offset, shape)
    if case.expected is None:
        assert result is None, f"expected no suggestion, got {result}"
        return
    assert result is not None, "expected a suggestion, got none"
    assert result.text == case.expected
    assert result.replace_end == case.replace_end, "replaced range"
    after = case.accepted()
    assert duplication_problems(case, after) == []
    if not case.allow_errors:
        assert _errors(case, after) <= _errors(case, case.document), "new syntax errors"


def test_validation_by_whole_file_reparse_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files too large for the top-level-region check are re-parsed whole: same answers."""
    monkeypatch.setattr(validate, "REGION_MAX_BYTES", 0)
    for case in CASES:
        pdoc = case.pdoc()
        shape = decide_shape(pdoc, case.offset, case.setting, case.max_tokens)
        result = suggest(case.raw, pdoc, case.offset, shape)
        got = None if result is None else (result.text, result.replace_end)
        want = None if case.expected is None else (case.expected, case.replace_end)
        assert got == want, case.name


@pytest.mark.parametrize("variant", ["repeats the rest of the file", "echoes the line first",
                                     "answers in CRLF"])
def test_noisier_answers_give_the_same_result(variant: str) -> None:
    """The model may echo the line and run on through everything after the cursor (or
    use other line endings): every case must still come out exactly as expected."""
    for case in CASES:
        if case.expected is None:
            continue
        line = case.document[case.document.rfind("\n", 0, case.offset) + 1:case.offset]
        raw = {"repeats the rest of the file": case.expected + case.document[case.replace_end:],
               "echoes the line first": line + case.expected,
               "answers in CRLF": case.expected.replace("\r\n", "\n").replace("\n", "\r\n"),
               }[variant]
        pdoc = case.pdoc()
        shape = decide_shape(pdoc, case.offset, case.setting, case.max_tokens)
        result = suggest(raw, pdoc, case.offset, shape)
        after = case.document if result is None else \
            case.document[:case.offset] + result.text + case.document[result.replace_end:]
        assert after == case.accepted(), case.name


def test_every_language_has_many_cases() -> None:
    counts = Counter(case.language for case in CASES)
    assert REQUIRED_LANGUAGES <= set(counts)
    thin = {lang: n for lang, n in counts.items() if n < 6}
    assert not thin, f"languages with fewer than 6 golden cases: {thin}"


def test_the_ugly_cases_are_covered() -> None:
    tags = {tag for case in CASES for tag in case.tags}
    assert REQUIRED_TAGS <= tags, f"missing tags: {REQUIRED_TAGS - tags}"


def test_both_shapes_and_ranges_are_exercised() -> None:
    assert any(c.expect_multiline for c in CASES)
    assert any(c.expect_multiline is False for c in CASES)
    assert any(c.replaces for c in CASES), "some case must replace closers after the cursor"
    assert any("\r\n" in c.document for c in CASES)


# -- the checks themselves must be able to fail ---------------------------------------------
def test_duplicate_checks_catch_naive_insertions() -> None:
    """Inserting the raw model text as is breaks many cases: the checks must notice."""
    caught = 0
    for case in CASES:
        if case.expected is None or case.raw == case.expected:
            continue
        naive = case.document[:case.offset] + case.raw + case.document[case.offset:]
        if duplication_problems(case, naive):
            caught += 1
    assert caught >= len(CASES) // 4


def test_duplicated_line_pairs() -> None:
    assert duplicated_line_pairs("a\n  x = 1\n  x = 1\n") == 1
    assert duplicated_line_pairs("a\n\n\nb\n") == 0
    assert duplicated_line_pairs("  }\n}\n") == 0


def test_bracket_trouble() -> None:
    assert bracket_trouble("foo(a));\n", "javascript") == 1
    assert bracket_trouble('print("hi"");\n', "python") >= 1
    assert bracket_trouble("foo(a);\n", "javascript") == 0
    assert bracket_trouble("fn f<'a>(x: &'a str) {}\n", "rust") == 0
