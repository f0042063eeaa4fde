"""Context assembly end to end on the fixture workspaces: tiers, order, budget,
stability for the prefix cache, boundary and redaction."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashls.context.assemble import (AssembledContext, RecentEdits, Workspace,
                                      assemble_context, render_breakdown)
from flashls.context import ranking
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.context.tokens import estimate_tokens
from flashls.context.window import GRID
from flashls.settings import DEFAULT_EXCLUDE

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces"
TIER_RANK = {"neighbors": 0, "outline": 1, "recent": 2}


def open_doc(path: Path, text: str | None = None, version: int = 1) -> ParsedDocument:
    text = path.read_text() if text is None else text
    return ParsedDocument.open(Document(path.as_uri(), text, "", version), str(path))


def offset_of(pdoc: ParsedDocument, needle: str, delta: int = 0) -> int:
    at = pdoc.doc.text.index(needle)
    return at + delta


def workspace(name: str, exclude=DEFAULT_EXCLUDE) -> Workspace:
    return Workspace([str(FIXTURES / name)], exclude)


def check_invariants(ctx: AssembledContext) -> None:
    assert ctx.tokens <= ctx.budget
    assert ctx.tokens == sum(p.tokens for p in ctx.parts) + estimate_tokens(ctx.prefix) + \
        estimate_tokens(ctx.suffix)
    ranks = [TIER_RANK[p.tier] for p in ctx.parts]
    # a document with a history lays out what its last prompt had first, new parts
    # after (`part_layout`): a neighbor part may follow the outline; recent code is last
    assert [r == TIER_RANK["recent"] for r in ranks] == \
        sorted(r == TIER_RANK["recent"] for r in ranks), "recent code comes last"
    for p in ctx.parts:
        assert p.text.endswith("\n") and p.tokens >= estimate_tokens(p.text)


def test_tiers_content_and_order():
    root = FIXTURES / "py_inventory"
    pdoc = open_doc(root / "inventory" / "services.py")
    offset = offset_of(pdoc, "            raise OutOfStockError(sku, quantity, available)")
    ranking.forget()
    ctx = assemble_context(pdoc, offset, budget_tokens=2048, workspace=workspace("py_inventory"))
    check_invariants(ctx)
    ranks = [TIER_RANK[p.tier] for p in ctx.parts]
    assert ranks == sorted(ranks), "a fresh document: neighbors, outline, recent"
    by_source = {(p.tier, p.source): p.text for p in ctx.parts}
    models = by_source[("neighbors", "inventory/models.py")]
    # the used symbol's signature is there, its body is not
    assert "class OutOfStockError(Exception):" in models
    assert "    def __init__(self, sku: str, wanted: int, available: int):" in models
    assert "super().__init__" not in models
    # symbols the file uses (pricing.round_money, pricing.PriceBook) come first
    pricing = by_source[("neighbors", "inventory/pricing.py")]
    assert "def round_money(amount: Decimal) -> Decimal:" in pricing
    assert "class PriceBook:" in pricing
    # a definition the window shows whole is not repeated by the outline
    outline_text = by_source.get(("outline", "inventory/services.py"), "")
    add_item = "    def add_item(self, order: Order, sku: str, quantity: int) -> None:"
    assert add_item in ctx.prefix and add_item not in outline_text
    # one budget on merit: at 1200 tokens the used neighbor signatures come first and the
    # nearest same-file signatures take what is left (a fresh selection: with the one
    # above remembered, a smaller budget keeps its entries, dropping from the end)
    ranking.forget()
    small = assemble_context(pdoc, offset, budget_tokens=1200, workspace=workspace("py_inventory"))
    check_invariants(small)
    outline = next(p.text for p in small.parts if p.tier == "outline")
    imports = "from .models import Order, OutOfStockError, Product"
    assert (imports in outline) != (imports in small.prefix)  # shown once
    assert "    def quote(self, customer: str, product: Product, quantity: int) -> Decimal:" \
        in outline
    assert "class OutOfStockError(Exception):" in "".join(
        p.text for p in small.parts if p.tier == "neighbors")
    # window: prefix ends at the cursor, suffix starts there
    text = pdoc.doc.text
    assert text[:offset].endswith(ctx.prefix.split("\n", 1)[1][-200:])
    assert text[offset:].startswith(ctx.suffix)
    assert ctx.prefix.endswith("        if available < quantity:\n")
    report = render_breakdown(ctx)
    assert "neighbors" in report and "inventory/models.py" in report and "\u2038" in report


def test_outline_excludes_the_window_and_elides_bodies():
    root = FIXTURES / "py_inventory"
    pdoc = open_doc(root / "inventory" / "models.py")
    offset = offset_of(pdoc, "        return sum(line.quantity")
    ctx = assemble_context(pdoc, offset, budget_tokens=1000)
    outline = [p for p in ctx.parts if p.tier == "outline"]
    assert outline, "a file longer than the window gets an outline"
    text = outline[0].text
    window_text = ctx.prefix + ctx.suffix
    assert "class Category(Enum):" in text
    assert "class Category(Enum):" not in window_text
    assert 'FOOD = "food"' in text  # class-level fields are signatures
    assert "    def label(self) -> str:" in text
    assert 'return f"{self.name} ({self.sku})"' not in text  # bodies are elided
    # the completion context sends signatures alone: no elision lines, no docstrings
    assert "# ..." not in text and '"""' not in text


def long_python_file(methods: int = 60) -> str:
    out = ["import os", "", "", "class Big:", '    """A big class."""', ""]
    for i in range(methods):
        out += [f"    def method_{i}(self, value: int) -> int:",
                f"        total = value + {i}"]
        out += [f"        total += value * {j}" for j in range(8)]
        out += ["        return total", ""]
    return "\n".join(out) + "\n"


def test_scope_headers_are_kept_when_bodies_are_cut(tmp_path):
    path = tmp_path / "big.py"
    text = long_python_file()
    path.write_text(text)
    pdoc = open_doc(path)
    offset = text.index("        total += value * 5", text.index("def method_50"))
    ctx = assemble_context(pdoc, offset, budget_tokens=400)
    lines = ctx.prefix.splitlines()
    assert lines[0] == "class Big:"
    assert lines[1].strip() == "# ..."
    assert "    def method_50(self, value: int) -> int:" in lines
    assert ctx.window_start_line > 4


def test_prefix_is_favoured_and_window_start_moves_in_steps(tmp_path):
    path = tmp_path / "big.py"
    text = long_python_file()
    path.write_text(text)
    pdoc = open_doc(path)
    line = text[:text.index("def method_30")].count("\n") + 3
    pdoc.apply_change((line, 0), (line, 0), "        ")
    starts, outline_texts, neighbor_free = [], set(), True
    col = 8
    for ch in "result = compute_the_answer(value, other_value) + 42 if ok else fallback(x)":
        pdoc.apply_change((line, col), (line, col), ch)
        pdoc.doc.version += 1
        col += 1
        offset = pdoc.doc.offset_at(line, col)
        ctx = assemble_context(pdoc, offset, budget_tokens=500)
        check_invariants(ctx)
        starts.append(ctx.window_start_line)
        outline_texts.add(tuple(p.text for p in ctx.parts if p.tier == "outline"))
        assert estimate_tokens(ctx.prefix) > 2 * estimate_tokens(ctx.suffix)
    changes = sum(1 for a, b in zip(starts, starts[1:]) if a != b)
    assert changes <= 3, starts
    top_level = {0, 3}  # `import os` and `class Big:`
    for s in set(starts):
        assert s % GRID == 0 or s in top_level, s
    assert len(outline_texts) <= changes + 1  # the outline only changes with the window
    assert pdoc.syntax.full_parses == 1 and pdoc.syntax.incremental_parses > 10


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([
    ("py_inventory", "inventory/services.py"), ("ts_tasks", "src/services/scheduler.ts"),
    ("go_shortener", "internal/server/handlers.go"), ("rust_ledger", "src/ledger/mod.rs"),
    ("java_library", "src/main/java/com/acme/library/service/LoanService.java"),
    ("c_geometry", "src/main.c"), ("c_geometry", "cpp/shapes.cpp"),
    ("ts_tasks", "src/ui/TaskList.tsx")]),
    st.floats(0, 1), st.integers(0, 6000))
def test_budget_is_never_exceeded(case, where, budget):
    name, rel = case
    pdoc = open_doc(FIXTURES / name / rel)
    offset = int(where * len(pdoc.doc.text))
    recent = RecentEdits()
    recent.note_edit(pdoc.doc.uri, 3)
    ctx = assemble_context(pdoc, offset, budget_tokens=budget, workspace=workspace(name),
                           recent=recent)
    check_invariants(ctx)
    assert ctx.budget == budget


def test_every_part_line_comes_from_its_source_or_is_an_elision():
    name = "java_library"
    rel = "src/main/java/com/acme/library/service/LoanService.java"
    pdoc = open_doc(FIXTURES / name / rel)
    ctx = assemble_context(pdoc, offset_of(pdoc, "        catalog.checkOut(book);"),
                           budget_tokens=3000, workspace=workspace(name))
    neighbors = [p for p in ctx.parts if p.tier == "neighbors"]
    assert {p.source.rsplit("/", 1)[-1] for p in neighbors} >= {"Book.java", "Dates.java",
                                                                 "CatalogService.java"}
    for part in ctx.parts:
        source_lines = set((FIXTURES / name / part.source).read_text().splitlines())
        for line in part.text.splitlines():
            assert line in source_lines or line.strip() == "// ...", (part.source, line)


def test_open_buffers_win_over_disk():
    root = FIXTURES / "py_inventory"
    pdoc = open_doc(root / "inventory" / "services.py")
    models_path = root / "inventory" / "models.py"
    edited = models_path.read_text() + "\n\ndef restock(sku: str, units: int) -> None:\n    pass\n"
    models = open_doc(models_path, edited, version=7)
    text = pdoc.doc.text.replace("order.add_line(product, quantity)\n\n",
                                 "order.add_line(product, quantity)\n        restock(sku, 1)\n\n", 1)
    # imported like any real use (a plain name used once is weak evidence)
    text = text.replace("from .models import Order,", "from .models import restock\nfrom .models import Order,", 1)
    pdoc = open_doc(root / "inventory" / "services.py", text)
    ctx = assemble_context(pdoc, offset_of(pdoc, "        restock(sku, 1)"), budget_tokens=2048,
                           workspace=workspace("py_inventory"),
                           open_docs={models.doc.uri: models})
    models_part = next(p for p in ctx.parts if p.source == "inventory/models.py")
    assert "def restock(sku: str, units: int) -> None:" in models_part.text


def test_used_symbols_come_first_at_a_small_budget():
    name = "go_shortener"
    pdoc = open_doc(FIXTURES / name / "internal/server/handlers.go")
    offset = offset_of(pdoc, "\tcode := codec.Encode(h.Store.NextID())")
    # (900: parts are counted as the prompt sends them, a comment prefix per line)
    ctx = assemble_context(pdoc, offset, budget_tokens=900, workspace=workspace(name))
    check_invariants(ctx)
    sent = "".join(p.text for p in ctx.parts)
    assert "func Encode(n uint64) string {" in sent
    assert "func (s *MemoryStore) NextID() uint64 {" in sent


def test_excluded_and_ignored_neighbors_are_never_read(tmp_path, monkeypatch):
    root = tmp_path / "ws"
    (root / "gen").mkdir(parents=True)
    (root / "app.py").write_text("from gen import schema\nimport settings_local\nimport config\n"
                                 "\nschema.build(config.URL)\n")
    (root / "gen" / "__init__.py").write_text("")
    (root / "gen" / "schema.py").write_text("def build(url):\n    return url\n")
    (root / "settings_local.py").write_text("PASSWORD_HINT = 'never sent'\n")
    (root / "config.py").write_text("URL = 'https://db.example.com'\n")
    (root / ".gitignore").write_text("gen/\n")
    outside = tmp_path / "outside.py"
    outside.write_text("def outside(): pass\n")
    (root / "outside_link.py").symlink_to(outside)
    ws = Workspace([str(root)], DEFAULT_EXCLUDE + ["**/settings_local.py"])
    read_paths = []
    original = Workspace._read_text

    def spy(self, real, size):
        read_paths.append(real)
        return original(self, real, size)

    monkeypatch.setattr(Workspace, "_read_text", spy)
    pdoc = open_doc(root / "app.py")
    ctx = assemble_context(pdoc, len(pdoc.doc.text), budget_tokens=2048, workspace=ws)
    assert {os.path.basename(p) for p in read_paths} <= {"config.py"}
    assert [p.source for p in ctx.parts if p.tier == "neighbors"] == ["config.py"]


def test_secrets_are_redacted_in_every_part(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "db.py").write_text(
        'def connect(url="postgres://app:S3cretPass@db:5432/x", api_key="sk-livekey0123456789abcd"):\n'
        "    pass\n")
    (root / "main.py").write_text(
        "from db import connect\n\nTOKEN = 'ghp_0123456789abcdefghijABCDEFGHIJ012345'\n\n"
        "conn = connect()\n")
    other = root / "notes.py"
    other.write_text("# connect conn TOKEN\nAWS = 'AKIAIOSFODNN7EXAMPLE'  # connect conn\n")
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    pdoc = open_doc(root / "main.py")
    notes = open_doc(other)
    recent = RecentEdits()
    recent.note_edit(notes.doc.uri, 1)
    ctx = assemble_context(pdoc, len(pdoc.doc.text), budget_tokens=2048, workspace=ws,
                           open_docs={notes.doc.uri: notes}, recent=recent)
    sent = ctx.prefix + ctx.suffix + "".join(p.text for p in ctx.parts)
    assert {p.tier for p in ctx.parts} >= {"neighbors", "recent"}
    for secret in ["S3cretPass", "sk-livekey0123456789abcd", "ghp_0123456789abcdefghij",
                   "AKIAIOSFODNN7EXAMPLE"]:
        assert secret not in sent


def test_recent_tier_ranks_similar_code_and_skips_the_window(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    main = root / "main.py"
    main.write_text("def total(invoice, ledger):\n    amount = ledger.balance(invoice)\n"
                    "    return amount\n" + "\n".join(f"x{i} = {i}" for i in range(200)) + "\n")
    similar = root / "similar.py"
    similar.write_text("def refund(invoice, ledger):\n    amount = ledger.balance(invoice)\n"
                       "    ledger.credit(invoice, amount)\n")
    unrelated = root / "unrelated.py"
    unrelated.write_text("import math\n\ndef area(r):\n    return math.pi * r * r\n")
    outside = tmp_path / "outside.py"
    outside.write_text(similar.read_text())
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    docs = {p.as_uri(): open_doc(p) for p in (similar, unrelated, outside)}
    pdoc = open_doc(main)
    recent = RecentEdits()
    recent.note_edit(pdoc.doc.uri, 150)  # far from the cursor: a recent-edit snippet
    recent.note_edit(pdoc.doc.uri, 1)  # inside the window: skipped
    ctx = assemble_context(pdoc, pdoc.doc.text.index("    return amount"), budget_tokens=800,
                           workspace=ws, open_docs=docs, recent=recent)
    recent_parts = [p for p in ctx.parts if p.tier == "recent"]
    sources = [p.source for p in recent_parts]
    assert "similar.py" in sources
    assert "unrelated.py" not in sources and "outside.py" not in sources
    own = [p for p in recent_parts if p.source == "main.py"]
    assert own and "x150 = 150" in own[0].text
    assert all("def total" not in p.text for p in recent_parts)


def test_recent_edits_merge_and_forget():
    recent = RecentEdits(capacity=3)
    recent.note_edit("a", 10)
    recent.note_edit("a", 12)  # merges with line 10
    recent.note_edit("b", 5)
    recent.note_edit("c", 1)
    recent.note_edit("d", 1)
    assert recent.locations() == [("d", 1), ("c", 1), ("b", 5)]
    recent.forget("c")
    assert recent.locations() == [("d", 1), ("b", 5)]


def test_parts_are_byte_identical_while_typing_on_a_line():
    name = "ts_tasks"
    pdoc = open_doc(FIXTURES / name / "src/services/scheduler.ts")
    line = pdoc.doc.text[:pdoc.doc.text.index("    const horizon")].count("\n")
    pdoc.apply_change((line, 0), (line, 0), "    const \n")
    seen = set()
    for col, ch in enumerate("limit = horizon", start=10):
        pdoc.apply_change((line, col), (line, col), ch)
        pdoc.doc.version += 1
        ctx = assemble_context(pdoc, pdoc.doc.offset_at(line, col + 1), budget_tokens=1200,
                               workspace=workspace(name))
        seen.add(tuple((p.tier, p.source, p.text) for p in ctx.parts if p.tier != "recent"))
    assert len(seen) == 1


def test_no_language_and_no_workspace_still_gets_a_window(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("first line\nsecond line\nthird\n")
    pdoc = ParsedDocument.open(Document(path.as_uri(), path.read_text(), "plaintext", 1), str(path))
    ctx = assemble_context(pdoc, 16, budget_tokens=100)
    assert ctx.prefix == "first line\nsecon" and ctx.suffix.startswith("d line\n")
    assert ctx.parts == ()


@pytest.mark.parametrize("budget", [0, 1, 5])
def test_tiny_budgets_do_not_crash(budget):
    pdoc = open_doc(FIXTURES / "py_inventory" / "app.py")
    ctx = assemble_context(pdoc, 100, budget_tokens=budget, workspace=workspace("py_inventory"))
    assert ctx.tokens <= budget


def test_an_excluded_current_document_sends_nothing(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    env = root / ".env.local"
    env.write_text("DB_HOST=localhost\nDB_USER=app\n")
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    pdoc = ParsedDocument.open(Document(env.as_uri(), env.read_text(), "dotenv", 1), str(env))
    ctx = assemble_context(pdoc, 5, budget_tokens=1000, workspace=ws)
    assert (ctx.prefix, ctx.suffix, ctx.parts, ctx.tokens) == ("", "", (), 0)
