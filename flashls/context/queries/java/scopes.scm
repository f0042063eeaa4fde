; Scopes besides definitions whose header line is worth keeping above the cursor.
(lambda_expression body: (block) @body) @scope
(object_creation_expression (class_body) @body) @scope
(if_statement consequence: (block) @body) @scope
(for_statement body: (block) @body) @scope
(enhanced_for_statement body: (block) @body) @scope
(while_statement body: (block) @body) @scope
(try_statement body: (block) @body) @scope
(switch_expression body: (switch_block) @body) @scope
