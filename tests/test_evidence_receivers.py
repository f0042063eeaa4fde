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


def test_a_member_named_like_one_taken_from_another_file_waits(tmp_path):
    from flashls.context.analysis import analyze
    from flashls.context.languages import language_for
    from flashls.context.neighbors import NeighborFile
    from flashls.context.ranking import Candidate, _deferring_repeats

    def neighbor(name: str, text: str, rank: int) -> NeighborFile:
        return NeighborFile(name, name, analyze(language_for("", name), text, ("t", name)), rank)

    a = neighbor("a.py", "class Jar:\n    def copy(self):\n        pass\n", 0)
    b = neighbor("b.py", "class Request:\n    def copy(self):\n        pass\n"
                 "    def prepare(self):\n        pass\n", 1)
    copy_b = next(i for i, it in enumerate(b.analysis.items) if it.name == "copy")
    prepare_b = next(i for i, it in enumerate(b.analysis.items) if it.name == "prepare")
    order = [Candidate(80.0, 1, copy_b), Candidate(50.0, 1, prepare_b)]
    taken = {"copy": 0}  # Jar.copy of a.py is in already
    assert [c.item for c in _deferring_repeats(order, [a, b], taken)] == [prepare_b, copy_b]
    # a receiver declared as a Request calls `.copy()`: that one does not wait
    typed = [Candidate(80.0, 1, copy_b, typed=True), Candidate(50.0, 1, prepare_b)]
    assert [c.item for c in _deferring_repeats(typed, [a, b], taken)] == [copy_b, prepare_b]
    # the same name twice in one file (a base class and its override) does not wait
    assert [c.item for c in _deferring_repeats(order, [a, b], {"copy": 1})] == \
        [copy_b, prepare_b]
