"""Properties of the whole pipeline on arbitrary documents and model answers.

Whatever the model sends: no crash, the range starts at the cursor and stays on its
line, the text is never blank, and nothing is ever offered that the document already
has right after the cursor.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashls.completion.multiline import decide_shape
from flashls.completion.quality import suggest
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument

from .golden import load_golden_cases

PIECES = ["def f(x):", "    return x", "if (a) {", "}", "{", ")", "(", "]", '"', "'", "`",
          "x = 1", "\t", "    ", "\n", "\r\n", "// c", "# c", "/* c */", "é", "🎉", ":", ";",
          "foo(bar, ", "  }", "else:", "} else {", '"""', "for i in range(3):"]
LANGUAGES = [("python", ".py"), ("javascript", ".js"), ("go", ".go"), ("rust", ".rs"),
             ("c", ".c"), ("plaintext", ".txt")]
FRAGMENTS = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
FAST = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


def check(text: str, cursor: int, raw: str, language: str, ext: str, setting: str) -> None:
    offset = min(cursor, len(text))
    pdoc = ParsedDocument.open(Document(f"file:///p{ext}", text, language))
    shape = decide_shape(pdoc, offset, setting, 64)
    assert len(shape.stop) <= 16 and shape.max_tokens >= 1
    result = suggest(raw, pdoc, offset, shape)
    if result is None:
        return
    start = min(max(offset, 0), len(text))
    assert result.text.strip()
    assert start <= result.replace_end <= len(text)
    replaced = text[start:result.replace_end]
    assert "\n" not in replaced and "\r" not in replaced
    if not shape.multiline:
        assert "\n" not in result.text
    assert result.text != replaced  # never a no-op


@FAST
@given(FRAGMENTS, FRAGMENTS, FRAGMENTS, st.sampled_from(LANGUAGES),
       st.sampled_from(["auto", "always", "never"]))
def test_pipeline_invariants(before: str, after: str, raw: str, language: tuple[str, str],
                             setting: str) -> None:
    check(before + after, len(before), raw, *language, setting)


@FAST
@given(st.text(max_size=60), st.text(max_size=60), st.integers(0, 80))
def test_arbitrary_unicode_never_crashes(text: str, raw: str, cursor: int) -> None:
    check(text, cursor, raw, "python", ".py", "always")


@FAST
@given(st.sampled_from(load_golden_cases()), st.integers(0, 400), st.integers(0, 400))
def test_truncated_answers_on_golden_documents(case, cut_start: int, cut_len: int) -> None:
    """Any slice of a real answer (a stream cut short, a model that starts late) is safe."""
    raw = case.raw[cut_start % (len(case.raw) + 1):][:cut_len]
    check(case.document, case.offset, raw, case.language_id, "." + case.uri.rsplit(".", 1)[-1],
          case.setting)
