-- User commands for flashls; configuration happens in require('flashls').setup().
if vim.g.loaded_flashls then
  return
end
vim.g.loaded_flashls = true

local function flashls()
  return require('flashls')
end

vim.api.nvim_create_user_command('FlashlsRewrite', function(opts)
  flashls().rewrite(opts)
end, { nargs = '*', range = true, desc = 'flashls: rewrite the selection following an instruction' })

vim.api.nvim_create_user_command('FlashlsExplain', function(opts)
  flashls().explain(opts)
end, { range = true, desc = 'flashls: explain the selection in a floating window' })

vim.api.nvim_create_user_command('FlashlsContext', function()
  flashls().context()
end, { desc = 'flashls: show the prompt a completion at the cursor would send' })

vim.api.nvim_create_user_command('FlashlsUsage', function()
  flashls().usage()
end, { desc = 'flashls: show requests, tokens and cost so far' })

vim.api.nvim_create_user_command('FlashlsStatus', function()
  flashls().show_status()
end, { desc = 'flashls: show the server state' })

vim.api.nvim_create_user_command('FlashlsToggle', function(opts)
  local scope = vim.trim(opts.args or '')
  if scope == '' or scope == 'all' then
    flashls().toggle()
  elseif scope == 'language' or scope == 'ft' then
    flashls().toggle_language()
  else
    flashls().toggle_language(scope)
  end
end, {
  nargs = '?',
  complete = function()
    return { 'all', 'language' }
  end,
  desc = 'flashls: turn inline completions on or off (all, language = this filetype, or a language id)',
})
