--- Accepting suggestions: the next word or line only (partial accept), and an accept
--- key that leaves completion menus alone (`suggestion_only`).
local util = require('flashls.util')

local api = vim.api
local M = {}

M.PARTIAL = 'textDocument/didPartiallyAcceptCompletion'

--- The next word of `text`: leading blanks, then a word or a run of punctuation;
--- a line break alone is a step of its own (as VS Code's acceptNextWord).
function M.next_word(text)
  if text:sub(1, 1) == '\n' then
    return '\n'
  end
  local blanks = text:match('^[ \t]*')
  local after = text:sub(#blanks + 1)
  local word = after:match('^[%w_]+') or after:match('^[^%w_%s]+') or ''
  return blanks .. word
end

--- The rest of the current line, with its line break.
function M.next_line(text)
  local nl = text:find('\n', 1, true)
  return nl and text:sub(1, nl) or text
end

M.steps = { word = M.next_word, line = M.next_line }

--- UTF-16 code units of a UTF-8 string (the LSP's default length unit).
function M.utf16_len(s)
  local units = 0
  for i = 1, #s do
    local b = s:byte(i)
    if b < 0x80 or b >= 0xC0 then
      units = units + (b >= 0xF0 and 2 or 1)
    end
  end
  return units
end

--- Is a completion menu open with an item selected (built-in popup, nvim-cmp,
--- blink.cmp)? Then the accept key belongs to the menu.
function M.menu_selected()
  if vim.fn.pumvisible() == 1 and vim.fn.complete_info({ 'selected' }).selected ~= -1 then
    return true
  end
  local cmp = package.loaded['cmp']
  if type(cmp) == 'table' and cmp.visible and cmp.visible() and cmp.get_selected_entry
      and cmp.get_selected_entry() ~= nil then
    return true
  end
  local blink = package.loaded['blink.cmp']
  if type(blink) == 'table' then
    local visible = blink.is_menu_visible or blink.is_visible
    if visible and visible() and blink.get_selected_item and blink.get_selected_item() ~= nil then
      return true
    end
  end
  return false
end

-- accepted prefix per suggestion id, so the count stays cumulative when the rest of
-- a suggestion comes back as a new (cached) item
local accepted = {}

local function suggestion_id(item)
  local args = item and item.command and item.command.arguments
  return args and args[1] and tostring(args[1]) or nil
end

--- Tell the server how much of `item` (whose text is `text`) the user kept.
function M.report_partial(client, item, text, kept, bufnr)
  local id = suggestion_id(item)
  if not client or not id then
    return
  end
  local before = accepted[id] or ''
  accepted[id] = before .. kept
  util.notify(client, M.PARTIAL, {
    item = { insertText = before .. text, command = item.command },
    acceptedLength = M.utf16_len(accepted[id]),
  })
end

local function insert_at_cursor(bufnr, piece)
  local win = vim.fn.bufwinid(bufnr)
  local cursor = api.nvim_win_get_cursor(win)
  local row, col = cursor[1] - 1, cursor[2]
  local lines = vim.split(piece, '\n', { plain = true })
  api.nvim_buf_set_text(bufnr, row, col, row, col, lines)
  local last_row = row + #lines - 1
  local last_col = (#lines == 1 and col or 0) + #lines[#lines]
  api.nvim_win_set_cursor(win, { last_row + 1, last_col })
  return last_row, last_col
end

--- Native path (0.12): accept the next `step` of the shown item through
--- `vim.lsp.inline_completion.get({ on_accept })`; false when none is shown.
function M.native_part(step, bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  return vim.lsp.inline_completion.get({
    bufnr = bufnr,
    on_accept = function(item)
      local text = type(item.insert_text) == 'string' and item.insert_text
        or (item.insert_text and item.insert_text.value) or ''
      local client = vim.lsp.get_client_by_id(item.client_id)
      local win = vim.fn.bufwinid(bufnr)
      local cursor = api.nvim_win_get_cursor(win)
      local row, col = cursor[1] - 1, cursor[2]
      local typed = ''
      local r = item.range
      if r and r.start.row == row and r.start.col <= col then
        local line = api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
        typed = line:sub(r.start.col + 1, col)
        if text:sub(1, #typed) ~= typed then
          typed = ''
        end
      end
      local rest = text:sub(#typed + 1)
      local piece = step(rest)
      if piece == '' then
        return
      end
      insert_at_cursor(bufnr, piece)
      if piece == rest then -- that was all of it: an ordinary accept
        if item.command and client then
          util.exec_cmd(client, item.command, bufnr)
        end
        return
      end
      M.report_partial(client, item, text, typed .. piece, bufnr)
    end,
  })
end

--- Plugin ghost-text path (0.10/0.11).
function M.plugin_part(step, bufnr)
  return require('flashls.ghost').accept_part(bufnr or api.nvim_get_current_buf(), step)
end

--- Accept the next word/line ('word' | 'line') with whichever UI runs.
function M.part(kind, bufnr)
  local step = M.steps[kind] or kind
  if require('flashls').engine() == 'native' then
    return M.native_part(step, bufnr)
  end
  return M.plugin_part(step, bufnr)
end

--- Accept the whole shown suggestion; false when none is shown.
function M.whole(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  if require('flashls').engine() == 'native' then
    return vim.lsp.inline_completion.get({ bufnr = bufnr })
  end
  return require('flashls.ghost').accept(bufnr)
end

--- An `expr` mapping function that accepts a shown suggestion, and otherwise (no
--- suggestion, or a completion menu item selected) returns `fallback`: a key
--- sequence, or a function returning one.
---   vim.keymap.set('i', '<Tab>', require('flashls').suggestion_only('<Tab>'), { expr = true })
function M.suggestion_only(fallback, kind)
  return function()
    local function fall()
      if type(fallback) == 'function' then
        return fallback() or ''
      end
      return fallback or ''
    end
    if M.menu_selected() then
      return fall()
    end
    local done
    if kind then
      done = M.part(kind)
    else
      done = M.whole()
    end
    if done then
      return ''
    end
    return fall()
  end
end

return M
