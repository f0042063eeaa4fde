; Scopes besides definitions whose header line is worth keeping above the cursor.
(lambda body: (_) @body) @scope
(with_statement body: (block) @body) @scope
(if_statement consequence: (block) @body) @scope
(for_statement body: (block) @body) @scope
(while_statement body: (block) @body) @scope
(try_statement body: (block) @body) @scope
