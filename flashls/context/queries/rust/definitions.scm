; @definition.<kind> is the node, @name its name, @body the part elided in outlines.
(function_item name: (identifier) @name body: (block) @body) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.struct
(trait_item name: (type_identifier) @name body: (declaration_list) @body) @definition.trait
(impl_item type: (_) @name body: (declaration_list) @body) @definition.impl
(mod_item name: (identifier) @name body: (declaration_list) @body) @definition.module
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(macro_definition name: (identifier) @name) @definition.macro
