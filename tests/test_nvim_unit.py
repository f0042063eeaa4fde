"""Unit tests for the Neovim plugin's pure parts, run inside a real headless Neovim
(`nvim -l`): status parsing, Markdown formatting, settings encoding, ranges in every
position encoding, option merging and the fallback ghost text's typed-through logic."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from tests.conftest import find_nvim, require

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "clients" / "nvim"
NVIM = find_nvim()

LUA_TESTS = r"""
vim.opt.rtp:prepend(PLUGIN)
local failures, count = {}, 0
local function test(name, fn)
  count = count + 1
  local ok, err = pcall(fn)
  if not ok then
    table.insert(failures, name .. ': ' .. tostring(err))
  end
end
local function eq(actual, expected)
  if not vim.deep_equal(actual, expected) then
    error(('expected %s, got %s'):format(vim.inspect(expected), vim.inspect(actual)), 2)
  end
end
local function truthy(v, what)
  if not v then error('expected ' .. what, 2) end
end

local status = require('flashls.status')
local format = require('flashls.format')
local util = require('flashls.util')
local flashls = require('flashls')
local ghost = require('flashls.ghost')

test('status: valid notification keeps known fields only', function()
  eq(status.parse({ state = 'ready', message = 'ok', lastLatencyMs = 312, sessionCostUsd = 0.002, x = 1 }),
    { state = 'ready', message = 'ok', lastLatencyMs = 312, sessionCostUsd = 0.002 })
end)

test('status: malformed payloads become an error state', function()
  eq(status.parse(nil).state, 'error')
  eq(status.parse('ready').state, 'error')
  local unknown = status.parse({ state = 'exploded' })
  eq(unknown.state, 'error')
  truthy(unknown.message:find('exploded'), 'the unknown state named')
end)

test('status: bad numbers are dropped', function()
  eq(status.parse({ state = 'thinking', lastLatencyMs = -1, sessionCostUsd = 0 / 0 }), { state = 'thinking' })
  eq(status.parse({ state = 'ready', lastLatencyMs = math.huge }), { state = 'ready' })
end)

test('status: statusline and description', function()
  eq(status.statusline({ state = 'ready', lastLatencyMs = 250.4 }), '⚡ flashls 250 ms')
  eq(status.statusline({ state = 'ready' }), '⚡ flashls')
  eq(status.statusline({ state = 'error' }), '! flashls error')
  eq(status.format_latency(1234), '1.2 s')
  eq(status.format_cost(0.00213), '$0.0021')
  eq(status.format_cost(2), '$2.00')
  eq(status.describe({ state = 'ready', message = 'm', lastLatencyMs = 5, sessionCostUsd = 0 }),
    { 'flashls: ready', 'm', 'last completion: 5 ms', 'this session: $0' })
end)

test('status: reasons reach the statusline for their own buffer only', function()
  local s = status.parse({ state = 'disabled', message = 'off for markdown',
    reason = { code = 'language_disabled', message = 'off for markdown', uri = 'file:///a.md' } })
  eq(s.reason, { code = 'language_disabled', message = 'off for markdown', uri = 'file:///a.md' })
  eq(status.statusline(s, 'file:///a.md'), '○ flashls: off for this language')
  eq(status.statusline(s, 'file:///b.py'), '○ flashls disabled')
  eq(status.describe(s), { 'flashls: disabled', 'nothing offered: off for markdown (/a.md)' })
  eq(status.parse({ state = 'ready', reason = { code = 3 } }).reason, nil)
end)

test('accept: next word, next line, UTF-16 lengths', function()
  local accept = require('flashls.accept')
  eq(accept.next_word('total = a + b'), 'total')
  eq(accept.next_word(' = a + b'), ' =')
  eq(accept.next_word('\n    return x'), '\n')
  eq(accept.next_word('    return x'), '    return')
  eq(accept.next_line('a = 1\nb = 2'), 'a = 1\n')
  eq(accept.next_line('b = 2'), 'b = 2')
  eq(accept.utf16_len('aé😀'), 4)
end)

test('format: fences outgrow backtick runs', function()
  eq(format.fence('a', 'py'), '```py\na\n```')
  eq(format.fence('x ```` y\n'), '`````\nx ```` y\n`````')
end)

test('format: FIM context has facts, breakdown, prompt and suffix', function()
  local lines = format.context({ model = 'deepseek-flash', maxTokens = 64, tiers = { {} },
    prompt = 'def f():\n    ', suffix = '\n', breakdown = 'cursor window' }, 'a.py:2:5')
  local text = table.concat(lines, '\n')
  eq(lines[1], '# flashls context at a.py:2:5')
  truthy(text:find('| model | deepseek-flash |', 1, true), 'model row')
  truthy(text:find('| maxTokens | 64 |', 1, true), 'maxTokens row')
  truthy(not text:find('tiers', 1, true), 'no table row for a list')
  truthy(text:find('## Breakdown\n\n```text\ncursor window\n```', 1, true), 'breakdown block')
  truthy(text:find('## Prompt (before the cursor)\n\n```text\ndef f():\n    \n```', 1, true), 'prompt block')
  truthy(text:find('## Suffix (after the cursor)', 1, true), 'suffix block')
end)

test('format: chat messages and empty results', function()
  local text = table.concat(format.context({ messages = { { role = 'system', content = 'be brief' } } }, 'b'), '\n')
  truthy(text:find('### system\n\n```text\nbe brief\n```', 1, true), 'message block')
  eq(format.context(nil, 'c')[3], '*flashls returned no context.*')
  eq(format.markdown({ markdown = '# a\nb' }, 'x'), { '# a', 'b' })
  eq(format.markdown({}, 'explanation'), { '*flashls returned no explanation.*' })
end)

test('util: dotted paths', function()
  local t = {}
  util.set_path(t, 'completion.enable', false)
  util.set_path(t, 'model', 'm')
  eq(t, { completion = { enable = false }, model = 'm' })
  eq(util.get_path(t, 'completion.enable'), false)
  eq(util.get_path(t, 'model.x'), nil)
end)

test('settings: empty tables are sent as JSON objects, exclude stays a list', function()
  flashls.config.settings = {}
  eq(vim.json.encode(flashls.settings_object()), '{}')
  flashls.config.settings = { completion = {}, exclude = {} }
  local decoded = vim.json.encode(flashls.settings_object())
  truthy(decoded:find('"completion":{}', 1, true), 'completion as object: ' .. decoded)
  truthy(decoded:find('"exclude":[]', 1, true), 'exclude as list: ' .. decoded)
end)

test('setup: lists replace defaults, keymaps merge, false disables them', function()
  flashls.setup({ root_markers = { '.hg' }, keymaps = { accept = '<C-y>' }, engine = 'plugin',
    settings = { model = 'x' } })
  eq(flashls.config.root_markers, { '.hg' })
  eq(flashls.config.keymaps.accept, '<C-y>')
  eq(flashls.config.keymaps.next, '<M-]>')
  eq(flashls.engine(), 'plugin')
  flashls.setup({ keymaps = false, engine = false })
  eq(flashls.config.keymaps, {})
  eq(flashls.engine(), nil)
  eq(flashls.config.settings, {})
  flashls.setup({})
  eq(flashls.engine(), vim.fn.has('nvim-0.12') == 1 and 'native' or 'plugin')
  local ok = pcall(flashls.setup, 'nope')
  eq(ok, false)
end)

test('ranges: charwise selection in utf-8, utf-16 and utf-32', function()
  local buf = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_set_current_buf(buf)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { 'a😀bé = 1', 'second' })
  -- select "😀bé" (characters 2..4)
  vim.cmd('normal! 1G0lv2l\27')
  local opts = { range = 2, line1 = 1, line2 = 1 }
  eq(util.command_range(buf, opts, 'utf-8'), { start = { line = 0, character = 1 }, ['end'] = { line = 0, character = 8 } })
  eq(util.command_range(buf, opts, 'utf-16'), { start = { line = 0, character = 1 }, ['end'] = { line = 0, character = 5 } })
  eq(util.command_range(buf, opts, 'utf-32'), { start = { line = 0, character = 1 }, ['end'] = { line = 0, character = 4 } })
end)

test('ranges: line ranges and the cursor line', function()
  local buf = vim.api.nvim_get_current_buf()
  eq(util.command_range(buf, { range = 2, line1 = 1, line2 = 2 }, 'utf-16'),
    { start = { line = 0, character = 0 }, ['end'] = { line = 1, character = 6 } })
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  eq(util.command_range(buf, { range = 0, line1 = 1, line2 = 1 }, 'utf-16'),
    { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 9 } })
  -- a linewise visual selection covers whole lines
  vim.cmd('normal! 1GVj\27')
  eq(util.command_range(buf, { range = 2, line1 = 1, line2 = 2 }, 'utf-8'),
    { start = { line = 0, character = 0 }, ['end'] = { line = 1, character = 6 } })
end)

test('ghost: the rest of a suggestion follows the typed text', function()
  local buf = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_set_current_buf(buf)
  -- a closing ')' after the cursor keeps normal-mode cursor columns valid
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { '    return )' })
  ghost.state[buf] = { items = { { insertText = 'a + b' } }, index = 1, client_id = -1,
    anchor = { 0, 11 }, text = 'a + b' }
  vim.api.nvim_win_set_cursor(0, { 1, 11 })
  eq(ghost.remaining(buf), 'a + b')
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { '    return a +)' })
  vim.api.nvim_win_set_cursor(0, { 1, 14 })
  eq(ghost.remaining(buf), ' b')
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { '    return a -)' })
  eq(ghost.remaining(buf), nil)
  vim.api.nvim_win_set_cursor(0, { 1, 5 })
  eq(ghost.remaining(buf), nil)
  ghost.state[buf] = nil
end)

test('actions: only an instruction-less, intent-less rewrite asks', function()
  local actions = require('flashls.actions')
  local r = { start = { line = 0, character = 0 }, ['end'] = { line = 1, character = 4 } }
  eq(actions.needs_instruction({ { uri = 'file:///a.py', range = r } }), true)
  eq(actions.needs_instruction({ { uri = 'file:///a.py', range = r, instruction = '' } }), true)
  eq(actions.needs_instruction({ { uri = 'file:///a.py', range = r, instruction = vim.NIL } }), true)
  eq(actions.needs_instruction({ { uri = 'file:///a.py', range = r, instruction = 'add types' } }), false)
  eq(actions.needs_instruction({ { uri = 'file:///a.py', range = r, intent = 'simplify', version = 2 } }), false)
  for _, bad in ipairs({ {}, { 'x' }, { { 'x' } }, 'nope', vim.NIL }) do
    eq(actions.needs_instruction(bad), false)
  end
  eq(actions.needs_instruction(nil), false)
  local args = { { uri = 'u', range = r }, 'extra' }
  eq(actions.with_instruction(args, 'use a loop'), { { uri = 'u', range = r, instruction = 'use a loop' }, 'extra' })
  eq(args[1].instruction, nil)
end)

test('actions: setup registers the command handlers and keeps a user\'s own', function()
  local actions = require('flashls.actions')
  vim.lsp.commands['flashls.rewrite'], vim.lsp.commands['flashls.explain'] = nil, nil
  flashls.setup({ engine = false })
  eq(vim.lsp.commands['flashls.rewrite'], actions.rewrite)
  eq(vim.lsp.commands['flashls.explain'], actions.explain)
  local mine = function() end
  vim.lsp.commands['flashls.explain'] = mine
  flashls.setup({ engine = false })
  eq(vim.lsp.commands['flashls.explain'], mine)
  eq(vim.lsp.commands['flashls.rewrite'], actions.rewrite)
  vim.lsp.commands['flashls.explain'] = nil
end)

test('actions: a cancelled prompt sends nothing', function()
  local actions = require('flashls.actions')
  local sent, asked = {}, 0
  local fake = { id = 4242, request = function(self, method, params) table.insert(sent, params) end }
  local get = vim.lsp.get_client_by_id
  local input = vim.ui.input
  vim.lsp.get_client_by_id = function(id) return id == 4242 and fake or nil end
  vim.ui.input = function(_, on_confirm) asked = asked + 1; on_confirm(nil) end
  local ok, err = pcall(function()
    local r = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 1 } }
    actions.rewrite({ command = 'flashls.rewrite', arguments = { { uri = 'u', range = r } } }, { client_id = 4242, bufnr = 0 })
    eq(asked, 1)
    eq(sent, {})
    actions.rewrite({ command = 'flashls.rewrite', arguments = { { uri = 'u', range = r, intent = 'simplify' } } },
      { client_id = 4242, bufnr = 0 })
    eq(asked, 1)
    eq(sent, { { command = 'flashls.rewrite', arguments = { { uri = 'u', range = r, intent = 'simplify' } } } })
  end)
  vim.lsp.get_client_by_id, vim.ui.input = get, input
  assert(ok, err)
end)

io.write(('%d passed, %d failed\n'):format(count - #failures, #failures))
for _, failure in ipairs(failures) do
  io.write('FAIL ' .. failure .. '\n')
end
io.stdout:flush()
os.exit(#failures == 0 and 0 or 1)
"""


def test_lua_units(tmp_path):
    require(NVIM, "nvim missing: pip install -e '.[test]'")
    script = tmp_path / "units.lua"
    script.write_text(LUA_TESTS.replace("PLUGIN", "[==[" + str(PLUGIN) + "]==]", 1),
                      encoding="utf-8")
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    run = subprocess.run([NVIM, "--headless", "--clean", "-l", str(script)], capture_output=True,
                         text=True, timeout=60, env=env)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert " 0 failed" in out and "FAIL" not in out, out
    passed = int(out.split(" passed,")[0].split()[-1])
    assert passed == LUA_TESTS.count("\ntest(")


def test_help_file_has_valid_tags_for_every_command(tmp_path):
    require(NVIM, "nvim missing: pip install -e '.[test]'")
    doc = tmp_path / "doc"
    doc.mkdir()
    shutil.copy(PLUGIN / "doc" / "flashls.txt", doc / "flashls.txt")
    run = subprocess.run([NVIM, "--headless", "--clean", "-c", f"helptags {doc}", "-c", "qa!"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "E1" not in run.stderr, run.stderr
    tags = {line.split("\t")[0] for line in (doc / "tags").read_text().splitlines()}
    plugin = (PLUGIN / "plugin" / "flashls.lua").read_text(encoding="utf-8")
    commands = re.findall(r"nvim_create_user_command\('(\w+)'", plugin)
    assert len(commands) >= 6
    for command in commands:
        assert f":{command}" in tags, command
    assert {"flashls-setup", "flashls-no-plugin", "flashls.set_setting()"} <= tags
