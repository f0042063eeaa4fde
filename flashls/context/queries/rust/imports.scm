; @import is the item, @path the use tree or module name as written.
(use_declaration argument: (_) @path) @import
(mod_item name: (identifier) @path !body) @import
