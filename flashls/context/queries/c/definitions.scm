; @definition.<kind> is the node, @name its name, @body the part elided in outlines.
(function_definition declarator: (function_declarator declarator: (identifier) @name) body: (compound_statement) @body) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)) body: (compound_statement) @body) @definition.function
; prototypes and globals, also inside include guards and #if blocks
(translation_unit (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function)
(preproc_ifdef (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function)
(preproc_if (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function)
(preproc_else (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function)
(translation_unit (declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function)
(preproc_ifdef (declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function)
(preproc_if (declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function)
(preproc_else (declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function)
(translation_unit (declaration declarator: (identifier) @name) @definition.variable)
(preproc_ifdef (declaration declarator: (identifier) @name) @definition.variable)
(preproc_if (declaration declarator: (identifier) @name) @definition.variable)
(preproc_else (declaration declarator: (identifier) @name) @definition.variable)
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(preproc_ifdef (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(preproc_if (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(preproc_else (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(type_definition declarator: (type_identifier) @name) @definition.type
(translation_unit (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_ifdef (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_if (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_else (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(translation_unit (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_ifdef (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_if (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_else (union_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(translation_unit (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_ifdef (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_if (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_else (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
