"""Pure parts of code actions: selection fitting, answer extraction, validation, prompts."""

from __future__ import annotations

import pytest

from flashls.actions.comment import comment_prefix, to_comment
from flashls.actions.context import MARKER, gather
from flashls.actions.extract import extract_code, extract_markdown, fenced_blocks
from flashls.actions.intents import (DOCSTRING, INTENTS, KINDS, REWRITE, instruction_for,
                                     kind_matches)
from flashls.actions.prompt import DiagnosticNote, fence, retry_messages, rewrite_messages
from flashls.actions.selection import common_indent, fit, prepare, same_code
from flashls.actions.validate import check_rewrite
from flashls.context.document import Document
from flashls.context.languages import language_for
from flashls.context.syntax import ParsedDocument
from flashls.lsp.actions_handlers import summary

PY = language_for("python")

CLASS = (
    "import os\n"
    "\n"
    "class Store:\n"
    "    def load(self, path):\n"
    "        data = None\n"
    "        if os.path.exists(path):\n"
    "            data = open(path).read()\n"
    "        return data\n"
    "\n"
    "    def size(self):\n"
    "        return 0\n")


def offsets(text: str, start: str, end: str) -> tuple[int, int]:
    s = text.index(start)
    return s, text.index(end, s) + len(end)


# -- selection: what the model sees and how the answer goes back ------------------------
def test_whole_lines_are_dedented_and_answer_reindented():
    s = CLASS.index("        data = None")
    e = CLASS.index("        return data") + len("        return data\n")
    sel = prepare(CLASS, s, e)
    assert sel.body == ("data = None\nif os.path.exists(path):\n    data = open(path).read()\n"
                        "return data")
    out = fit("if not os.path.exists(path):\n    return None\nreturn open(path).read()", sel)
    assert out == ("        if not os.path.exists(path):\n            return None\n"
                   "        return open(path).read()\n")


def test_selection_starting_after_indentation_keeps_the_first_line_in_place():
    s = CLASS.index("data = None")
    e = CLASS.index("return data") + len("return data")
    sel = prepare(CLASS, s, e)
    assert sel.body.startswith("data = None\nif ")
    out = fit("return open(path).read() if os.path.exists(path) else None", sel)
    new = CLASS[:s] + out + CLASS[e:]
    assert "        return open(path).read() if os.path.exists(path) else None\n\n" in new
    assert not out.startswith(" ")


def test_answer_with_extra_uniform_indent_is_normalized():
    s = CLASS.index("        data = None")
    e = CLASS.index("        return data") + len("        return data")
    sel = prepare(CLASS, s, e)
    out = fit("    x = 1\n    return x", sel)
    assert out == "        x = 1\n        return x"


def test_inline_selection_continues_its_line():
    text = "total = compute(a,\n                b)\n"
    s, e = offsets(text, "compute", "b)")
    sel = prepare(text, s, e)
    assert sel.inline and sel.body.startswith("compute(a,")
    assert fit("  compute(a, b)", sel) == "compute(a, b)"


def test_crlf_documents_get_crlf_and_trailing_break_is_kept():
    text = "def f():\r\n    a = 1\r\n    return a\r\n"
    s = text.index("    a = 1")
    e = len(text)
    sel = prepare(text, s, e)
    assert sel.body == "a = 1\nreturn a"
    assert fit("return 1", sel) == "    return 1\r\n"


def test_leading_blank_lines_are_kept():
    text = "x = 1\n\n\ny = 2\n"
    s = text.index("\n") + 1
    sel = prepare(text, s, len(text))
    assert sel.head == "\n\n" and sel.body == "y = 2"
    assert fit("y = 3", sel) == "\n\ny = 3\n"


def test_common_indent_and_same_code():
    assert common_indent(["    a", "", "      b", "\tc"]) == ""
    assert common_indent(["    a", "", "      b"]) == "    "
    assert same_code("a = 1  \r\nb = 2\n", "a = 1\nb = 2")
    assert not same_code("a = 1", "a = 2")


# -- extraction ------------------------------------------------------------------------
def test_fenced_answer_yields_the_code_only():
    answer = ("Here is the simplified version:\n\n```python\ndef f(x):\n    return x\n```\n\n"
              "This removes the temporary variable.")
    assert extract_code(answer) == "def f(x):\n    return x"


def test_largest_fenced_block_wins_and_unterminated_fence_runs_to_end():
    answer = "Use `x`:\n```\nx\n```\nthen:\n```js\nconst a = 1;\nconst b = 2;\n```"
    assert extract_code(answer) == "const a = 1;\nconst b = 2;"
    assert extract_code("```python\nreturn 1\n") == "return 1"
    assert fenced_blocks("````md\n```inner```\n````") == ["```inner```"]


def test_unfenced_answer_loses_leading_and_trailing_prose():
    answer = ("Sure! Here's the rewritten code:\n\nresult = [x * 2 for x in items]\n"
              "print(result)\n\nThis uses a list comprehension instead of a loop.")
    assert extract_code(answer) == "result = [x * 2 for x in items]\nprint(result)"


def test_plain_code_is_left_alone():
    code = "def f():\n    return 1\n\n# Done with this helper.\nx = f()"
    assert extract_code(code) == code
    js = "this.items = [];\n\nthis.count = 0;"
    assert extract_code(js) == js


def test_markdown_answer_unwrapped_from_markdown_fence():
    assert extract_markdown("```markdown\n# Title\nText\n```") == "# Title\nText"
    assert extract_markdown("  Plain **text**.\n") == "Plain **text**."


# -- validation ------------------------------------------------------------------------
def test_valid_rewrite_passes_with_syntax_checked():
    s, e = offsets(CLASS, "        data = None", "return data\n")
    new = "        return open(path).read() if os.path.exists(path) else None\n"
    verdict = check_rewrite(CLASS, s, e, new, PY)
    assert verdict.ok and verdict.checked_syntax


@pytest.mark.parametrize("replacement,reason", [
    ("   \n", "no code"),
    ("        data = None\n        if os.path.exists(path):\n"
     "            data = open(path).read()\n        return data  \n", "unchanged"),
    ("        return open(path.read(\n", "does not parse"),
])
def test_invalid_rewrites_are_rejected_with_a_reason(replacement, reason):
    s, e = offsets(CLASS, "        data = None", "return data\n")
    verdict = check_rewrite(CLASS, s, e, replacement, PY)
    assert not verdict.ok and reason in verdict.reason


def test_existing_errors_elsewhere_do_not_block_a_rewrite():
    broken = CLASS + "def oops(:\n"
    s, e = offsets(broken, "        data = None", "return data\n")
    assert check_rewrite(broken, s, e, "        return None\n", PY).ok
    assert not check_rewrite(broken, s, e, "        return (None\n", PY).ok


def test_parse_error_location_is_relative_to_the_selection():
    s, e = offsets(CLASS, "        data = None", "return data\n")
    bad = "        data = None\n        return data +\n"
    verdict = check_rewrite(CLASS, s, e, bad, PY)
    assert "line 2" in verdict.reason


def test_unknown_language_skips_the_parse_check():
    verdict = check_rewrite("a b c", 0, 5, "a (", None)
    assert verdict.ok and not verdict.checked_syntax


# -- intents ---------------------------------------------------------------------------
def test_intents_and_kind_filter():
    assert len(set(KINDS)) == len(KINDS) == len(INTENTS)
    assert kind_matches("refactor.rewrite.flashls.simplify", ["refactor"])
    assert kind_matches("quickfix.flashls.fix", ["quickfix"])
    assert not kind_matches("quickfix.flashls.fix", ["refactor"])
    assert not kind_matches("refactor.rewrite.flashls", ["refactor.rewrite.other"])
    assert kind_matches("refactor.flashls.explain", None)
    assert instruction_for(REWRITE, custom="  use a dict ") == "use a dict"
    assert "docstring" in instruction_for(DOCSTRING, body_docstrings=True)
    assert "doc comment" in instruction_for(DOCSTRING, body_docstrings=False)


# -- context and prompt ----------------------------------------------------------------
def parsed(text: str, name: str = "m.py", lang: str = "python") -> ParsedDocument:
    return ParsedDocument.open(Document(f"file:///w/{name}", text, lang, 1), name)


def test_context_has_outline_and_enclosing_scope_with_marker():
    pdoc = parsed(CLASS + "API_KEY = 'sk-abcdefghijklmnopqrstuvwxyz123456'\n")
    s, e = offsets(pdoc.doc.text, "        data = None", "return data\n")
    ctx = gather(pdoc, s, e, "m.py")
    assert "class Store:" in ctx.outline and "def size(self):" in ctx.outline
    assert "data = open(path)" not in ctx.outline  # bodies elided
    assert "sk-abcdefghij" not in ctx.outline  # redacted
    assert ctx.scope_label == "the enclosing function `load`"
    assert ctx.scope.startswith("    def load(self, path):\n" + MARKER)
    assert "def size" not in ctx.scope


def test_context_without_grammar_uses_a_window():
    text = "".join(f"line {i}\n" for i in range(200))
    pdoc = parsed(text, "notes.txt", "plaintext")
    s, e = offsets(text, "line 100", "line 101\n")
    ctx = gather(pdoc, s, e, "notes.txt")
    assert ctx.outline == "" and MARKER in ctx.scope
    assert "line 60\n" in ctx.scope and "line 59\n" not in ctx.scope
    assert "line 141" in ctx.scope and "line 142" not in ctx.scope


def test_prompt_layout_puts_instruction_last_and_retry_extends_it():
    pdoc = parsed(CLASS)
    s, e = offsets(CLASS, "        data = None", "return data\n")
    ctx = gather(pdoc, s, e, "m.py")
    notes = (DiagnosticNote(2, "undefined name 'pth'", "error", "pyflakes"),)
    msgs = rewrite_messages(ctx, "data = None", "Simplify it.", notes)
    user = msgs[1].content
    assert user.index("Outline") < user.index("Where the selection") < \
        user.index("The selection") < user.index("line 2: error: undefined name 'pth' "
                                                 "[pyflakes]") < user.index("Instruction:")
    assert user.rstrip().endswith("in one fenced block.")
    again = msgs + retry_messages("garbage", "it does not parse")
    assert again[:2] == msgs and again[2].role == "assistant" and "does not parse" in \
        again[3].content
    assert fence("a ``` b").startswith("````\n")


# -- comments and summaries -------------------------------------------------------------
def test_explanation_as_comment_block():
    md = "Loads a file.\n\n- returns `None` when missing\n\n```python\nx = 1\n```"
    out = to_comment(md, "#", "    ")
    assert out.splitlines() == ["    # Loads a file.", "    #", "    # - returns `None` when "
                                "missing", "    #", "    # ```python", "    # x = 1",
                                "    # ```"]
    long = to_comment("word " * 40, "//", width=60)
    assert all(len(line) <= 60 for line in long.splitlines()) and len(long.splitlines()) > 2
    assert comment_prefix(None, "lua") == "--" and comment_prefix(None, "brainfuck") is None
    assert comment_prefix("//", "go") == "//"


def test_summary_takes_the_first_prose_paragraph():
    assert summary("# Title\n\nDoes a thing.\nReally.\n\nMore.") == "Does a thing. Really."
    assert summary("x" * 500, limit=10) == "x" * 9 + "…"


def test_context_brings_signatures_of_imported_names_the_selection_uses(tmp_path):
    from flashls.context.workspace import Workspace
    (tmp_path / "util.py").write_text(
        "def helper(x: int) -> str:\n    return str(x)\n\n\n"
        "def unrelated(y):\n    return y\n")
    (tmp_path / "secret.py").write_text("def hidden():\n    pass\n")
    text = ("from util import helper, unrelated\nfrom secret import hidden\n\n\n"
            "def main():\n    value = helper(3)\n    hidden()\n    return value\n")
    path = tmp_path / "main.py"
    path.write_text(text)
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "python", 1), str(path))
    s, e = offsets(text, "    value", "return value\n")
    ws = Workspace([str(tmp_path)], ["secret.py"])
    ctx = gather(pdoc, s, e, "main.py", workspace=ws)
    assert [source for source, _ in ctx.signatures] == ["util.py"]  # secret.py: excluded
    assert "def helper(x: int) -> str:" in ctx.signatures[0][1]
    assert "unrelated" not in ctx.signatures[0][1]  # not used by the selection
    msgs = rewrite_messages(ctx, "value = helper(3)", "Inline it.")
    assert msgs[1].content.startswith("Signatures from util.py")
    assert gather(pdoc, s, e, "main.py").signatures == ()


@pytest.mark.parametrize("replacement", [
    "        return None\n", "        return (None\n",
    "        x = '中文😀'\n        return x\n", "        if x:\n", "",
])
def test_incremental_check_agrees_with_full_parses(replacement):
    text = CLASS.replace("class Store:", "class Störe:  # ünï 😀")
    s, e = offsets(text, "        data = None", "return data\n")
    tree = PY.parser().parse(text.encode())
    incremental = check_rewrite(text, s, e, replacement, PY, tree)
    assert incremental == check_rewrite(text, s, e, replacement, PY)
    assert tree.root_node.end_byte == len(text.encode())  # the caller's tree is not edited


def test_window_shrinks_to_the_scope_budget_around_the_selection():
    from flashls.context.tokens import estimate_tokens
    text = "".join(f"value_{i} = compute(alpha_{i}, beta_{i}, gamma_{i}, delta_{i})\n"
                   for i in range(200))
    pdoc = parsed(text, "data.txt", "plaintext")
    s, e = offsets(text, "value_100 =", "delta_100)\n")
    ctx = gather(pdoc, s, e, "data.txt", scope_tokens=300)
    assert estimate_tokens(ctx.scope) <= 300 + estimate_tokens("<<<SELECTION>>>")
    assert "value_99 =" in ctx.scope and "value_101 =" in ctx.scope
    assert "value_60 =" not in ctx.scope and "value_140 =" not in ctx.scope
