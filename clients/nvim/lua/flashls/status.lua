--- State from the server's `flashls/status` notification, for statuslines.
local M = {}

---@class flashls.Status
---@field state 'ready'|'thinking'|'error'|'disabled'|'starting'|'stopped'
---@field message? string
---@field lastLatencyMs? number
---@field sessionCostUsd? number
---@field reason? { code: string, message: string, uri?: string } why nothing is offered

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
  local reason = raw.reason
  if type(reason) == 'table' and type(reason.code) == 'string' and reason.code ~= '' then
    out.reason = {
      code = reason.code,
      message = type(reason.message) == 'string' and reason.message or reason.code,
      uri = type(reason.uri) == 'string' and reason.uri or nil,
    }
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

--- Short labels for `reason.code`.
M.REASONS = {
  language_disabled = 'off for this language',
  excluded = 'excluded file',
  credential_file = 'credential file',
  outside_workspace = 'outside the workspace',
  too_large = 'file too large',
  no_api_key = 'no API key',
  backing_off = 'backing off',
  offline = 'offline',
}

--- Whether the status' reason is about `uri` (a reason without a uri is global).
function M.reason_for(status, uri)
  local reason = status and status.reason
  if not reason then
    return nil
  end
  if reason.uri and uri and reason.uri ~= uri then
    return nil
  end
  return reason
end

--- Short text for a statusline: "⚡ flashls 312 ms", "○ flashls: no API key".
---@param status? flashls.Status
---@param uri? string the current buffer: a reason about another file is not shown
function M.statusline(status, uri)
  status = status or M.current
  local reason = M.reason_for(status, uri)
  if reason then
    return ('%s flashls: %s'):format(ICONS[status.state] or '?', M.REASONS[reason.code] or reason.code)
  end
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
  if status.message and not (status.reason and status.reason.message == status.message) then
    table.insert(lines, status.message)
  end
  if status.reason then
    local where = status.reason.uri and (' (%s)'):format(vim.uri_to_fname(status.reason.uri)) or ''
    table.insert(lines, ('nothing offered: %s%s'):format(status.reason.message, where))
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
