"""The neighbor parts of consecutive prompts of one document keep their order: a part
new since goes after the ones the last prompt had (`rank_memo.stable_order`), so the
bytes before it stay as they were and DeepSeek's prefix cache keeps hitting."""

from __future__ import annotations

from pathlib import Path

from flashls.context import rank_memo, ranking
from flashls.context.assemble import ContextPart, Workspace, assemble_context
from flashls.context.document import Document
from flashls.context.part_layout import Layout
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
    rank_memo._DOCS[path.as_uri()].layout = Layout(order=(("neighbors", "zeta.py", 0),))
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
        ("neighbors", "c.py"), ("outline", "main.py"), ("neighbors", "a.py"),
        ("recent", "a.py"), ("recent", "x.py")], "a new file goes after the kept outline"
    ranking.forget()


def test_entries_added_to_a_kept_file_go_after_the_kept_parts():
    """A kept file whose part gains an entry mid-way keeps the text it was sent with in
    place; the added lines follow the other neighbor parts as a second part of the
    same file, so the prompt's beginning stays byte-identical (`part_addenda`)."""
    ranking.forget()
    key = "file:///w/main.py"
    rank_memo._DOCS[key] = rank_memo._Doc(rank_memo.OrderedDict())

    def part(tier: str, source: str, text: str) -> ContextPart:
        return ContextPart(tier, source, text, len(text.splitlines()) + 2)

    def make(tier: str, source: str, text: str) -> ContextPart:
        return part(tier, source, text)

    b_old = "def one():\ndef three():\n"
    first = [part("neighbors", "b.py", b_old), part("neighbors", "c.py", "def c():\n"),
             part("outline", "main.py", "def main():\n")]
    assert rank_memo.stable_order(key, first, make, room=100) == first
    b_new = "def one():\ndef two():\ndef three():\n"  # `two` was just typed
    second = [part("neighbors", "b.py", b_new), part("neighbors", "c.py", "def c():\n"),
              part("outline", "main.py", "def main():\n")]
    got = rank_memo.stable_order(key, second, make, room=100)
    assert [(p.source, p.text) for p in got] == [
        ("b.py", b_old), ("c.py", "def c():\n"), ("main.py", "def main():\n"),
        ("b.py", "def two():\n")]
    # the next prompt starts from that layout: the addition stays where it was
    third = [part("neighbors", "b.py", b_new + "def four():\n"),
             part("neighbors", "c.py", "def c():\n"), part("outline", "main.py", "def main():\n")]
    assert [(p.source, p.text) for p in rank_memo.stable_order(key, third, make, room=100)] == [
        ("b.py", b_old), ("c.py", "def c():\n"), ("main.py", "def main():\n"),
        ("b.py", "def two():\ndef four():\n")]
    # an entry dropped from the kept text: the file's part is sent whole again
    fourth = [part("neighbors", "b.py", "def one():\ndef two():\n"),
              part("neighbors", "c.py", "def c():\n")]
    assert [(p.source, p.text) for p in rank_memo.stable_order(key, fourth, make, room=100)] == [
        ("b.py", "def one():\ndef two():\n"), ("c.py", "def c():\n")]
    ranking.forget()


def test_an_addition_that_does_not_fit_leaves_the_part_whole():
    ranking.forget()
    key = "file:///w/main.py"
    rank_memo._DOCS[key] = rank_memo._Doc(rank_memo.OrderedDict())
    make = lambda tier, source, text: ContextPart(tier, source, text, 10)  # noqa: E731
    rank_memo.stable_order(key, [make("neighbors", "b.py", "a\nc\n")], make, room=100)
    whole = make("neighbors", "b.py", "a\nb\nc\n")
    assert rank_memo.stable_order(key, [whole], make, room=9) == [whole], \
        "two parts cost 20 tokens, the whole one 10: 9 left is not enough for the label"
    ranking.forget()


def test_added_lines():
    from flashls.context.part_addenda import added_lines
    assert added_lines("a\nc\n", "a\nb\nc\nd\n") == "b\nd\n"
    assert added_lines("a\nc\n", "a\nc\n") == ""
    assert added_lines("a\nc\n", "c\na\n") is None, "reordered: not only added"
    assert added_lines("a\nc\n", "a\nb\n") is None, "a line gone"
    assert added_lines("", "a\n") is None
