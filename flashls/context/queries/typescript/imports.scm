; @import is the statement, @path the module specifier, @name imported names.
(import_statement source: (string (string_fragment) @path)) @import
(import_statement (import_clause (identifier) @name) source: (string (string_fragment) @path)) @import
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @name)))
  source: (string (string_fragment) @path)) @import
(import_statement (import_clause (namespace_import (identifier) @name))
  source: (string (string_fragment) @path)) @import
(export_statement source: (string (string_fragment) @path)) @import
(call_expression function: (identifier) @_req
  arguments: (arguments . (string (string_fragment) @path))
  (#eq? @_req "require")) @import
(call_expression function: (import)
  arguments: (arguments . (string (string_fragment) @path))) @import
