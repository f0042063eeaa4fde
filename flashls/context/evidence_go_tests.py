"""Go: a neighbor's test functions are never called.

`func TestDecodeError(t *testing.T)`, `BenchmarkMaskBytes`, `ExampleIsUnexpectedCloseError`
and `FuzzX` in a `_test.go` file are run by `go test`, never named by code, so their
signature says nothing about the line being written. They still collected scores: a
test named after a function near the cursor is its name's relative (`name_family`),
a test twin's unused entries are lifted (`evidence_go_twin`), and in a test file every
sibling test is a namesake of what the file's own tests check. In the pool misses they
took room at 50-90 (toml's `errors_test.go` tests in `unmarshaler_test.go`, websocket's
`TestUnderlyingConn` beside `UnderlyingConn`). They keep the score of an entry without
evidence (`ranking`'s fill), after every other Go pass.
"""

from __future__ import annotations

import re
from typing import Sequence

TEST_SUFFIX = "_test.go"
FILL = 3.0  # the score of a top-level entry nothing points at (`ranking._scored`)
# `TestX`, `Test_x`, `Test` alone; not `Testable` (a lower-case letter after the prefix)
_TEST_NAME = re.compile(r"^(?:Test|Benchmark|Example|Fuzz)(?:$|[A-Z_0-9])")


def is_test_function(item, path: str) -> bool:
    """Whether an item is a top-level test, benchmark, example or fuzz function of a
    `_test.go` file."""
    return item.kind == "function" and item.level <= 1 and path.endswith(TEST_SUFFIX) \
        and _TEST_NAME.match(item.name) is not None


def demote(resolver: str, files: Sequence, cands: list) -> list:
    """The candidates with the neighbors' test functions at the fill score (the same
    list for other languages and when there is none)."""
    if resolver != "go":
        return cands
    tests = [f.path.endswith(TEST_SUFFIX) for f in files]
    if not any(tests):
        return cands
    out = cands
    for k, c in enumerate(cands):
        if c.file < 0 or not tests[c.file] or c.score <= FILL:
            continue
        f = files[c.file]
        if not is_test_function(f.analysis.items[c.item], f.path):
            continue
        if out is cands:
            out = list(cands)
        out[k] = c.rescored(FILL / (1.0 + f.rank / 4.0))
    return out
