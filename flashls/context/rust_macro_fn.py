"""The name of the `fn` a cursor inside a macro invocation is in.

Rust property tests are functions written inside a macro: `quickcheck! { fn
equal_partition(a: Vec<i32>) -> bool { .. } }`, `proptest! { .. }`. The parser sees one
macro invocation there, no function item, so nothing encloses the cursor and the test's
name (`equal_partition`, `fused_filter_ok`), which spells what the test calls, is not
read (`evidence_rust.echoed_names` reads it from the enclosing function item).

This finds it from the lines alone: walking up from the cursor, the first line indented
less than the cursor's that opens a `fn name(` / `fn name<`, crossing lines of the same
function (its body's blocks, its where clause, its parameter lines), and stopping at a
line that is a closing brace alone or a macro's opening line indented less than the cursor (the end of the
previous function, the start of the macro), or after MAX_ROWS lines. Only lines
indented less than every line below them count (`} else {` inside the body is crossed),
and a `fn` line level with the least indented one (a header above its `{`).
"""

from __future__ import annotations

import re
from typing import Sequence

MAX_ROWS = 80
_FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+|unsafe\s+|const\s+)*fn\s+"
                 r"([A-Za-z_]\w*)\s*[<(]")
_MACRO_OPEN = re.compile(r"[\w:]+!\s*[{(\[]\s*$")
_CLOSER = re.compile(r"^[}\])]+[;,]?$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def enclosing_fn_name(lines: Sequence[str], cursor_line: int) -> str | None:
    """The `fn` whose body holds `cursor_line`, read from the lines (see the module
    docstring); None when no such line is found."""
    if not 0 <= cursor_line < len(lines):
        return None
    indent = _indent(lines[cursor_line])
    if indent == 0:
        return None
    dropped = False
    for row in range(cursor_line - 1, max(-1, cursor_line - 1 - MAX_ROWS), -1):
        line = lines[row]
        text = line.strip()
        if not text or _indent(line) > indent:
            continue
        level = _indent(line) < indent
        m = _FN.match(line) if level or dropped else None
        if m:  # a header may sit level with the `{` / `where` line below it
            return m.group(1)
        if not level:
            continue
        indent, dropped = _indent(line), True
        if _CLOSER.match(text) or _MACRO_OPEN.search(text) or indent == 0:
            return None
    return None
