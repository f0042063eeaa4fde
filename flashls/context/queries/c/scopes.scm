; Scopes besides definitions whose header line is worth keeping above the cursor.
(if_statement consequence: (compound_statement) @body) @scope
(for_statement body: (compound_statement) @body) @scope
(while_statement body: (compound_statement) @body) @scope
(switch_statement body: (compound_statement) @body) @scope
