; Scopes besides definitions whose header line is worth keeping above the cursor.
(func_literal body: (block) @body) @scope
(if_statement consequence: (block) @body) @scope
(for_statement body: (block) @body) @scope
(expression_switch_statement) @scope
(type_switch_statement) @scope
(select_statement) @scope
