--- State from the server's `flashls/status` notification, for statuslines.
local M = {}

---@class flashls.Status
---@field state 'ready'|'thinking'|'error'|'disabled'|'starting'|'stopped'
---@field message? string
---@field lastLatencyMs? number
---@field sessionCostUsd? number

---@type flashls.Status
M.current = { state = 'stopped' }

local KNOWN = { ready = true, thinking = true, error = true, disabled = true }

local ICONS = {
  ready = '⚡',
  thinking = '…',
  error = '!',
  disabled = '○',
  starting = '…',
  stopped = '×',
}

--- Validate an untrusted payload; anything malformed becomes an error state.
---@return flashls.Status
function M.parse(raw)
  if type(raw) ~= 'table' then
    return { state = 'error', message = 'malformed flashls/status notification' }
  end
  if not KNOWN[raw.state] then
    return { state = 'error', message = ('unknown state %s'):format(vim.inspect(raw.state)) }
  end
  local out = { state = raw.state }
  if type(raw.message) == 'string' and raw.message ~= '' then
    out.message = raw.message
  end
  for _, key in ipairs({ 'lastLatencyMs', 'sessionCostUsd' }) do
    local v = raw[key]
    if type(v) == 'number' and v == v and v >= 0 and v ~= math.huge then
      out[key] = v
    end
  end
  return out
end

function M.format_latency(ms)
  if ms < 1000 then
    return ('%d ms'):format(math.floor(ms + 0.5))
  end
  return ('%.1f s'):format(ms / 1000)
end

function M.format_cost(usd)
  if usd == 0 then
    return '$0'
  elseif usd < 0.01 then
    return ('$%.4f'):format(usd)
  end
  return ('$%.2f'):format(usd)
end

--- Short text for a statusline: "⚡ flashls 312 ms".
---@param status? flashls.Status
function M.statusline(status)
  status = status or M.current
  local text = ('%s flashls'):format(ICONS[status.state] or '?')
  if status.state == 'ready' and status.lastLatencyMs then
    text = text .. ' ' .. M.format_latency(status.lastLatencyMs)
  elseif status.state ~= 'ready' then
    text = text .. ' ' .. status.state
  end
  return text
end

--- Every fact, one per line, for `:FlashlsStatus`.
---@param status? flashls.Status
function M.describe(status)
  status = status or M.current
  local lines = { 'flashls: ' .. status.state }
  if status.message then
    table.insert(lines, status.message)
  end
  if status.lastLatencyMs then
    table.insert(lines, 'last completion: ' .. M.format_latency(status.lastLatencyMs))
  end
  if status.sessionCostUsd then
    table.insert(lines, 'this session: ' .. M.format_cost(status.sessionCostUsd))
  end
  return lines
end

--- Record a new status and let statuslines know (`User FlashlsStatus`).
function M.set(status)
  M.current = status
  vim.schedule(function()
    pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'FlashlsStatus', modeline = false, data = status })
    pcall(vim.cmd.redrawstatus)
  end)
end

--- `flashls/status` notification handler.
function M.handler(_, result)
  M.set(M.parse(result))
end

return M
