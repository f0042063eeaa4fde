; Scopes besides definitions whose header line is worth keeping above the cursor.
(lambda_expression body: (compound_statement) @body) @scope
(if_statement consequence: (compound_statement) @body) @scope
(for_statement body: (compound_statement) @body) @scope
(for_range_loop body: (compound_statement) @body) @scope
(while_statement body: (compound_statement) @body) @scope
(switch_statement body: (compound_statement) @body) @scope
(linkage_specification body: (declaration_list) @body) @scope
