; @import is the declaration, @path the imported name ("com.acme.User").
(import_declaration (scoped_identifier) @path (asterisk) @name) @import
(import_declaration (scoped_identifier) @path) @import
(import_declaration (identifier) @path) @import
(package_declaration (_) @package) @package_clause
