; @definition.<kind> is the node, @name its name, @body the part elided in outlines.
(function_declaration name: (identifier) @name body: (block) @body) @definition.function
(method_declaration name: (field_identifier) @name body: (block) @body) @definition.method
; a type declaration is its own signature (struct fields, interface methods)
(type_declaration (type_spec name: (type_identifier) @name)) @definition.type
(type_declaration (type_alias name: (type_identifier) @name)) @definition.type
; each spec of a `const ( .. )` / `var ( .. )` block is a definition of its own (the block
; as one would be named after one of its constants only)
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)))
