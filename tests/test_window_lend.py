"""The window's unused share lent to the stable tier (`evidence_pyjs.lent_window`,
`hold_room`): for Java and C/C++ too since session 10, Go and Rust since session 11
(with hysteresis: `hold_room.SETTLE`), in steps of budget/8, while the window itself
stays as it was."""

from types import SimpleNamespace

import pytest

from flashls.context import evidence_pyjs, rank_memo, ranking
from flashls.context.assemble import assemble_context
from flashls.context.budget import Fill, window_cap, window_reservation
from flashls.context.document import Document
from flashls.context.hold_room import hold_room, settle_for
from flashls.context.languages import language_for
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE


@pytest.mark.parametrize("path,lends", [("A.java", True), ("a.py", True), ("a.go", True),
                                        ("a.rs", True), ("a.cpp", True)])
def test_a_lending_language_gives_back_only_what_its_window_leaves(path, lends):
    spec = language_for(path=path)
    budget, window = 2048, 600
    reserved = window_reservation(window, budget, whole_file=False)
    lent = evidence_pyjs.lent_window(spec, 0, reserved, window, budget, False)
    room, stepped = hold_room(spec, reserved, window, at_top=False)
    if not lends:
        assert (lent, stepped) == (0, False)
        return
    assert 0 < lent <= reserved - window  # only what the window does not use
    assert stepped and lent <= room <= reserved - window


def _java_context(tmp_path, budget: int):
    helpers = "package app;\n\npublic class Helpers {\n" + "".join(
        f"    public static int helper{i}(int value, String label) {{\n"
        "        return value;\n    }\n\n" for i in range(80)) + "}\n"
    body = "".join(f"    int f{i}() {{\n        return " + " + ".join(
        f"Helpers.helper{(i + k) % 80}({k}, \"label\")" for k in range(8)) + ";\n    }\n\n\n"
        for i in range(300))
    text = "package app;\n\npublic class Main {\n" + body + "    int last() {\n        return "
    (tmp_path / "Helpers.java").write_text(helpers)
    path = tmp_path / "Main.java"
    path.write_text(text)
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    ranking.forget()
    return assemble_context(pdoc, len(text), budget_tokens=budget, workspace=ws), text


def test_a_java_window_short_of_its_share_leaves_the_rest_to_the_signatures(tmp_path):
    budget = 2048
    ctx, text = _java_context(tmp_path, budget)
    window = ctx.tokens - sum(p.tokens for p in ctx.parts)
    assert ctx.window_start_line > 0 and window < window_cap(budget) - budget // 8
    # the signatures use more than what the window's whole share would leave them
    assert sum(p.tokens for p in ctx.parts) > budget - window_cap(budget)
    assert ctx.tokens <= budget
    assert text.endswith(ctx.prefix)  # the window is verbatim


def test_go_and_rust_take_a_larger_lent_amount_only_once_it_has_settled():
    """A window that dips under a step for a keystroke (Rust's anyhow `error.rs` in
    `replay_trace`) lends nothing more until it has offered the step three times."""
    go, py = language_for(path="a.go"), language_for(path="a.py")
    assert settle_for(go) == settle_for(language_for(path="a.rs")) == 3
    assert settle_for(py) == settle_for(language_for(path="A.java")) == 1
    ranking.forget()
    key = "file:///w/a.go"
    calls: list[int] = []

    def fills(given: int):
        calls.append(given)
        return {"stable": Fill(SimpleNamespace(dropped=False), 800 + given, 5000)}

    def run(freed: int, room: int, settle: int = 3) -> list[int]:
        calls.clear()
        rank_memo.held_share(key, fills, freed, room, True, None, settle)
        return list(calls)

    assert run(102, 300) == [102], "first request: as computed"
    assert run(358, 400) == [102], "a larger amount offered once is not taken"
    assert run(358, 400) == [102]
    assert run(358, 400) == [358], "...but after three requests in a row"
    assert run(102, 300) == [300], "a smaller one: the hold as before"
    ranking.forget()
    assert run(102, 300, 1) == [102] and run(358, 400, 1) == [358], "settle 1: at once"
    ranking.forget()


def test_go_holds_a_window_at_the_top_without_the_error_it_keeps_back_off_it():
    """At the top of the file the window gives its step back without keeping the
    estimate's error (`budget.window_reservation`); holding that step with it dropped
    entries the fresh request keeps (logrus `logger.go`)."""
    reserved, window = 1126, 760
    go, js = language_for(path="a.go"), language_for(path="a.js")
    assert hold_room(go, reserved, window, at_top=True) == (reserved - window, True)
    assert hold_room(go, reserved, window, at_top=False) == (reserved - window - 38, True)
    assert hold_room(js, reserved, window, at_top=True) == (reserved - window - 38, True)


def test_rust_lends_less_a_slack_the_window_may_grow_by():
    budget, window = 2048, 600
    reserved = window_reservation(window, budget, whole_file=False)
    stepped = window_reservation(window, budget, whole_file=False, top_fits=True)
    rust = language_for(path="a.rs")
    lent = evidence_pyjs.lent_window(rust, 0, reserved, window, budget, False)
    assert lent == reserved - stepped - evidence_pyjs.LEND_SLACK["rust"] > 0
