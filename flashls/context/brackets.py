"""Text split at the commas that are not inside brackets (an argument, parameter or base
list read from source lines, where tree-sitter's node is not at hand)."""

from __future__ import annotations


def split_top(text: str, opens: str = "([{", closes: str = ")]}") -> list[str]:
    """`text`'s parts between commas at bracket depth 0 (`a, f(b, c), d` -> three)."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in opens:
            depth += 1
        elif ch in closes:
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts
