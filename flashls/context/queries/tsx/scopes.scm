; Scopes besides definitions whose header line is worth keeping above the cursor.
(arrow_function body: (statement_block) @body) @scope
(function_expression body: (statement_block) @body) @scope
(object) @scope
(internal_module body: (statement_block) @body) @scope
(if_statement consequence: (statement_block) @body) @scope
(for_statement body: (statement_block) @body) @scope
(for_in_statement body: (statement_block) @body) @scope
(while_statement body: (statement_block) @body) @scope
(try_statement body: (statement_block) @body) @scope
(switch_statement body: (switch_body) @body) @scope
