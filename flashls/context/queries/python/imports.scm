; @import is the statement, @path the module as written ("..pkg.mod"), @name imported names.
(import_statement name: (dotted_name) @path) @import
(import_statement name: (aliased_import name: (dotted_name) @path)) @import
(import_from_statement module_name: (_) @path name: (dotted_name) @name) @import
(import_from_statement module_name: (_) @path name: (aliased_import name: (dotted_name) @name)) @import
(import_from_statement module_name: (_) @path (wildcard_import)) @import
