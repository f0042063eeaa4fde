--- Small helpers that hide differences between Neovim 0.10, 0.11 and 0.12.
local M = {}

M.has_config = vim.lsp.config ~= nil and vim.lsp.enable ~= nil -- 0.11+
M.has_native_inline = vim.lsp.inline_completion ~= nil -- 0.12+

--- `client:request` (0.11+) or `client.request` (0.10).
---@return boolean ok, integer? request_id
function M.request(client, method, params, handler, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.notify(client, method, params)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

function M.cancel(client, request_id)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:cancel_request(request_id)
  end
  return client.cancel_request(request_id)
end

--- Run an LSP `Command` (e.g. an inline item's `flashls.accepted`) on the server.
function M.exec_cmd(client, command, bufnr)
  if vim.fn.has('nvim-0.11') == 1 and client.exec_cmd then
    return client:exec_cmd(command, { bufnr = bufnr })
  end
  return M.request(client, 'workspace/executeCommand', {
    command = command.command,
    arguments = command.arguments,
  }, function() end, bufnr)
end

--- `workspace/executeCommand` of one of our commands; a failure is told once, by
--- name; `on_result(result)` (optional) on success.
function M.execute_command(client, command, arguments, bufnr, on_result)
  return M.request(client, 'workspace/executeCommand', { command = command, arguments = arguments },
    function(err, result)
      if err then
        vim.notify(('flashls: %s failed: %s'):format(command, err.message or vim.inspect(err)),
          vim.log.levels.ERROR)
        return
      end
      if on_result then
        on_result(result)
      end
    end, bufnr)
end

--- The flashls client attached to `bufnr` (default current), or nil.
function M.client(bufnr)
  local clients = vim.lsp.get_clients({ name = 'flashls', bufnr = bufnr or 0 })
  return clients[1]
end

--- Deep-set a dotted camelCase key ("completion.enable") in a nested table.
function M.set_path(tbl, key, value)
  local parts = vim.split(key, '.', { plain = true })
  local node = tbl
  for i = 1, #parts - 1 do
    if type(node[parts[i]]) ~= 'table' then
      node[parts[i]] = {}
    end
    node = node[parts[i]]
  end
  node[parts[#parts]] = value
  return tbl
end

function M.get_path(tbl, key)
  local node = tbl
  for _, part in ipairs(vim.split(key, '.', { plain = true })) do
    if type(node) ~= 'table' then
      return nil
    end
    node = node[part]
  end
  return node
end

--- LSP position of byte column `col` (0-based) on 0-based `row`.
function M.position(bufnr, row, col, encoding)
  local line = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
  col = math.max(0, math.min(col, #line))
  local character = col == 0 and 0 or vim.lsp.util.character_offset(bufnr, row, col, encoding)
  return { line = row, character = character }
end

--- Byte column of LSP `character` on `line` (clamped to the line).
function M.byteindex(line, character, encoding)
  local ok, col
  if vim.fn.has('nvim-0.11') == 1 then
    ok, col = pcall(vim.str_byteindex, line, encoding, character, false)
  else
    ok, col = pcall(vim.lsp.util._str_byteindex_enc, line, character, encoding)
  end
  if not ok or type(col) ~= 'number' then
    return #line
  end
  return math.min(col, #line)
end

--- The byte just after the character that starts at byte `col` (0-based) of `line`.
function M.char_end(line, col)
  if col >= #line then
    return #line
  end
  return col + 1 + vim.str_utf_end(line, col + 1)
end

--- LSP range for a command's range: a charwise or linewise visual selection, a
--- `:N,M` line range, or the cursor's line.
---@param opts { range: integer, line1: integer, line2: integer }
function M.command_range(bufnr, opts, encoding)
  local api = vim.api
  local mode = vim.fn.visualmode()
  local vstart = api.nvim_buf_get_mark(bufnr, '<')
  local vend = api.nvim_buf_get_mark(bufnr, '>')
  local from_visual = opts.range == 2 and vstart[1] == opts.line1 and vend[1] == opts.line2
  if from_visual and mode == 'v' then
    local last = api.nvim_buf_get_lines(bufnr, vend[1] - 1, vend[1], false)[1] or ''
    return {
      start = M.position(bufnr, vstart[1] - 1, vstart[2], encoding),
      ['end'] = M.position(bufnr, vend[1] - 1, M.char_end(last, vend[2]), encoding),
    }
  end
  local first, final = opts.line1, opts.line2
  if opts.range == 0 then
    first = api.nvim_win_get_cursor(0)[1]
    final = first
  end
  local last = api.nvim_buf_get_lines(bufnr, final - 1, final, false)[1] or ''
  return {
    start = { line = first - 1, character = 0 },
    ['end'] = M.position(bufnr, final - 1, #last, encoding),
  }
end

--- Stop and close a libuv timer (nil is fine); returns nil to assign back.
function M.close_timer(timer)
  if timer then
    timer:stop()
    if not timer:is_closing() then
      timer:close()
    end
  end
  return nil
end

return M
