"""The neighbor parts of consecutive prompts of one document keep their order: a part
new since goes after the ones the last prompt had (`rank_memo.stable_order`), so the
bytes before it stay as they were and DeepSeek's prefix cache keeps hitting."""

from __future__ import annotations

from pathlib import Path

from flashls.context import rank_memo, ranking
from flashls.context.assemble import ContextPart, Workspace, assemble_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.settings import DEFAULT_EXCLUDE


def _workspace(tmp_path: Path) -> tuple[Workspace, Path, str]:
    for mod in ("alpha", "zeta"):
        (tmp_path / f"{mod}.py").write_text("".join(
            f"def {mod}_fn{i}(first_argument, second_argument):\n    return {i}\n\n\n"
            for i in range(8)))
    main = ("from zeta import zeta_fn5\nimport alpha\n\n\n"
            "def second(x):\n    y = alpha.alpha_fn3(x, x)\n    w = zeta_fn5(y, y)\n"
            "    return w\n")
    (tmp_path / "main.py").write_text(main)
    return Workspace([str(tmp_path)], DEFAULT_EXCLUDE), tmp_path / "main.py", main


def _sources(ctx) -> list[str]:
    return [p.source for p in ctx.parts if p.tier == "neighbors"]


def test_parts_keep_the_last_prompts_order_and_new_ones_come_after(tmp_path):
    ws, path, text = _workspace(tmp_path)
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
    offset = text.index("    w = zeta")
    ranking.forget()
    fresh = assemble_context(pdoc, offset, budget_tokens=1500, workspace=ws)
    assert _sources(fresh) == ["alpha.py", "zeta.py"]  # no history: by path
    # the last prompt had zeta.py only (alpha.py's entries came since)
    rank_memo._DOCS[path.as_uri()].order = (("neighbors", "zeta.py"),)
    again = assemble_context(pdoc, offset, budget_tokens=1500, workspace=ws)
    assert _sources(again) == ["zeta.py", "alpha.py"]
    assert {(p.tier, p.source, p.text) for p in again.parts} == \
        {(p.tier, p.source, p.text) for p in fresh.parts}, "the same parts, reordered"
    # ...and that order is what the next prompt starts from
    assert _sources(assemble_context(pdoc, offset, budget_tokens=1500, workspace=ws)) == \
        ["zeta.py", "alpha.py"]
    ranking.forget()  # no history again: by path
    assert _sources(assemble_context(pdoc, offset, budget_tokens=1500, workspace=ws)) == \
        ["alpha.py", "zeta.py"]


def test_stable_order_puts_new_neighbor_parts_after_the_kept_ones_tiers_in_order():
    ranking.forget()
    key = "file:///w/main.py"
    part = lambda tier, source: ContextPart(tier, source, f"{source}\n", 3)  # noqa: E731
    assert rank_memo.stable_order(key, [part("neighbors", "b.py")]) == \
        [part("neighbors", "b.py")], "a document with no selection yet: as given"
    rank_memo._DOCS[key] = rank_memo._Doc(rank_memo.OrderedDict())
    first = [part("neighbors", "b.py"), part("neighbors", "c.py"), part("outline", "main.py"),
             part("recent", "x.py")]
    assert rank_memo.stable_order(key, first) == first
    canonical = [part("neighbors", "a.py"), part("neighbors", "c.py"),
                 part("outline", "main.py"), part("recent", "a.py"), part("recent", "x.py")]
    assert [(p.tier, p.source) for p in rank_memo.stable_order(key, canonical)] == [
        ("neighbors", "c.py"), ("neighbors", "a.py"), ("outline", "main.py"),
        ("recent", "a.py"), ("recent", "x.py")]
    ranking.forget()
