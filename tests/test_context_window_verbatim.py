"""The cursor window is the document's own text: the prefix ends exactly at the cursor,
the suffix starts exactly there, and both are byte-identical to the document (runs of
blank lines, CRLF, tabs, multi-byte text) apart from redacted secrets."""

from __future__ import annotations

from pathlib import Path

import pytest

from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument

PY = (
    "import os\n\n\n"
    "# caf\u00e9 \u4e2d\u6587 \U0001f600\n"
    "def first(a):\n"
    "\treturn a  # tab-indented\n\n\n\n\n"
    "class Thing:\n"
    "    \"\"\"Docstring with \u00e9t\u00e9.\"\"\"\n\n\n"
    "    def method(self):\n"
    "        x = 1\n\n\n\n"
    "        y = 2\n"
    "        return x + y\n\n\n"
    "def last():\n"
    "    return '\u00fcber'\n"
)


def _open(tmp_path: Path, text: str, name: str = "mod.py") -> ParsedDocument:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))


def _line_offset(text: str, line: int) -> int:
    offset = 0
    for _ in range(line):
        offset = text.index("\n", offset) + 1
    return offset


def _check_verbatim(pdoc: ParsedDocument, offset: int, budget: int = 2048) -> None:
    text = pdoc.doc.text
    ctx = assemble_context(pdoc, offset, budget_tokens=budget)
    start = _line_offset(text, ctx.window_start_line)
    contiguous = text[start:offset]
    assert ctx.prefix.endswith(contiguous), "prefix is the document's text up to the cursor"
    assert len(contiguous) > 0 or offset == start
    assert text[offset:].startswith(ctx.suffix), "suffix is the document's text from it"
    assert ctx.suffix, "the window shows text after the cursor"


@pytest.mark.parametrize("needle", ["        y = 2", "def last", "\treturn a", "import os"])
def test_runs_of_blank_lines_tabs_and_multibyte_are_kept(tmp_path, needle):
    pdoc = _open(tmp_path, PY)
    offset = PY.index(needle) + 4
    _check_verbatim(pdoc, offset)
    ctx = assemble_context(pdoc, offset, budget_tokens=2048)
    window = ctx.prefix + ctx.suffix
    if ctx.window_start_line == 0:
        assert window == PY  # the whole small file, byte for byte
    assert "\n\n\n\n" in window or ctx.window_start_line > 6


def test_crlf_line_endings_are_kept(tmp_path):
    text = PY.replace("\n", "\r\n")
    pdoc = _open(tmp_path, text)
    offset = text.index("        y = 2") + 8
    _check_verbatim(pdoc, offset)
    ctx = assemble_context(pdoc, offset, budget_tokens=2048)
    assert "\r\n\r\n\r\n" in ctx.prefix + ctx.suffix
    assert "\n" not in (ctx.prefix + ctx.suffix).replace("\r\n", "")


def test_mixed_line_endings_are_kept(tmp_path):
    text = "a = 1\r\nb = 2\n\n\nc = 3\rd = 4\r\n"
    pdoc = _open(tmp_path, text)
    offset = text.index("c = 3") + 2
    ctx = assemble_context(pdoc, offset, budget_tokens=2048)
    assert ctx.prefix + ctx.suffix == text
    assert ctx.prefix == text[:offset]


def test_a_long_file_keeps_its_window_verbatim_with_scope_headers(tmp_path):
    body = "".join(f"        v{i} = {i}  # \u00e9\n\n\n" for i in range(400))
    text = "class Big:\n    def run(self):\n" + body + "        return 0\n"
    pdoc = _open(tmp_path, text)
    offset = text.index("v300 = ")
    ctx = assemble_context(pdoc, offset, budget_tokens=1024)
    assert ctx.window_start_line > 2
    assert ctx.prefix.startswith("class Big:\n    def run(self):\n")  # headers kept
    _check_verbatim(pdoc, offset, budget=1024)


def test_a_secret_in_the_window_is_still_redacted(tmp_path):
    text = "import os\n\n\nAPI_KEY = 'sk-abcdefghijklmnopqrstuvwxyz0123456789'\n\n\nx = 1\n"
    pdoc = _open(tmp_path, text)
    offset = text.index("x = 1")
    ctx = assemble_context(pdoc, offset, budget_tokens=2048)
    assert "sk-abcdefghijklmnopqrstuvwxyz0123456789" not in ctx.prefix
    assert ctx.prefix.endswith("\n\n\nx = "[:-4])  # the blank lines after it stay
    assert text[offset:].startswith(ctx.suffix)
