"""The window's unused share lent to the stable tier (`evidence_pyjs.lent_window`,
`hold_room`): for Java and C/C++ too since session 10, in steps of budget/8, while the
window itself stays as it was; not for Go and Rust (their prompt-cache hits fell)."""

import pytest

from flashls.context import evidence_pyjs, ranking
from flashls.context.assemble import assemble_context
from flashls.context.budget import window_cap, window_reservation
from flashls.context.document import Document
from flashls.context.hold_room import hold_room
from flashls.context.languages import language_for
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE


@pytest.mark.parametrize("path,lends", [("A.java", True), ("a.py", True), ("a.go", False),
                                        ("a.rs", False), ("a.cpp", True)])
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
