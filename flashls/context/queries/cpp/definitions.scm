; @definition.<kind> is the node, @name its name, @body the part elided in outlines.
(function_definition declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name) body: (compound_statement) @body) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)] @name)) body: (compound_statement) @body) @definition.function
(function_definition declarator: (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)] @name)) body: (compound_statement) @body) @definition.function
(declaration declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)] @name)) @definition.function
(field_declaration declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name)) @definition.method
(field_declaration_list (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.method)
(field_declaration_list (field_declaration declarator: (field_identifier) @name) @definition.field)
(class_specifier name: (_) @name body: (field_declaration_list) @body) @definition.class
(struct_specifier name: (_) @name body: (field_declaration_list) @body) @definition.class
(union_specifier name: (_) @name body: (field_declaration_list) @body) @definition.class
(enum_specifier name: (_) @name body: (_)) @definition.enum
(namespace_definition name: (_) @name body: (declaration_list) @body) @definition.module
(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(preproc_ifdef (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(preproc_if (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(preproc_else (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(declaration_list (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (qualified_identifier)] @name))) @definition.function
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; `template <...>` lines belong to the signature (the larger match wins)
(template_declaration (function_definition declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)] @name) body: (compound_statement) @body)) @definition.function
(template_declaration (declaration declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)] @name))) @definition.function
(template_declaration (class_specifier name: (_) @name body: (field_declaration_list) @body)) @definition.class
(template_declaration (struct_specifier name: (_) @name body: (field_declaration_list) @body)) @definition.class
