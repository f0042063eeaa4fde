; @definition.<kind> is the node, @name its name, @body the part elided in outlines.
(function_declaration name: (_) @name body: (statement_block) @body) @definition.function
(generator_function_declaration name: (_) @name body: (statement_block) @body) @definition.function
(class_declaration name: (_) @name body: (class_body) @body) @definition.class
(method_definition name: (_) @name body: (statement_block) @body) @definition.method
(class_body (field_definition property: (_) @name) @definition.field)

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

; exports.total = function (...) {...}
(program (expression_statement (assignment_expression
  left: (member_expression object: (identifier) @_obj property: (property_identifier) @name)
  right: [(function_expression body: (statement_block) @body)
          (arrow_function body: (statement_block) @body)])) @definition.function
  (#any-of? @_obj "exports" "module"))
