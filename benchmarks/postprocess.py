"""Cost of suggestion quality work per request: decide_shape, clean, parse validation.

Runs every golden case, then the same kind of edits at the end of large generated
files (a 240 KB Python file, a 1 MB JavaScript file), where cursor context, indentation
detection and the incremental re-parse of validation are the most expensive. Each
measurement takes a fresh document snapshot the way the server does (tree already
parsed: the parse on typing is not this pipeline's cost).

    python -m benchmarks.postprocess [--repeat 50]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

from flashls.completion.multiline import decide_shape
from flashls.completion.postprocess import clean
from flashls.completion.quality import suggest
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from tests.golden import load_golden_cases

PY_FUNC = '''
def function_{i}(values, factor={i}):
    """Scale and filter values ({i})."""
    result = []
    for value in values:
        if value % 2 == 0:
            result.append(value * factor)
        else:
            result.append(value - factor)
    return result
'''
JS_FUNC = '''
export function handler{i}(request, response) {{
  const items = request.body.items.filter((item) => item.id !== {i});
  for (const item of items) {{
    if (item.price > 100) {{
      response.write(JSON.stringify({{ id: item.id, label: "expensive" }}));
    }}
  }}
  return items.length;
}}
'''


def _ms(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def _large(language: str, ext: str, body: str, size: int, cursor_line: str, raw: str):
    text = ""
    i = 0
    while len(text) < size:
        text += body.format(i=i)
        i += 1
    text += cursor_line
    offset = len(text)
    text += "\n"
    pdoc = ParsedDocument.open(Document(f"file:///big{ext}", text, language))
    pdoc.tree()
    return pdoc, offset, raw


def run(repeat: int) -> None:
    cases = load_golden_cases()
    rows = []

    prepared = []
    for case in cases:
        snap = case.pdoc()
        snap.tree()
        prepared.append((case, snap, decide_shape(snap, case.offset, case.setting,
                                                  case.max_tokens)))
    stages = {
        "decide_shape": lambda c, p, s: decide_shape(p, c.offset, c.setting, c.max_tokens),
        "clean": lambda c, p, s: clean(c.raw, p, c.offset, s),
        "clean + validate": lambda c, p, s: suggest(c.raw, p, c.offset, s),
    }
    for stage, fn in stages.items():
        med, p95 = _ms(lambda: [fn(*item) for item in prepared], max(5, repeat // 5))
        rows.append((f"golden ({len(cases)} small files), per case: {stage}",
                     med / len(cases), p95 / len(cases)))

    big = [
        ("python 240 KB", _large("python", ".py", PY_FUNC, 240_000, "def last(xs):",
                                 "\n    total = 0\n    for x in xs:\n        total += x\n"
                                 "    return total\n\n\ndef other():\n    pass")),
        ("javascript 1 MB", _large("javascript", ".js", JS_FUNC, 1_000_000,
                                   "function last(xs) {", "\n  let t = 0;\n"
                                   "  for (const x of xs) t += x;\n  return t;\n}\n\nfoo();")),
    ]
    for name, (pdoc, offset, raw) in big:
        shape = decide_shape(pdoc, offset, "auto", 64)
        assert shape.multiline, name
        rows.append((f"{name}: decide_shape", *_ms(
            lambda: decide_shape(pdoc, offset, "auto", 64), repeat)))
        rows.append((f"{name}: clean", *_ms(lambda: clean(raw, pdoc, offset, shape), repeat)))
        rows.append((f"{name}: clean + validate", *_ms(
            lambda: suggest(raw, pdoc, offset, shape), repeat)))
        broken = raw.replace("return t;", "return t +;").replace("return total", "return total +")
        rows.append((f"{name}: invalid, shortened", *_ms(
            lambda: suggest(broken, pdoc, offset, shape), repeat)))
    width = max(len(r[0]) for r in rows)
    print(f"{'stage':<{width}}  median ms  p95 ms")
    for name, med, p95 in rows:
        print(f"{name:<{width}}  {med:9.3f}  {p95:6.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=50)
    run(parser.parse_args().repeat)
