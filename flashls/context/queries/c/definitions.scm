; @definition.<kind> is the node, @name its name, @body the part elided in outlines.
(function_definition declarator: (function_declarator declarator: (identifier) @name) body: (compound_statement) @body) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)) body: (compound_statement) @body) @definition.function
(translation_unit (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function)
(translation_unit (declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function)
(translation_unit (declaration declarator: (identifier) @name) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(type_definition declarator: (type_identifier) @name) @definition.type
(translation_unit (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(translation_unit (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(translation_unit (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
