--- Client-side handlers for the commands of flashls's code actions.
---
--- The "Rewrite…" action carries `flashls.rewrite {uri, range}` without an
--- instruction: the client must ask for one. The "Explain" action runs
--- `flashls.explain`, whose Markdown result Neovim would drop. Neovim consults
--- `vim.lsp.commands` before sending a code action's command to the server, so
--- both are handled here. Requests go out with `client:request` (never
--- `exec_cmd`, which would come back to these handlers).
local util = require('flashls.util')

local M = {}

M.REWRITE = 'flashls.rewrite'
M.EXPLAIN = 'flashls.explain'

local function present(value)
  return value ~= nil and value ~= vim.NIL and value ~= ''
end

--- A `flashls.rewrite` argument list the server would refuse for lack of an
--- instruction: its first argument has neither `instruction` nor `intent`.
--- Malformed arguments go to the server as they are; it reports bad input itself.
---@param arguments any
---@return boolean
function M.needs_instruction(arguments)
  local first = type(arguments) == 'table' and arguments[1] or nil
  if type(first) ~= 'table' or (vim.islist(first) and next(first) ~= nil) then
    return false
  end
  return not present(first.instruction) and not present(first.intent)
end

--- A copy of `arguments` with `instruction` set on the first one.
---@param arguments table
---@param instruction string
---@return table
function M.with_instruction(arguments, instruction)
  local out = vim.deepcopy(arguments)
  out[1] = vim.tbl_extend('force', type(out[1]) == 'table' and out[1] or {}, { instruction = instruction })
  return out
end

local function client_of(ctx)
  local client = ctx and ctx.client_id and vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    vim.notify('flashls: the flashls server for this code action is gone', vim.log.levels.ERROR)
  end
  return client
end

local send = util.execute_command -- straight to the client the action came from

local function rewritten(result)
  -- {applied, model, failureReason?}; the server itself warns when not applied.
  if type(result) == 'table' and result.applied == true then
    vim.notify(('flashls: rewritten by %s'):format(tostring(result.model or 'the model')))
  end
end

--- `vim.lsp.commands['flashls.rewrite']`: ask for the instruction when the
--- action carries none (cancel = nothing is sent), then send.
---@param command lsp.Command
---@param ctx { bufnr: integer?, client_id: integer }
function M.rewrite(command, ctx)
  local client = client_of(ctx)
  if not client then
    return
  end
  local arguments = command.arguments or {}
  if not M.needs_instruction(arguments) then
    send(client, M.REWRITE, arguments, ctx.bufnr, rewritten)
    return
  end
  vim.ui.input({ prompt = 'flashls rewrite: ' }, function(input)
    if input == nil then
      return -- cancelled
    end
    local instruction = vim.trim(input)
    if instruction == '' then
      vim.notify('flashls: describe the change, e.g. "add type hints"; nothing was sent',
        vim.log.levels.WARN)
      return
    end
    send(client, M.REWRITE, M.with_instruction(arguments, instruction), ctx.bufnr, rewritten)
  end)
end

--- `vim.lsp.commands['flashls.explain']`: the explanation in the float
--- `:FlashlsExplain` uses.
---@param command lsp.Command
---@param ctx { bufnr: integer?, client_id: integer }
function M.explain(command, ctx)
  local client = client_of(ctx)
  if not client then
    return
  end
  send(client, M.EXPLAIN, command.arguments or {}, ctx.bufnr, function(result)
    require('flashls').show_explanation(result)
  end)
end

--- Register the handlers (replacing earlier ones of ours, keeping a user's own).
function M.register()
  for name, fn in pairs({ [M.REWRITE] = M.rewrite, [M.EXPLAIN] = M.explain }) do
    local current = vim.lsp.commands[name]
    if current == nil or current == fn then
      vim.lsp.commands[name] = fn
    end
  end
end

return M
