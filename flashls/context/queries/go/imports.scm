; @import is the spec, @path the import path, @name the local package name when renamed.
(import_spec name: (_) @name path: (interpreted_string_literal (interpreted_string_literal_content) @path)) @import
(import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @path)) @import
(package_clause (package_identifier) @package) @package_clause
