; @definition.<kind> is the node, @name its name, @body the part elided in outlines.
(function_declaration name: (_) @name body: (statement_block) @body) @definition.function
(generator_function_declaration name: (_) @name body: (statement_block) @body) @definition.function
(function_signature name: (_) @name) @definition.function
(class_declaration name: (_) @name body: (class_body) @body) @definition.class
(abstract_class_declaration name: (_) @name body: (class_body) @body) @definition.class
(method_definition name: (_) @name body: (statement_block) @body) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(method_signature name: (_) @name) @definition.method
(class_body (public_field_definition name: (_) @name) @definition.field)
(interface_declaration name: (_) @name) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name) @definition.enum
(internal_module name: (_) @name body: (statement_block) @body) @definition.module
(module name: (_) @name body: (statement_block) @body) @definition.module

; const handler = (req) => {...}; const helper = function () {...}
(program (lexical_declaration
  (variable_declarator name: (identifier) @name
    value: [(arrow_function body: (statement_block) @body)
            (function_expression body: (statement_block) @body)])) @definition.function)
(program (export_statement (lexical_declaration
  (variable_declarator name: (identifier) @name
    value: [(arrow_function body: (statement_block) @body)
            (function_expression body: (statement_block) @body)])) @definition.function))
(program (variable_declaration
  (variable_declarator name: (identifier) @name
    value: [(arrow_function body: (statement_block) @body)
            (function_expression body: (statement_block) @body)])) @definition.function)

; other top-level constants (a name matched with a @body above wins)
(program (lexical_declaration
  (variable_declarator name: (identifier) @name)) @definition.variable)
(program (export_statement (lexical_declaration
  (variable_declarator name: (identifier) @name)) @definition.variable))
(program (variable_declaration
  (variable_declarator name: (identifier) @name)) @definition.variable)