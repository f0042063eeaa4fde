--- :checkhealth flashls — the binary, the API key and connectivity.
local M = {}

local health = vim.health

--- Run `cmd` with `args`; returns the vim.system result or nil when it cannot start.
local function run(cmd, args, env, timeout_ms)
  local argv = vim.list_extend(vim.deepcopy(cmd), args)
  local ok, proc = pcall(vim.system, argv, { text = true, env = env, timeout = timeout_ms })
  if not ok then
    return nil, proc
  end
  return proc:wait()
end

local function check_version()
  if vim.fn.has('nvim-0.12') == 1 then
    health.ok('Neovim 0.12+: native inline completion (vim.lsp.inline_completion)')
  elseif vim.fn.has('nvim-0.10') == 1 then
    health.ok('Neovim 0.10/0.11: flashls draws ghost text itself')
  else
    health.error('flashls needs Neovim 0.10 or newer')
  end
end

local function check_binary(cmd)
  local exe = cmd[1]
  if vim.fn.executable(exe) ~= 1 then
    health.error(('`%s` is not executable'):format(exe), {
      'Install the server: pip install flashls',
      "Or point the plugin at it: require('flashls').setup({ cmd = { '/path/to/flashls' } })",
    })
    return false
  end
  local result, err = run(cmd, { '--version' }, nil, 15000)
  if not result then
    health.error(('could not run %s: %s'):format(table.concat(cmd, ' '), tostring(err)))
    return false
  end
  local out = vim.trim((result.stdout or '') .. (result.stderr or ''))
  if result.code ~= 0 or not out:match('flashls') then
    health.error(('%s --version failed (exit %d): %s'):format(table.concat(cmd, ' '), result.code, out), {
      'Install or upgrade the server: pip install -U flashls',
    })
    return false
  end
  health.ok(('%s (%s)'):format(out, table.concat(cmd, ' ')))
  return true
end

local function check_key(settings)
  local key = type(settings.apiKey) == 'string' and settings.apiKey or ''
  if key ~= '' then
    health.ok('DeepSeek API key: set in settings (apiKey)')
  elseif (vim.env.DEEPSEEK_API_KEY or '') ~= '' then
    health.ok('DeepSeek API key: from $DEEPSEEK_API_KEY')
  else
    health.warn('no DeepSeek API key', {
      'export DEEPSEEK_API_KEY=... before starting Neovim',
      "or setup({ settings = { apiKey = '...' } })",
    })
  end
end

--- Report `flashls doctor --json` output:
--- { ok, baseUrl, model, checks = { { name, status = ok|fail|warn|skip, detail, fix } } }.
function M.report_doctor(data)
  if type(data) ~= 'table' or type(data.checks) ~= 'table' then
    health.warn('flashls doctor printed no checks')
    return
  end
  if data.baseUrl then
    health.info(('endpoint %s, model %s'):format(tostring(data.baseUrl), tostring(data.model or '?')))
  end
  for _, c in ipairs(data.checks) do
    local text = ('%s: %s'):format(tostring(c.name or '?'), tostring(c.detail or ''))
    local advice = (type(c.fix) == 'string' and c.fix ~= '') and { c.fix } or nil
    if c.status == 'ok' then
      health.ok(text)
    elseif c.status == 'warn' then
      health.warn(text, advice)
    elseif c.status == 'skip' then
      health.info(text .. ' (skipped)')
    else
      health.error(text, advice)
    end
  end
end

local function check_connectivity(cmd, settings)
  local env = {}
  if type(settings.apiKey) == 'string' and settings.apiKey ~= '' then
    env.DEEPSEEK_API_KEY = settings.apiKey -- through the environment, never argv
  end
  local args = { 'doctor', '--json' }
  if type(settings.baseUrl) == 'string' and settings.baseUrl ~= '' then
    vim.list_extend(args, { '--base-url', settings.baseUrl })
  end
  if type(settings.model) == 'string' and settings.model ~= '' then
    vim.list_extend(args, { '--model', settings.model })
  end
  local result = run(cmd, args, env, 30000)
  if not result then
    return
  end
  local err = (result.stderr or '')
  if result.code ~= 0 and (err:match('invalid choice') or err:match('unrecognized arguments')) then
    health.info('this flashls has no `doctor` command; connectivity not checked')
    return
  end
  local ok, data = pcall(vim.json.decode, result.stdout or '', { luanil = { object = true, array = true } })
  if not ok then
    health.error(('flashls doctor failed (exit %d): %s'):format(result.code, vim.trim(err)))
    return
  end
  M.report_doctor(data)
end

local function check_clients()
  local clients = vim.lsp.get_clients({ name = 'flashls' })
  if #clients == 0 then
    health.info('no flashls client running (open a file to start one)')
    return
  end
  local status = require('flashls.status')
  for _, client in ipairs(clients) do
    health.ok(('client %d running, %d buffer(s), state: %s'):format(
      client.id, vim.tbl_count(client.attached_buffers or {}), status.current.state))
  end
end

function M.check()
  local flashls = require('flashls')
  local cmd = flashls.config.cmd or flashls.default_cmd()
  local settings = flashls.config.settings or {}
  health.start('flashls: editor')
  check_version()
  health.info('inline completion UI: ' .. (flashls.engine() or 'off'))
  health.start('flashls: server')
  local found = check_binary(cmd)
  check_key(settings)
  if found then
    health.start('flashls: connectivity')
    check_connectivity(cmd, settings)
  end
  health.start('flashls: clients')
  check_clients()
end

return M
