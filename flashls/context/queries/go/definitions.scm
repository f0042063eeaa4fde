; @definition.<kind> is the node, @name its name, @body the part elided in outlines.
(function_declaration name: (identifier) @name body: (block) @body) @definition.function
(method_declaration name: (field_identifier) @name body: (block) @body) @definition.method
; a type declaration is its own signature (struct fields, interface methods)
(type_declaration (type_spec name: (type_identifier) @name)) @definition.type
(type_declaration (type_alias name: (type_identifier) @name)) @definition.type
(source_file (const_declaration (const_spec name: (identifier) @name)) @definition.constant)
(source_file (var_declaration (var_spec name: (identifier) @name)) @definition.variable)
