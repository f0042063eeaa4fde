"""Session 6 speed and replay work on the ranking: the per-neighbor-file scoring rows
(`ranking.neighbor_rows`, memoized per items tuple) and the fill-score shortcut must
give exactly the candidates the plain per-item scoring gives; the stable tier's
budget is held while a window at the top of the file grows (`rank_memo.held_freed`)."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from flashls.context import rank_memo, ranking
from flashls.context.budget import Fill
from flashls.context.document import Document
from flashls.context.evidence import gather
from flashls.context.neighbors import neighbor_files
from flashls.context.outline import Item
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE
from tests.typing_replay import stable_head, type_at_top

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces"

CASES = [("py_inventory", "inventory/services.py"),
         ("ts_tasks", "src/store/taskStore.ts"),
         ("rust_ledger", "src/ledger/mod.rs"),
         ("go_shortener", "internal/store/store.go"),
         ("java_library", "src/main/java/com/acme/library/service/LoanService.java"),
         ("c_geometry", "cpp/main.cpp"), ("c_geometry", "src/main.c")]


def _reference(files, ev, resolver: str, path: str) -> list[tuple[float, int, int, bool]]:
    """The neighbor candidates as the per-item loop computed them before the rows."""
    out = []
    memo: dict = {}
    for f_index, f in enumerate(files):
        merged = ranking._merged(resolver, path, f)
        module = ranking._module_use(f, ev)
        items = f.analysis.items
        for i_index, item in enumerate(items):
            if item.kind == "import":
                continue
            score = ranking._neighbor_score(items, item, f, ev, merged, module, memo)
            typed = False
            if item.parent != -1 and items[item.parent].name in ev.receiver_types:
                use = ev.uses.get(item.name)
                typed = bool(use is not None and use.attribute and
                             items[item.parent].name in ranking._typed(use, ev, memo))
            out.append((score, f_index, i_index, typed))
    return out


@pytest.mark.parametrize("workspace,rel", CASES)
def test_neighbor_candidates_equal_the_per_item_scores(workspace, rel):
    root = FIXTURES / workspace
    path = root / rel
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    text = path.read_text()
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
    pdoc.tree()
    from flashls.context.assemble import _current_analysis
    analysis = _current_analysis(pdoc)
    resolver = analysis.spec.resolver
    files = neighbor_files(analysis.spec, str(path), analysis, ws, {})
    assert files, "the fixture file imports neighbors"
    rng = random.Random(len(text))
    lines = [0, len(analysis.lines) - 1] + rng.sample(range(len(analysis.lines)), 6)
    compared = 0
    for line in lines:
        names = set()
        for f in files:
            names.update(it.name for it in f.analysis.items if it.name)
        ev = gather(analysis, line, names, resolver, -1)
        got = []
        for f_index, f in enumerate(files):
            got += [(c.score, c.file, c.item, bool(c.typed)) for c in ranking._file_candidates(
                f_index, f, ev, ranking._merged(resolver, str(path), f),
                ranking._module_use(f, ev), {})]
        want = _reference(files, ev, resolver, str(path))
        assert got == want, f"line {line}"
        compared += len(want)
    assert compared > 0


def test_neighbor_rows_memo_is_keyed_on_the_items_and_the_resolver():
    """A namespace is a C/C++ member's scoring parent only in C/C++: rows computed for
    one resolver must not answer another; a new items tuple gets its own rows."""
    ns = Item("geo", "module", 1, 0, 9, ("namespace geo {",), ("}",), -1, 3)
    fn = Item("area", "function", 2, 1, 2, ("double area();",), (), 0, 3)
    items = (ns, fn)
    c_rows = ranking.neighbor_rows(items, "c").rows
    py_rows = ranking.neighbor_rows(items, "python").rows
    assert [r[2] for r in c_rows if r[1] is fn] == [None]  # a namespace: no parent
    assert [r[2] for r in py_rows if r[1] is fn] == [ns]
    renamed = (ns, fn._replace(name="perimeter"))
    assert ranking.neighbor_rows(renamed, "c").names == frozenset({"geo", "perimeter"})
    assert ranking.neighbor_rows(items, "c").names == frozenset({"geo", "area"})


def _top_of_file_doc(tmp_path: Path):
    """A file whose window reaches its top, many neighbor entries of one module used
    in the function the cursor is in, and room below the cursor to type into."""
    helpers = "".join(f"def helper_{i}(first_argument, second_argument, third_one):\n"
                      f"    return first_argument + {i}\n\n\n" for i in range(60))
    (tmp_path / "helpers.py").write_text(helpers)
    uses = "".join(f"    value = helpers.helper_{i}(value, {i}, {i})\n" for i in range(0, 60, 2))
    body = "import helpers\n\n\ndef work(value):\n" + uses + "    return value\n"
    tail = "".join(f"\n\ndef other_{i}(a, b):\n    return a * b + {i}\n" for i in range(40))
    path = tmp_path / "main.py"
    text = body + tail
    path.write_text(text)
    return Workspace([str(tmp_path)], DEFAULT_EXCLUDE), path, text, body


def test_held_share_gives_back_what_the_window_took_then_takes_the_step():
    ranking.forget()
    key = "file:///w/a.py"
    calls: list[int] = []

    def share(kept: int):
        def fills(given: int):
            calls.append(given)
            cap = 811 + given  # what does not fit is left out: the selection says so
            return {"stable": Fill(SimpleNamespace(dropped=cap < kept),
                                   kept if cap >= kept else kept - 60, 5000)}
        return fills

    def run(freed: int, room: int, at_top: bool = True, kept: int = 1107) -> list[int]:
        calls.clear()
        rank_memo.held_share(key, share(kept), freed, room, at_top)
        return list(calls)

    assert run(358, 416) == [358], "first request: as computed"
    assert run(102, 344) == [344], "a reservation step: only what the window really took"
    assert run(102, 290) == [290, 102], "the selection no longer fits: the step after all"
    assert run(102, 280) == [102], "...and from there on as computed"
    assert run(358, 420) == [358], "a window that shrinks gives its steps back"
    assert run(0, 40, at_top=False) == [0], "not at the top: as computed"
    assert run(102, 344) == [102], "...and the hold starts over"
    ranking.forget()
    assert run(358, 416) == [358] and run(102, 344) == [344]
    ranking.forget()
    assert run(102, 344) == [102], "forget drops the hold"
    calls.clear()

    def share_locking(given: int):
        # the stable filler takes rank_memo's lock: held_share must not hold it then
        assert rank_memo._LOCK.acquire(blocking=False), "called with the lock held"
        rank_memo._LOCK.release()
        return share(900)(given)

    rank_memo.held_share("file:///w/b.py", share_locking, 0, 10, False)
    rank_memo.held_share(key, share_locking, 102, 344, True)
    assert calls == [0, 102] and "file:///w/b.py" not in rank_memo._DOCS, \
        "nothing remembered for a window off the top"
    ranking.forget()


def test_a_growing_top_of_file_window_keeps_the_stable_parts(tmp_path, monkeypatch):
    """Typing at the end of a function whose window reaches the top of the file, one
    character at a time: at some keystroke the window's reservation grows a step of
    budget/8 and, without the hold, kept neighbor entries leave the prompt. With it
    the stable parts at that keystroke are still the first prompt's, no prompt
    changes them more often, and every prompt stays within the budget."""
    ws, path, text, body = _top_of_file_doc(tmp_path)
    budget = 2048
    at = len(body) - len("    return value\n")
    typed = "".join(f"    value = value + other_{i}(value, {i})\n" for i in range(16))

    def replay() -> tuple[list[tuple], list[int]]:
        ctxs = type_at_top(ws, path, text, at, typed, budget)
        return [stable_head(c) for c in ctxs], [c.tokens for c in ctxs]

    held, totals = replay()
    assert max(totals) <= budget
    monkeypatch.setattr(rank_memo, "held_share",
                        lambda key, share, freed, room, at_top, narrow=None, settle=1:
                        share(freed))
    monkeypatch.setattr("flashls.context.assemble.held_share", rank_memo.held_share)
    unheld, _ = replay()
    step = next((k for k in range(len(unheld)) if unheld[k] != unheld[0]), None)
    assert step is not None, "the fixture crosses a reservation step"
    assert held[step] == held[0], "held: the step's keystroke keeps the stable parts"
    changes = lambda heads: sum(a != b for a, b in zip(heads, heads[1:]))  # noqa: E731
    assert changes(held) <= changes(unheld)
    ranking.forget()
