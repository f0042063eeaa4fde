--- flashls for Neovim: AI inline completions and code actions from the flashls
--- language server (DeepSeek Flash).
---
--- require('flashls').setup({ settings = { ... }, keymaps = { ... }, cmd = { ... } })
local util = require('flashls.util')
local status = require('flashls.status')
local format = require('flashls.format')

local api = vim.api
local M = {}

---@class flashls.Config
M.defaults = {
  --- Command that starts the server. Default: `flashls` on PATH, else `python3 -m flashls`.
  cmd = nil, ---@type string[]?
  --- Filetypes to attach to; nil attaches to every file buffer.
  filetypes = nil, ---@type string[]?
  root_markers = { '.git', 'pyproject.toml', 'package.json', 'go.mod', 'Cargo.toml' },
  --- The `flashls` settings object (same keys as VS Code's `flashls.*`), e.g.
  --- { model = 'deepseek-flash', completion = { maxTokens = 64 } }.
  settings = {},
  --- 'auto': native `vim.lsp.inline_completion` on 0.12+, our ghost text before;
  --- 'native' or 'plugin' to force one; false: no inline completion UI.
  engine = 'auto',
  --- Show next edit suggestions (false: leave them to another renderer, e.g.
  --- copilot-lsp; the server still answers textDocument/copilotInlineEdit).
  next_edit = true,
  --- Insert-mode keys; set one to false to leave it unmapped. `accept` falls back
  --- to its own key when no suggestion is shown or a completion menu item is
  --- selected (built-in popup, nvim-cmp, blink.cmp).
  keymaps = {
    accept = '<Tab>',
    accept_word = '<M-Right>',
    accept_line = '<M-C-Right>',
    next = '<M-]>',
    prev = '<M-[>',
    dismiss = '<C-]>',
    --- Next edit suggestions (the edit after the one you made; see
    --- docs/how-it-works/next-edit.md): accept in Normal / Insert mode, jump, dismiss.
    next_edit_accept = '<Tab>',
    next_edit_accept_insert = '<M-CR>',
    next_edit_jump = '<M-n>',
    next_edit_dismiss = '<Esc>',
  },
}

---@type flashls.Config
M.config = vim.deepcopy(M.defaults)

--- Which inline completion UI runs: 'native', 'plugin' or nil (none).
function M.engine()
  local engine = M.config.engine
  if engine == false then
    return nil
  end
  if engine == 'native' or (engine == 'auto' and util.has_native_inline) then
    if not util.has_native_inline then
      vim.notify_once('flashls: engine = "native" needs Neovim 0.12; using ghost text', vim.log.levels.WARN)
      return 'plugin'
    end
    return 'native'
  end
  return 'plugin'
end

function M.default_cmd()
  if vim.fn.executable('flashls') == 1 then
    return { 'flashls' }
  end
  for _, python in ipairs({ 'python3', 'python' }) do
    if vim.fn.executable(python) == 1 then
      return { python, '-m', 'flashls' }
    end
  end
  return { 'flashls' }
end

-- -- completion keymaps ------------------------------------------------------------

local function set_keymaps(bufnr)
  local keys = M.config.keymaps or {}
  local engine = M.engine()
  if not engine then
    return
  end
  local ghost = require('flashls.ghost')
  -- Expr mappings: returning the lhs itself (keycodes replaced by Neovim) is the
  -- fallback when there is no suggestion.
  local function map(lhs, rhs, desc)
    if lhs then
      vim.keymap.set('i', lhs, rhs, { buffer = bufnr, expr = true, silent = true, desc = desc })
    end
  end
  local accept = require('flashls.accept')
  map(keys.accept, accept.suggestion_only(keys.accept), 'flashls: accept suggestion')
  map(keys.accept_word, accept.suggestion_only(keys.accept_word, 'word'),
    'flashls: accept the next word of the suggestion')
  map(keys.accept_line, accept.suggestion_only(keys.accept_line, 'line'),
    'flashls: accept the next line of the suggestion')
  if engine == 'native' then
    local ic = vim.lsp.inline_completion
    map(keys.next, function()
      ic.select({ count = 1 })
      return ''
    end, 'flashls: next suggestion')
    map(keys.prev, function()
      ic.select({ count = -1 })
      return ''
    end, 'flashls: previous suggestion')
    map(keys.dismiss, function()
      -- Accepting with a handler that does nothing drops the suggestion.
      return ic.get({ on_accept = function() end }) and '' or keys.dismiss
    end, 'flashls: dismiss suggestion')
  else
    map(keys.next, function()
      ghost.next(bufnr, 1)
      return ''
    end, 'flashls: next suggestion')
    map(keys.prev, function()
      ghost.next(bufnr, -1)
      return ''
    end, 'flashls: previous suggestion')
    map(keys.dismiss, function()
      local s = ghost.state[bufnr]
      if s and s.text then
        ghost.dismiss(bufnr)
        return ''
      end
      return keys.dismiss
    end, 'flashls: dismiss suggestion')
  end
end

local function on_attach(client, bufnr)
  local engine = M.engine()
  if engine == 'plugin' then
    require('flashls.ghost').attach(bufnr, client)
  end
  set_keymaps(bufnr)
  if M.config.next_edit ~= false then
    require('flashls.nextedit').attach(bufnr, client, M.config.keymaps)
  end
end

-- -- setup ------------------------------------------------------------------------

--- The settings as a JSON object: an empty Lua table would be sent as `[]`.
function M.settings_object()
  local function fix(value, key)
    if type(value) ~= 'table' or key == 'exclude' then
      return value
    end
    if vim.tbl_isempty(value) then
      return vim.empty_dict()
    end
    local out = {}
    for k, v in pairs(value) do
      out[k] = fix(v, k)
    end
    return out
  end
  return fix(vim.deepcopy(M.config.settings or {}), nil)
end

local function lsp_config()
  return {
    cmd = M.config.cmd or M.default_cmd(),
    filetypes = M.config.filetypes,
    root_markers = M.config.root_markers,
    settings = { flashls = M.settings_object() },
    -- Also at initialize, so not a single request goes out with default settings.
    init_options = { flashls = M.settings_object() },
    handlers = { ['flashls/status'] = status.handler },
    on_attach = on_attach,
    on_exit = function()
      status.set({ state = 'stopped' })
    end,
  }
end

--- Start flashls for a buffer on Neovim 0.10 (no vim.lsp.config there).
local function start_legacy(bufnr)
  if vim.bo[bufnr].buftype ~= '' or api.nvim_buf_get_name(bufnr) == '' then
    return
  end
  local cfg = lsp_config()
  if cfg.filetypes and not vim.tbl_contains(cfg.filetypes, vim.bo[bufnr].filetype) then
    return
  end
  cfg.name = 'flashls'
  cfg.root_dir = vim.fs.root(bufnr, cfg.root_markers) or vim.fn.getcwd()
  cfg.filetypes, cfg.root_markers = nil, nil
  vim.lsp.start(cfg, { bufnr = bufnr })
end

---@param opts? flashls.Config
function M.setup(opts)
  opts = opts or {}
  vim.validate('opts', opts, 'table')
  local config = vim.deepcopy(M.defaults)
  -- Lists and the settings object replace the defaults; keymaps merge key by key.
  for _, key in ipairs({ 'cmd', 'filetypes', 'root_markers', 'settings', 'engine', 'next_edit' }) do
    if opts[key] ~= nil then
      config[key] = vim.deepcopy(opts[key])
    end
  end
  if opts.keymaps == false then
    config.keymaps = {}
  elseif type(opts.keymaps) == 'table' then
    config.keymaps = vim.tbl_extend('force', config.keymaps, opts.keymaps)
  end
  M.config = config
  status.set({ state = 'starting' })
  -- Code actions' commands: "Rewrite…" asks for its instruction, "Explain" shows a float.
  require('flashls.actions').register()
  if M.engine() == 'native' then
    vim.lsp.inline_completion.enable(true)
  end
  if util.has_config then
    vim.lsp.config('flashls', lsp_config())
    vim.lsp.enable('flashls')
  else
    local group = api.nvim_create_augroup('flashls.start', { clear = true })
    api.nvim_create_autocmd('FileType', {
      group = group,
      callback = function(args)
        start_legacy(args.buf)
      end,
    })
    for _, bufnr in ipairs(api.nvim_list_bufs()) do
      if api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].filetype ~= '' then
        start_legacy(bufnr)
      end
    end
  end
end

-- -- settings -----------------------------------------------------------------------

--- Change one setting ("completion.enable", false) for running servers and the
--- next ones started; the server sees `workspace/didChangeConfiguration`.
function M.set_setting(key, value)
  util.set_path(M.config.settings, key, value)
  for _, client in ipairs(vim.lsp.get_clients({ name = 'flashls' })) do
    client.settings = client.settings or {}
    client.settings.flashls = M.settings_object()
    util.notify(client, 'workspace/didChangeConfiguration', { settings = client.settings })
  end
  if util.has_config then
    vim.lsp.config('flashls', {
      settings = { flashls = M.settings_object() },
      init_options = { flashls = M.settings_object() },
    })
  end
end

--- An `expr` insert-mode mapping that accepts the shown suggestion (`kind`: nil for
--- all of it, 'word' or 'line'), else returns `fallback` (keys, or a function).
function M.suggestion_only(fallback, kind)
  return require('flashls.accept').suggestion_only(fallback, kind)
end

--- The language id the server sees for a buffer (Neovim sends the filetype).
function M.language_of(bufnr)
  return vim.bo[bufnr or api.nvim_get_current_buf()].filetype
end

--- Flip completions for one language (`completion.languages`), by default the
--- current buffer's.
function M.toggle_language(language)
  language = language or M.language_of()
  if language == nil or language == '' then
    vim.notify('flashls: this buffer has no filetype to toggle', vim.log.levels.WARN)
    return nil
  end
  local languages = vim.deepcopy(util.get_path(M.config.settings, 'completion.languages') or {})
  local default = languages['*']
  local current = languages[language]
  if current == nil then
    current = default ~= false
  end
  languages[language] = not current
  if languages['*'] == nil then
    languages['*'] = true
  end
  M.set_setting('completion.languages', languages)
  if current and M.engine() == 'plugin' then
    require('flashls.ghost').dismiss(api.nvim_get_current_buf())
  end
  vim.notify(('flashls: inline completions %s for %s'):format(current and 'off' or 'on', language))
  return not current
end

--- Flip `completion.enable`.
function M.toggle()
  local current = util.get_path(M.config.settings, 'completion.enable')
  local enabled = current == false
  M.set_setting('completion.enable', enabled)
  if not enabled and M.engine() == 'plugin' then
    require('flashls.ghost').dismiss(api.nvim_get_current_buf())
  end
  vim.notify(('flashls: inline completions %s'):format(enabled and 'on' or 'off'))
  return enabled
end

-- -- server commands ----------------------------------------------------------------

local function need_client(bufnr)
  local client = util.client(bufnr)
  if not client then
    vim.notify('flashls: no flashls server is attached to this buffer (see :checkhealth flashls)',
      vim.log.levels.ERROR)
  end
  return client
end

--- `workspace/executeCommand` with a flashls command; `on_result(result)` on success.
function M.execute(command, argument, on_result, bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  local client = need_client(bufnr)
  if not client then
    return false
  end
  util.execute_command(client, command, argument == nil and {} or { argument }, bufnr, on_result)
  return true
end

local function range_args(opts)
  local bufnr = api.nvim_get_current_buf()
  local client = need_client(bufnr)
  if not client then
    return nil
  end
  return {
    uri = vim.uri_from_bufnr(bufnr),
    range = util.command_range(bufnr, opts, client.offset_encoding),
  }, bufnr
end

--- :FlashlsRewrite {instruction}: the server edits the buffer via workspace/applyEdit.
---@param opts { args: string, range: integer, line1: integer, line2: integer }
function M.rewrite(opts)
  local args, bufnr = range_args(opts)
  if not args then
    return
  end
  local function run(instruction)
    instruction = vim.trim(instruction or '')
    if instruction == '' then
      vim.notify('flashls: describe the change, e.g. :FlashlsRewrite add type hints', vim.log.levels.WARN)
      return
    end
    args.instruction = instruction
    M.execute('flashls.rewrite', args, function(result)
      -- {applied, model, failureReason?}; the server itself warns when not applied.
      if type(result) == 'table' and result.applied == true then
        vim.notify(('flashls: rewritten by %s'):format(tostring(result.model or 'the model')))
      end
    end, bufnr)
  end
  if vim.trim(opts.args or '') ~= '' then
    run(opts.args)
  else
    vim.ui.input({ prompt = 'flashls rewrite: ' }, run)
  end
end

--- Show markdown lines in a floating window (focusable, `q` closes).
function M.float(lines, title)
  local buf, win = vim.lsp.util.open_floating_preview(lines, 'markdown', {
    border = 'rounded',
    focus_id = 'flashls',
    max_width = math.max(40, math.floor(vim.o.columns * 0.7)),
    max_height = math.max(10, math.floor(vim.o.lines * 0.7)),
    title = title,
  })
  return buf, win
end

--- The result of `flashls.explain` ({markdown, model, ...}) in a float.
function M.show_explanation(result)
  M.last_float = { M.float(format.markdown(result, 'explanation'), ' flashls: explain ') }
end

--- :FlashlsExplain: explanation of the selection (or line) in a float.
function M.explain(opts)
  local args, bufnr = range_args(opts)
  if not args then
    return
  end
  M.execute('flashls.explain', args, M.show_explanation, bufnr)
end

--- :FlashlsContext: the exact prompt a completion at the cursor would send.
function M.context()
  local bufnr = api.nvim_get_current_buf()
  local client = need_client(bufnr)
  if not client then
    return
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local cursor = api.nvim_win_get_cursor(0)
  local where = ('%s:%d:%d'):format(vim.fn.fnamemodify(api.nvim_buf_get_name(bufnr), ':~:.'),
    cursor[1], cursor[2] + 1)
  M.execute('flashls.showContext', { uri = params.textDocument.uri, position = params.position },
    function(result)
      local lines = format.context(result, where)
      vim.cmd('botright new')
      local buf = api.nvim_get_current_buf()
      vim.bo[buf].buftype = 'nofile'
      vim.bo[buf].bufhidden = 'wipe'
      vim.bo[buf].swapfile = false
      api.nvim_buf_set_lines(buf, 0, -1, false, lines)
      vim.bo[buf].modifiable = false
      vim.bo[buf].filetype = 'markdown'
      pcall(api.nvim_buf_set_name, buf, 'flashls://context')
    end, bufnr)
end

--- :FlashlsUsage: requests, tokens and cost so far.
function M.usage()
  M.execute('flashls.showUsage', nil, function(result)
    M.last_float = { M.float(format.markdown(result, 'usage report'), ' flashls: usage ') }
  end)
end

--- Text for a statusline, e.g. `%{v:lua.require'flashls'.statusline()}`.
function M.statusline()
  if #vim.lsp.get_clients({ name = 'flashls' }) == 0 then
    return ''
  end
  local text = status.statusline(nil, vim.uri_from_bufnr(api.nvim_get_current_buf()))
  if status.current.state == 'ready' and util.get_path(M.config.settings, 'completion.enable') == false then
    text = status.statusline({ state = 'disabled' })
  end
  return text
end

--- :FlashlsStatus
function M.show_status()
  local lines = status.describe()
  local clients = vim.lsp.get_clients({ name = 'flashls' })
  if #clients == 0 then
    table.insert(lines, 'no flashls server running (see :checkhealth flashls)')
  end
  for _, client in ipairs(clients) do
    local cmd = type(client.config.cmd) == 'table' and table.concat(client.config.cmd, ' ') or '(function)'
    table.insert(lines, ('client %d: %s, root %s'):format(client.id, cmd, client.root_dir or '-'))
  end
  table.insert(lines, 'inline completion: ' .. (M.engine() or 'off'))
  vim.notify(table.concat(lines, '\n'))
  return lines
end

return M
