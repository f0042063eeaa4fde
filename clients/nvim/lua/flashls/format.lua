--- Markdown for command results (pure: unit-tested headless).
local M = {}

--- A code fence longer than any backtick run inside `text`.
function M.fence(text, info)
  local longest = 0
  for run in text:gmatch('`+') do
    longest = math.max(longest, #run)
  end
  local ticks = ('`'):rep(math.max(3, longest + 1))
  local body = text:sub(-1) == '\n' and text or (text .. '\n')
  return ticks .. (info or '') .. '\n' .. body .. ticks
end

local function is_scalar(v)
  local t = type(v)
  return t == 'string' or t == 'number' or t == 'boolean' or v == vim.NIL
end

local function block(value)
  if type(value) == 'string' then
    return M.fence(value, 'text')
  end
  return M.fence(vim.json.encode(value == nil and vim.NIL or value), 'json')
end

local function tostr(v)
  return v == vim.NIL and 'null' or tostring(v)
end

--- Markdown for `flashls.showContext`: facts, breakdown, exact prompt.
---@param result table|nil
---@param where string "file:line:col"
---@return string[] lines
function M.context(result, where)
  local out = { '# flashls context at ' .. where, '' }
  if type(result) ~= 'table' or vim.islist(result) then
    table.insert(out, '*flashls returned no context.*')
    return out
  end
  local shown = { prompt = true, suffix = true, messages = true, breakdown = true }
  local keys = vim.tbl_keys(result)
  table.sort(keys)
  local rows = {}
  for _, k in ipairs(keys) do
    if not shown[k] and is_scalar(result[k]) then
      table.insert(rows, ('| %s | %s |'):format(k, tostr(result[k]):gsub('|', '\\|')))
    end
  end
  if #rows > 0 then
    vim.list_extend(out, { '| | |', '| --- | --- |' })
    vim.list_extend(out, rows)
    table.insert(out, '')
  end
  local parts = {}
  if result.breakdown ~= nil then
    table.insert(parts, { '## Breakdown', block(result.breakdown) })
  end
  if result.prompt ~= nil then
    table.insert(parts, { '## Prompt (before the cursor)', block(result.prompt) })
  end
  if result.suffix ~= nil then
    table.insert(parts, { '## Suffix (after the cursor)', block(result.suffix) })
  end
  if type(result.messages) == 'table' then
    table.insert(parts, { '## Messages' })
    for _, m in ipairs(result.messages) do
      table.insert(parts, { '### ' .. tostr(m.role or 'message'), block(m.content) })
    end
  end
  for _, part in ipairs(parts) do
    for _, chunk in ipairs(part) do
      vim.list_extend(out, vim.split(chunk, '\n', { plain = true }))
      table.insert(out, '')
    end
  end
  while out[#out] == '' do
    table.remove(out)
  end
  return out
end

--- The `markdown` field of a result as lines; a note when absent.
function M.markdown(result, what)
  if type(result) == 'table' and type(result.markdown) == 'string' then
    return vim.split(result.markdown, '\n', { plain = true })
  end
  return { ('*flashls returned no %s.*'):format(what) }
end

return M
