"""The estimate margin per language (`assemble.estimate_margin`): Rust requests are
estimated above their DeepSeek size, so they keep 3.3 % of the budget spare, not 5 %."""

from __future__ import annotations

from pathlib import Path

from flashls.context import evidence_pyjs, ranking
from flashls.context.assemble import assemble_context, estimate_margin
from flashls.context.budget import window_cap
from flashls.context.document import Document
from flashls.context.languages import language_for
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE


def test_rust_keeps_a_smaller_margin_and_other_languages_the_shared_one():
    budget = 2048
    assert estimate_margin(language_for("", "lib.rs"), budget) == budget // 30
    for name in ("a.py", "a.ts", "a.go", "A.java", "a.cpp"):
        assert estimate_margin(language_for("", name), budget) == budget // 20
    assert estimate_margin(None, budget) == budget // 20


def test_a_rust_request_spends_what_the_smaller_margin_frees(tmp_path: Path, monkeypatch):
    """A long file calling 300 functions of a module: the window reserves its full
    share and the neighbor signatures fill the rest, up to the Rust margin. Lending
    (Rust lends since session 11) is switched off so the reservation is exact."""
    monkeypatch.setattr(evidence_pyjs, "LEND_WINDOW", False)
    src = tmp_path / "src"
    src.mkdir()
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "demo"\n')
    (src / "funcs.rs").write_text("".join(
        f"pub fn helper_number_{i}(a: u32, b: u32) -> u32 {{\n    a + b + {i}\n}}\n\n"
        for i in range(300)))
    user = "mod funcs;\nuse crate::funcs::*;\n\n" + "".join(
        f"fn call_{i}() -> u32 {{\n    funcs::helper_number_{i}(1, 2)\n}}\n\n" for i in range(300))
    path = src / "lib.rs"
    path.write_text(user)
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    pdoc = ParsedDocument.open(Document(path.as_uri(), user, "", 1), str(path))
    ranking.forget()
    budget = 2048
    ctx = assemble_context(pdoc, len(user) // 2, budget_tokens=budget, workspace=ws)
    assert any(p.tier == "neighbors" for p in ctx.parts)
    spent = sum(p.tokens for p in ctx.parts)
    stable = budget - window_cap(budget)  # what the window's reservation leaves
    assert stable - budget // 20 < spent <= stable - budget // 30
