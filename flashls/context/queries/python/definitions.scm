; Definitions for outlines and neighbor signatures.
; @definition.<kind> is the node, @name its name, @body the part elided in outlines.
(function_definition name: (identifier) @name body: (block) @body) @definition.function
(class_definition name: (identifier) @name body: (block) @body) @definition.class
; decorators belong to the signature (the larger match wins)
(decorated_definition
  definition: (function_definition name: (identifier) @name body: (block) @body)) @definition.function
(decorated_definition
  definition: (class_definition name: (identifier) @name body: (block) @body)) @definition.class

; module-level and class-level assignments: CONSTANT = ..., x: int = 0
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable)
(class_definition
  body: (block (expression_statement (assignment left: (identifier) @name)) @definition.field))
