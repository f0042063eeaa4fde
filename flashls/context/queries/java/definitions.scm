; @definition.<kind> is the node, @name its name, @body the part elided in outlines.
(class_declaration name: (identifier) @name body: (class_body) @body) @definition.class
(interface_declaration name: (identifier) @name body: (interface_body) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (enum_body) @body) @definition.enum
(record_declaration name: (identifier) @name body: (class_body) @body) @definition.class
(annotation_type_declaration name: (identifier) @name body: (_) @body) @definition.interface
(method_declaration name: (identifier) @name body: (block) @body) @definition.method
(method_declaration name: (identifier) @name !body) @definition.method
(constructor_declaration name: (identifier) @name body: (constructor_body) @body) @definition.method
(class_body (field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field)
(interface_body (constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field)
