"""Long sessions: memory the context engine keeps while someone types stays bounded.

Typing inside one large top-level node (a class with many methods: the most common
place to type in Java, C#, TypeScript or Python) re-extracts that node per keystroke;
whatever is memoized per version must be bounded in bytes, not only in entries.
"""

from __future__ import annotations

import gc
import tracemalloc

from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument

KEYSTROKES = 150
MEMO_MB = 2  # the test shrinks the memo budget (8 MB in production) to stay fast
BOUND_MB = 10  # bounded: ~2 x MEMO_MB plus noise; unbounded, 150 keystrokes keep ~20 MB


def big_class(methods: int = 150) -> str:
    body = "".join(f"    def method_{i}(self, value_{i}):\n"
                   f"        total = value_{i} * {i}\n"
                   f"        return total + self.base\n\n" for i in range(methods))
    return "import os\n\nclass Big:\n    base = 1\n\n" + body + "\ndef tail():\n    return 1\n"


def test_typing_inside_a_large_class_keeps_memory_bounded(monkeypatch):
    from flashls.context import analysis

    monkeypatch.setattr(analysis, "MEMO_BYTES", MEMO_MB << 20)
    analysis.clear()
    text = big_class(120)
    pdoc = ParsedDocument.open(Document("file:///tmp/big.py", text, "python", 1), "/tmp/big.py")
    line = text.split("\n").index("    def method_74(self, value_74):") + 1
    col = len(text.split("\n")[line])

    def type_keys(n: int) -> None:
        nonlocal line, col
        for _ in range(n):
            pdoc.apply_change((line, col), (line, col), "y")
            pdoc.doc.version += 1
            col += 1
            if col > 60:
                pdoc.apply_change((line, col), (line, col), "\n        ")
                pdoc.doc.version += 1
                line, col = line + 1, 8
            assemble_context(pdoc, pdoc.doc.offset_at(line, col), budget_tokens=2048)

    type_keys(30)  # warm up
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        type_keys(KEYSTROKES)
        gc.collect()
        grown_mb = (tracemalloc.get_traced_memory()[0] - before) / (1 << 20)
    finally:
        tracemalloc.stop()
    assert grown_mb < BOUND_MB, f"{grown_mb:.0f} MB kept after {KEYSTROKES} keystrokes"
