"""Where the window's suffix ends, and that typing at the cursor does not move it.

The suffix follows the prompt in FIM, so all of it misses DeepSeek's prefix cache on
every request: it ends with the definition around the cursor when that fits
(`window.definition_end`), and otherwise on a grid counted from the end of the file,
so lines typed at the cursor leave its text (and the window's size) as they were."""

from __future__ import annotations

from pathlib import Path

from flashls.context import rank_memo
from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.context.window import definition_end

PY = (
    "class Box:\n"
    "    def first(self, a):\n"
    "        if a:\n"
    "            return 1\n"
    "\n"
    "        return 2\n"
    "\n"
    "    def second(self):\n"
    "        return 3\n"
)

GO = (
    "package p\n\n"
    "func First(a int) int {\n"
    "\tif a > 0 {\n"
    "\t\treturn 1\n"
    "\t}\n"
    "\treturn 2\n"
    "}\n\n"
    "func Second() int {\n"
    "\treturn 3\n"
    "}\n"
)


def _open(tmp_path: Path, text: str, name: str) -> ParsedDocument:
    path = tmp_path / name
    path.write_text(text)
    return ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))


def test_definition_end_reads_the_indentation():
    py = PY.split("\n")
    assert definition_end(py, 2, 4, len(py) - 1) == 5, "Python: the last body line"
    assert definition_end(py, 2, 4, 4) is None, "the end lies past the lines looked at"
    go = GO.split("\n")
    assert definition_end(go, 3, 0, len(go) - 1) == 7, "braces: the closing line"
    assert definition_end(go, 9, 0, len(go) - 1) == 11


def test_the_suffix_ends_with_the_function_around_the_cursor(tmp_path):
    tail = "".join(f"\n\ndef other_{i}(a, b):\n    return a * b + {i}\n" for i in range(40))
    text = "def work(value):\n    value += 1\n    value += 2\n    return value\n" + tail
    pdoc = _open(tmp_path, text, "mod.py")
    ctx = assemble_context(pdoc, text.index("    value += 2"), budget_tokens=2048)
    assert ctx.suffix == "    value += 2\n    return value", "not the next definitions"
    go = _open(tmp_path, GO + "".join(f"\nfunc F{i}() int {{\n\treturn {i}\n}}\n"
                                      for i in range(40)), "p.go")
    ctx = assemble_context(go, GO.index("\treturn 2"), budget_tokens=2048)
    assert ctx.suffix == "\treturn 2\n}"


def test_typing_lines_at_the_cursor_leaves_the_suffix_as_it_was(tmp_path):
    """A function longer than the suffix budget: the suffix ends on the grid. Counted
    from the top of the file, each 8 lines typed moved its end by 8 lines (and the
    window's size, and with it the stable tier's budget at the top of a file)."""
    body = "".join(f"    total = total + compute_{i}(total, {i})\n" for i in range(120))
    text = "def work(total):\n" + body + "    return total\n"
    at = text.index("    total = total + compute_3(")
    typed = "".join(f"    extra_{i} = total * {i}\n" for i in range(20))
    suffixes = set()
    for k in range(0, len(typed) + 1, 7):
        rank_memo.forget()
        doc = text[:at] + typed[:k] + text[at:]
        pdoc = _open(tmp_path, doc, "mod.py")
        suffixes.add(assemble_context(pdoc, at + k, budget_tokens=2048).suffix)
    assert len(suffixes) == 1
    rank_memo.forget()
