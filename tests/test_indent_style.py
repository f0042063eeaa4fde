"""`indent.detect_style` counts at C speed; it must decide exactly as the rule it
states: tabs or spaces by majority over indented lines, the width the most common
step up between consecutive space-indented lines (lines with a tab in their
indentation skipped, an unindented line starting over)."""

from __future__ import annotations

import random
from collections import Counter

from flashls.completion.indent import IndentStyle, detect_style


def _by_the_rule(text: str, max_lines: int = 2000) -> IndentStyle | None:
    """The rule, one line at a time (the implementation before it was vectorized)."""
    tab_lines = space_lines = previous = 0
    deltas: Counter[int] = Counter()
    lines = [line for line in text.split("\n") if line.strip(" \t")]
    for line in lines[:max_lines]:
        ws = line[:len(line) - len(line.lstrip(" \t"))]
        if not ws:
            previous = 0
        elif ws[0] == "\t":
            tab_lines += 1
        elif "\t" not in ws:
            space_lines += 1
            if len(ws) > previous:
                deltas[len(ws) - previous] += 1
            previous = len(ws)
        else:
            space_lines += 1
    if not tab_lines and not space_lines:
        return None
    if tab_lines > space_lines:
        return IndentStyle(tabs=True, width=4)
    widths = [w for w, _ in deltas.most_common() if w in (2, 3, 4, 8)]
    return IndentStyle(tabs=False, width=widths[0] if widths else 4)


def test_the_usual_files():
    assert detect_style("def f():\n    if x:\n        y\n") == IndentStyle(False, 4)
    assert detect_style("function f() {\n  if (x) {\n    y();\n  }\n}\n") == IndentStyle(False, 2)
    assert detect_style("func f() {\n\tif x {\n\t\ty()\n\t}\n}\n") == IndentStyle(True, 4)
    assert detect_style("a\nb\n") is None
    # a tab-indented line does not break the run of space steps around it
    assert detect_style("x\n   a\n\tb\n      c\n") == IndentStyle(False, 3)


def test_random_texts_decide_as_the_rule():
    rng = random.Random(15)
    pieces = ["", " ", "  ", "   ", "    ", "        ", "\t", "\t\t", " \t", "\t  "]
    for _ in range(2000):
        lines = [rng.choice(pieces) + rng.choice(("x", "", " ", "y = 1"))
                 for _ in range(rng.randrange(0, 40))]
        text = "\n".join(lines)
        limit = rng.choice((2000, 5, 1))
        assert detect_style(text, limit) == _by_the_rule(text, limit), (text, limit)
