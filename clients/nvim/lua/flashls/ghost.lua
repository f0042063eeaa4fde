--- Inline completion for Neovim 0.10/0.11, which have no native client for it:
--- ask `textDocument/inlineCompletion` while typing and draw the answer as ghost
--- text (extmarks). Neovim 0.12+ uses `vim.lsp.inline_completion` instead, unless
--- `engine = 'plugin'` is set.
local util = require('flashls.util')

local api = vim.api
local M = {}

M.ns = api.nvim_create_namespace('flashls.ghost')
M.debounce_ms = 30

---@class flashls.GhostState
---@field items table[] items of the last answer
---@field index integer shown item
---@field client_id integer
---@field request_id? integer
---@field timer? uv.uv_timer_t
---@field anchor? integer[] {row, col} (0-based, bytes) where the item's text starts
---@field text? string full text of the shown item

---@type table<integer, flashls.GhostState>
M.state = {}

local function state(bufnr)
  return M.state[bufnr]
end

local function item_text(item)
  local text = item.insertText
  if type(text) == 'table' then
    text = text.value or '' -- a snippet: shown and inserted literally
  end
  return text or ''
end

--- Clear ghost text, keep the items.
function M.hide(bufnr)
  if api.nvim_buf_is_valid(bufnr) then
    api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  end
end

local function cancel(bufnr)
  local s = state(bufnr)
  if not s then
    return
  end
  s.timer = util.close_timer(s.timer)
  if s.request_id then
    local client = vim.lsp.get_client_by_id(s.client_id)
    if client then
      util.cancel(client, s.request_id)
    end
    s.request_id = nil
  end
end

--- Forget the suggestion and any pending request.
function M.dismiss(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  cancel(bufnr)
  M.hide(bufnr)
  local s = state(bufnr)
  if s then
    s.items, s.index, s.anchor, s.text = {}, 0, nil, nil
  end
end

--- The part of the shown item still to insert, given what was typed since the anchor.
---@return string? remaining nil when the typed text left the suggestion
function M.remaining(bufnr)
  local s = state(bufnr)
  if not s or not s.text or not s.anchor then
    return nil
  end
  local win = vim.fn.bufwinid(bufnr)
  if win == -1 then
    return nil
  end
  local cursor = api.nvim_win_get_cursor(win)
  local row, col = cursor[1] - 1, cursor[2]
  if row ~= s.anchor[1] or col < s.anchor[2] then
    return nil
  end
  local line = api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
  local typed = line:sub(s.anchor[2] + 1, col)
  if s.text:sub(1, #typed) ~= typed then
    return nil
  end
  return s.text:sub(#typed + 1)
end

--- Draw the remaining text of the current item at the cursor.
function M.show(bufnr)
  M.hide(bufnr)
  local rest = M.remaining(bufnr)
  if not rest or rest == '' then
    return
  end
  local win = vim.fn.bufwinid(bufnr)
  local cursor = api.nvim_win_get_cursor(win)
  local lines = vim.split(rest, '\n', { plain = true })
  local virt_lines = {}
  for i = 2, #lines do
    table.insert(virt_lines, { { lines[i], 'ComplHint' } })
  end
  local s = state(bufnr)
  local first = { { lines[1], 'ComplHint' } }
  if #s.items > 1 then
    table.insert(#virt_lines > 0 and virt_lines[#virt_lines] or first,
      { (' (%d/%d)'):format(s.index, #s.items), 'ComplHintMore' })
  end
  api.nvim_buf_set_extmark(bufnr, M.ns, cursor[1] - 1, cursor[2], {
    virt_text = first,
    virt_text_pos = 'inline',
    virt_lines = #virt_lines > 0 and virt_lines or nil,
    hl_mode = 'combine',
  })
end

--- Make item `index` (1-based, wraps) the shown one.
function M.select(bufnr, index)
  local s = state(bufnr)
  if not s or #s.items == 0 then
    return
  end
  s.index = (index - 1) % #s.items + 1
  local item = s.items[s.index]
  local client = vim.lsp.get_client_by_id(s.client_id)
  local cursor = api.nvim_win_get_cursor(vim.fn.bufwinid(bufnr))
  local row, col = cursor[1] - 1, cursor[2]
  local text = item_text(item)
  s.range_end = nil
  if item.range and client then
    -- The item replaces [range.start, range.end): the typed part between range
    -- start and cursor is already in the buffer.
    local start = item.range.start
    local line = api.nvim_buf_get_lines(bufnr, start.line, start.line + 1, false)[1] or ''
    local scol = util.byteindex(line, start.character, client.offset_encoding)
    if start.line == row and scol <= col then
      s.anchor = { row, scol }
      s.text = text
      s.range_end = item.range['end']
    else
      s.anchor, s.text = { row, col }, text
    end
  else
    s.anchor, s.text = { row, col }, text
  end
  M.show(bufnr)
end

function M.next(bufnr, count)
  bufnr = bufnr or api.nvim_get_current_buf()
  local s = state(bufnr)
  if s and #s.items > 0 then
    M.select(bufnr, s.index + (count or 1))
  end
end

--- Ask the server for items at the cursor.
function M.request(bufnr, invoked)
  local s = state(bufnr)
  local client = s and vim.lsp.get_client_by_id(s.client_id)
  if not client then
    return
  end
  cancel(bufnr)
  local tick = api.nvim_buf_get_changedtick(bufnr)
  local cursor = api.nvim_win_get_cursor(0)
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  params.context = { triggerKind = invoked and 1 or 2 }
  local ok, id = util.request(client, 'textDocument/inlineCompletion', params, function(err, result)
    if s.request_id == id then
      s.request_id = nil
    end
    if err or not result then
      return
    end
    local same = api.nvim_buf_is_valid(bufnr)
      and api.nvim_buf_get_changedtick(bufnr) == tick
      and vim.deep_equal(api.nvim_win_get_cursor(0), cursor)
      and api.nvim_get_mode().mode:sub(1, 1) == 'i'
    if not same then
      return -- stale: the user moved on
    end
    s.items = result.items or result
    M.select(bufnr, 1)
  end, bufnr)
  if ok then
    s.request_id = id
  end
end

--- Insert the shown item; false when there is none (so a mapping can fall back).
function M.accept(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  local s = state(bufnr)
  local rest = M.remaining(bufnr)
  if not s or not rest or rest == '' then
    return false
  end
  local item = s.items[s.index]
  vim.schedule(function()
    local win = vim.fn.bufwinid(bufnr)
    local cursor = api.nvim_win_get_cursor(win)
    local row, col = cursor[1] - 1, cursor[2]
    -- Replace what the item covers after the cursor (e.g. a closing bracket).
    local end_col = col
    local client = vim.lsp.get_client_by_id(s.client_id)
    if s.range_end and client and s.range_end.line == row then
      local line = api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
      local ecol = util.byteindex(line, s.range_end.character, client.offset_encoding)
      if ecol >= col then
        end_col = ecol
      end
    end
    M.dismiss(bufnr)
    local lines = vim.split(rest, '\n', { plain = true })
    api.nvim_buf_set_text(bufnr, row, col, row, end_col, lines)
    local last_row = row + #lines - 1
    local last_col = (#lines == 1 and col or 0) + #lines[#lines]
    api.nvim_win_set_cursor(win, { last_row + 1, last_col })
    if item and item.command and client then
      util.exec_cmd(client, item.command, bufnr)
    end
  end)
  return true
end

--- Insert the next `step(rest)` of the shown item and keep showing what is left
--- (a word or a line at a time); false when there is nothing to accept.
function M.accept_part(bufnr, step)
  bufnr = bufnr or api.nvim_get_current_buf()
  local s = state(bufnr)
  local rest = M.remaining(bufnr)
  if not s or not rest or rest == '' then
    return false
  end
  local piece = step(rest)
  if piece == '' then
    return false
  end
  if piece == rest then
    return M.accept(bufnr)
  end
  local item = s.items[s.index]
  local text, typed = s.text, s.text:sub(1, #s.text - #rest)
  vim.schedule(function()
    local win = vim.fn.bufwinid(bufnr)
    local cursor = api.nvim_win_get_cursor(win)
    local row, col = cursor[1] - 1, cursor[2]
    local lines = vim.split(piece, '\n', { plain = true })
    -- the rest stays on screen, anchored after the inserted part
    local last_row = row + #lines - 1
    local last_col = (#lines == 1 and col or 0) + #lines[#lines]
    s.anchor, s.text, s.range_end = { last_row, last_col }, rest:sub(#piece + 1), nil
    api.nvim_buf_set_text(bufnr, row, col, row, col, lines)
    api.nvim_win_set_cursor(win, { last_row + 1, last_col })
    M.show(bufnr)
    local client = vim.lsp.get_client_by_id(s.client_id)
    require('flashls.accept').report_partial(client, item, text, typed .. piece, bufnr)
  end)
  return true
end

local function schedule_request(bufnr)
  local s = state(bufnr)
  if not s then
    return
  end
  if s.timer then
    s.timer:stop()
  else
    s.timer = vim.uv.new_timer()
  end
  s.timer:start(M.debounce_ms, 0, vim.schedule_wrap(function()
    if api.nvim_buf_is_valid(bufnr) and api.nvim_get_current_buf() == bufnr
        and api.nvim_get_mode().mode:sub(1, 1) == 'i' then
      M.request(bufnr, false)
    end
  end))
end

--- Start ghost text for `bufnr` served by `client`.
function M.attach(bufnr, client)
  if M.state[bufnr] then
    return
  end
  M.state[bufnr] = { items = {}, index = 0, client_id = client.id }
  local group = api.nvim_create_augroup('flashls.ghost.' .. bufnr, { clear = true })
  api.nvim_create_autocmd({ 'InsertEnter', 'TextChangedI', 'CursorMovedI' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      M.show(bufnr) -- typed along the suggestion: keep showing the rest at once
      schedule_request(bufnr)
    end,
  })
  api.nvim_create_autocmd({ 'InsertLeave', 'BufLeave' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      M.dismiss(bufnr)
    end,
  })
  api.nvim_create_autocmd('LspDetach', {
    group = group,
    buffer = bufnr,
    callback = function(args)
      if args.data and args.data.client_id == client.id then
        M.detach(bufnr)
      end
    end,
  })
end

function M.detach(bufnr)
  M.dismiss(bufnr)
  M.state[bufnr] = nil
  pcall(api.nvim_del_augroup_by_name, 'flashls.ghost.' .. bufnr)
end

return M
