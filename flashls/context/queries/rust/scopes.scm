; Scopes besides definitions whose header line is worth keeping above the cursor.
(closure_expression body: (block) @body) @scope
(if_expression consequence: (block) @body) @scope
(for_expression body: (block) @body) @scope
(while_expression body: (block) @body) @scope
(loop_expression body: (block) @body) @scope
(match_expression body: (match_block) @body) @scope
