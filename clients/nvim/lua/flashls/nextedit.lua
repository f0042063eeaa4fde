--- Next edit suggestions: after a pause in Normal or Insert mode, ask the server
--- (`textDocument/copilotInlineEdit`) for the edit that follows the one just made,
--- and show it as a diff preview: the text it deletes highlighted, the text it
--- inserts as virtual text (and virtual lines). A key jumps to it, a key accepts
--- it; Escape (Normal mode), an edit anywhere or leaving the buffer dismisses it.
local util = require('flashls.util')

local api = vim.api
local M = {}

M.ns = api.nvim_create_namespace('flashls.nextedit')
M.method = 'textDocument/copilotInlineEdit'
M.default_debounce_ms = 500

---@class flashls.NextEditState
---@field client_id integer
---@field timer? uv.uv_timer_t
---@field request_id? integer
---@field edits? table[] the shown suggestion's edits (LSP ranges, `text`)
---@field version? integer buffer version the suggestion is for
---@field command? table the suggestion's accept command

---@type table<integer, flashls.NextEditState>
M.state = {}

local function settings()
  return require('flashls').config.settings or {}
end

function M.enabled()
  return util.get_path(settings(), 'nextEdit.enable') ~= false
end

function M.debounce_ms()
  local ms = util.get_path(settings(), 'nextEdit.debounceMs')
  return type(ms) == 'number' and ms or M.default_debounce_ms
end

local function version(bufnr)
  local versions = vim.lsp.util.buf_versions
  return (versions and versions[bufnr]) or vim.b[bufnr].changedtick
end

local function client_of(bufnr)
  local s = M.state[bufnr]
  return s and vim.lsp.get_client_by_id(s.client_id)
end

local function stop_timer(s)
  s.timer = util.close_timer(s.timer)
end

local function cancel_request(bufnr)
  local s = M.state[bufnr]
  if s and s.request_id then
    local client = client_of(bufnr)
    if client then
      util.cancel(client, s.request_id)
    end
    s.request_id = nil
  end
end

--- Whether a suggestion is shown in `bufnr`.
function M.visible(bufnr)
  local s = M.state[bufnr or api.nvim_get_current_buf()]
  return s ~= nil and s.edits ~= nil
end

--- Remove the preview; `reason` 'rejected' tells the server (usage ledger).
function M.dismiss(bufnr, reason)
  bufnr = bufnr or api.nvim_get_current_buf()
  local s = M.state[bufnr]
  if api.nvim_buf_is_valid(bufnr) then
    api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  end
  if not s or not s.edits then
    return false
  end
  local command = s.command
  s.edits, s.version, s.command = nil, nil, nil
  local client = client_of(bufnr)
  if reason == 'rejected' and client and command and command.arguments then
    util.execute_command(client, 'flashls.nextEdit.rejected', command.arguments, bufnr)
  end
  return true
end

-- -- the preview ------------------------------------------------------------------

--- (row, byte col) of an LSP position in `bufnr`.
local function to_bytes(bufnr, pos, encoding)
  local count = api.nvim_buf_line_count(bufnr)
  if pos.line >= count then
    local last = api.nvim_buf_get_lines(bufnr, count - 1, count, false)[1] or ''
    return count - 1, #last
  end
  local line = api.nvim_buf_get_lines(bufnr, pos.line, pos.line + 1, false)[1] or ''
  return pos.line, util.byteindex(line, pos.character, encoding)
end

local function draw(bufnr, edits, encoding)
  api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  for _, edit in ipairs(edits) do
    local srow, scol = to_bytes(bufnr, edit.range.start, encoding)
    local erow, ecol = to_bytes(bufnr, edit.range['end'], encoding)
    if srow ~= erow or scol ~= ecol then
      api.nvim_buf_set_extmark(bufnr, M.ns, srow, scol, {
        end_row = erow, end_col = ecol, hl_group = 'FlashlsNextEditDelete', priority = 200,
      })
    end
    local lines = vim.split(edit.text or '', '\n', { plain = true })
    local opts = { priority = 200 }
    if lines[1] ~= '' then
      opts.virt_text = { { lines[1], 'FlashlsNextEditAdd' } }
      opts.virt_text_pos = 'inline'
    end
    if #lines > 1 then
      opts.virt_lines = {}
      for i = 2, #lines do
        table.insert(opts.virt_lines, { { lines[i], 'FlashlsNextEditAdd' } })
      end
    end
    if opts.virt_text or opts.virt_lines then
      api.nvim_buf_set_extmark(bufnr, M.ns, erow, ecol, opts)
    end
  end
end

local function show(bufnr, client, edits, at_version)
  local s = M.state[bufnr]
  if not s or not api.nvim_buf_is_valid(bufnr) or version(bufnr) ~= at_version then
    return
  end
  if #edits == 0 then
    return
  end
  M.dismiss(bufnr, 'rejected') -- an older suggestion still shown
  draw(bufnr, edits, client.offset_encoding)
  s.edits, s.version, s.command = edits, at_version, edits[1].command
  util.notify(client, 'textDocument/didShowInlineEdit', { item = { command = s.command } })
end

-- -- requests -------------------------------------------------------------------------

--- Ask for a next edit at the cursor now.
function M.request(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  local s = M.state[bufnr]
  local client = client_of(bufnr)
  if not s or not client or not M.enabled() or bufnr ~= api.nvim_get_current_buf() then
    return false
  end
  cancel_request(bufnr)
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local at_version = version(bufnr)
  params.textDocument.version = at_version
  local ok, id = util.request(client, M.method, params, function(err, result)
    if s.request_id == id then
      s.request_id = nil
    end
    if err or type(result) ~= 'table' then
      return -- the server logs its errors; nothing pops up
    end
    show(bufnr, client, result.edits or {}, at_version)
  end, bufnr)
  s.request_id = ok and id or nil
  return ok
end

--- A change or a pause: restart the debounce timer.
local function schedule(bufnr)
  local s = M.state[bufnr]
  if not s or not M.enabled() then
    return
  end
  stop_timer(s)
  cancel_request(bufnr)
  s.timer = vim.uv.new_timer()
  s.timer:start(M.debounce_ms(), 0, vim.schedule_wrap(function()
    stop_timer(s)
    local mode = api.nvim_get_mode().mode
    if api.nvim_get_current_buf() == bufnr and (mode == 'n' or mode == 'i') then
      M.request(bufnr)
    end
  end))
end

-- -- jump and accept ----------------------------------------------------------------------

--- The buffer, its shown suggestion and the client, or nil when none is shown.
local function shown(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  local s = M.state[bufnr]
  local client = client_of(bufnr)
  if not s or not s.edits or not client then
    return nil
  end
  return bufnr, s, client
end

--- Move the cursor to the start of the suggested edit.
function M.jump(bufnr)
  local s, client
  bufnr, s, client = shown(bufnr)
  if not bufnr then
    return false
  end
  local row, col = to_bytes(bufnr, s.edits[1].range.start, client.offset_encoding)
  api.nvim_win_set_cursor(0, { row + 1, col })
  return true
end

--- Apply the suggested edit (all its parts) and tell the server.
function M.accept(bufnr)
  local s, client
  bufnr, s, client = shown(bufnr)
  if not bufnr then
    return false
  end
  if version(bufnr) ~= s.version then
    M.dismiss(bufnr, 'rejected')
    return false
  end
  local edits, command = s.edits, s.command
  s.edits, s.version, s.command = nil, nil, nil
  api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  local text_edits = {}
  for _, edit in ipairs(edits) do
    table.insert(text_edits, { range = edit.range, newText = edit.text })
  end
  vim.lsp.util.apply_text_edits(text_edits, bufnr, client.offset_encoding)
  if command then
    util.exec_cmd(client, command, bufnr)
  end
  return true
end

-- -- attach -------------------------------------------------------------------------------

local function set_highlights()
  api.nvim_set_hl(0, 'FlashlsNextEditDelete', { link = 'DiffDelete', default = true })
  api.nvim_set_hl(0, 'FlashlsNextEditAdd', { link = 'DiffAdd', default = true })
end

local function map_keys(bufnr, keys)
  local function map(modes, lhs, fn, desc)
    if lhs then
      vim.keymap.set(modes, lhs, function()
        return fn(bufnr) and '' or vim.keycode(lhs)
      end, { buffer = bufnr, expr = true, silent = true, desc = desc })
    end
  end
  map('n', keys.next_edit_accept, function(b)
    return M.visible(b) and vim.schedule(function() M.accept(b) end) == nil
  end, 'flashls: accept the next edit')
  map('i', keys.next_edit_accept_insert, function(b)
    return M.visible(b) and vim.schedule(function() M.accept(b) end) == nil
  end, 'flashls: accept the next edit')
  map({ 'n', 'i' }, keys.next_edit_jump, function(b)
    return M.visible(b) and vim.schedule(function() M.jump(b) end) == nil
  end, 'flashls: jump to the next edit')
  map('n', keys.next_edit_dismiss, function(b)
    return M.dismiss(b, 'rejected')
  end, 'flashls: dismiss the next edit')
end

--- Start next edit suggestions in `bufnr` (the server must advertise them).
function M.attach(bufnr, client, keys)
  local caps = client.server_capabilities or {}
  if not vim.tbl_get(caps, 'experimental', 'nextEditSuggestions') then
    return false
  end
  set_highlights()
  M.state[bufnr] = { client_id = client.id }
  local group = api.nvim_create_augroup('flashls.nextedit.' .. bufnr, { clear = true })
  api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
    group = group, buffer = bufnr,
    callback = function()
      M.dismiss(bufnr, 'rejected') -- typing (anywhere) replaces the suggestion
      schedule(bufnr)
    end,
  })
  api.nvim_create_autocmd('BufLeave', {
    group = group, buffer = bufnr,
    callback = function()
      M.dismiss(bufnr, 'rejected')
    end,
  })
  api.nvim_create_autocmd({ 'BufUnload', 'LspDetach' }, {
    group = group, buffer = bufnr,
    callback = function()
      local s = M.state[bufnr]
      if s then
        stop_timer(s)
      end
      M.state[bufnr] = nil
      pcall(api.nvim_del_augroup_by_id, group)
    end,
  })
  map_keys(bufnr, keys or {})
  return true
end

return M
