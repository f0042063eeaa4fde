"""Receiver types read from the text, and how they rank an imported class's methods."""

from pathlib import Path

from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.evidence import line_receivers
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE


def test_a_factory_call_on_a_class_types_its_result():
    assert ("output", "Table") in line_receivers("        output = Table.grid(padding=(0, 1))")
    assert ("text", "Text") in line_receivers("    text = Text.from_markup(message)")
    assert ("t", "Table") in line_receivers("t = rich.Table.grid()")
    # a module function is not a class's factory
    assert line_receivers("    path = os.path.join(a, b)") == ()


TABLE = "class Table:\n" + "".join(
    f"    def _helper_{i}(self, value: int) -> int:\n        return value\n\n"
    for i in range(40)) + "".join(
    f"    def {name}(self, value: int) -> int:\n        return value\n\n"
    for name in ("add_column", "add_row", "grid_expand"))


def _context(tmp_path: Path, body: str) -> str:
    (tmp_path / "table.py").write_text(TABLE)
    text = ("from .table import Table\n\n\ndef render(rows):\n"
            "    output = Table.grid(padding=1)\n" + body)
    path = tmp_path / "render.py"
    path.write_text(text)
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    ctx = assemble_context(pdoc, len(text), budget_tokens=600, workspace=ws)
    return "".join(p.text for p in ctx.parts)


def test_public_methods_of_a_factory_made_receiver_come_before_private_ones(tmp_path):
    sent = _context(tmp_path, "    return output\n")
    # `output` is a Table (made by its factory): its public methods are what
    # `output.` may call next, not the forty `_helper_*` before them in the file
    assert "    def grid_expand(self, value: int) -> int:" in sent
    assert "    def add_column(self, value: int) -> int:" in sent
