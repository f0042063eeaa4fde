; @import is the declaration, @path each import path, @name the local name when renamed.
(import_declaration (import_spec name: (_) @name path: (interpreted_string_literal (interpreted_string_literal_content) @path))) @import
(import_declaration (import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @path))) @import
(import_declaration (import_spec_list (import_spec name: (_) @name path: (interpreted_string_literal (interpreted_string_literal_content) @path)))) @import
(import_declaration (import_spec_list (import_spec path: (interpreted_string_literal (interpreted_string_literal_content) @path)))) @import
(package_clause (package_identifier) @package) @package_clause
