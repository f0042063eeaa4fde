"""Session 15's speedups read what the code before them read.

The attribute scan of a fresh document (`evidence.line_facts`) skips the patterns a
line cannot match (no [A-Z]: no receiver type; no `:` or `=`: no annotation or
construction; a lone `:` is no `q::name`): its tables must equal those of every
pattern run on every line. `name_family._postings` builds its sets from per-file
parts: the sets, their iteration order and the words' order must equal one walk over
all the items.
"""

from __future__ import annotations

from collections import namedtuple

import pytest

from flashls.context import evidence, name_family
from flashls.context.evidence import (AS_RECEIVERS, _EXCEPT_AS, _GO_TYPED, _NOT_VARS, _TYPED,
                                      _WITH_AS, _ATTR, collect_attributes, line_facts)
from flashls.context.evidence_java import CHAINING, _CHAINED, _DECL, _NOT_TYPES, _STATIC
from flashls.context.rust_paths import turbofish_paths

LINES = [
    "", "}", "    return x;", "  i++;", "case FOO: bar();", "a ? b : c;",
    "def run(self, x: int) -> Result:", "    if x:", "    url = URL(raw)",
    "    x: Optional[Request] = None", "  client = httpx.Client(timeout=t)",
    "except (ValueError, mod.HTTPError) as e:", "except érreur as e:",
    "    with Live(console) as live:", "async with Session() as s, other:",
    "    ReentrantLock lock = new ReentrantLock();", "  Sink<? super T> downstream;",
    "  (Node.Builder b, int[] xs) ->", "  Code.HTTP_BAD_REQUEST.name();", "  .appendValue(YEAR, 4)",
    "    .build();", " * Returns the value. Next one: Foo.bar", "  this.maxSize = size;",
    "  getValue().other->thing", "let v = SmallVec::<[u8; 2]>::from_iter(0..3);",
    "use crate::parser::{ParseError, Url};", "func (c *Command) Name() string {",
    "var c Command", "  c := &Command{Use: \"x\"}", "  for _, f := range flags {",
    "  $el.Find().x", "  naïve.Méthode(x)", "x.y.z(a::b)", "  p->next = q;",
    "  A a = make();", "  y: A = f()", "var a A", "  with A() as a:",
]
DIALECTS = (False, True, "java", "rust")


def _reference_receivers(line: str, go) -> tuple:
    """`evidence.line_receivers` with every pattern run on every line (no gates)."""
    out = [(a, b) if a else (c, d) for a, b, c, d in _TYPED.findall(line)]
    if AS_RECEIVERS and " as " in line:
        m = _EXCEPT_AS.match(line)
        if m:
            out.extend((m.group(2), t.strip().split(".")[-1]) for t in m.group(1).split(",")
                       if t.strip().split(".")[-1][:1].isupper())
        m = _WITH_AS.match(line)
        if m:
            out.append((m.group(2), m.group(1)))
    if go == "java":
        out += [(t, t) for t in _STATIC.findall(line)] if "." in line else []
        if " " in line.strip():
            out += [(v, t) for t, v in _DECL.findall(line) if t not in _NOT_TYPES]
    elif go is True:
        out.extend((v, t) for v, t in _GO_TYPED.findall(line) if v not in _NOT_VARS)
    return tuple(out)


def _reference_pairs(line: str, go) -> tuple:
    pairs = tuple((q or "", n or m) for q, n, _, m in _ATTR.findall(line))
    if go in CHAINING:
        m = _CHAINED.match(line)
        if m and "." in line:
            pairs += (("", m.group(1)),)
    if go == "rust" and "::<" in line:
        pairs += turbofish_paths(line)
    return pairs


@pytest.mark.parametrize("go", DIALECTS)
def test_line_facts_equal_every_pattern_on_every_line(go):
    for line in LINES:
        pairs, receivers = line_facts(line, go)
        assert pairs == _reference_pairs(line, go), line
        every = go is True or go == "java" or ":" in line or "=" in line
        assert receivers == (_reference_receivers(line, go) if every else ()), line


@pytest.mark.parametrize("go", DIALECTS)
def test_collect_attributes_equals_the_reference_tables(go):
    names: dict = {}
    typed: list = []
    collect_attributes(LINES, 0, 0, len(LINES), go, names, typed)
    want_names: dict = {}
    want_typed: list = []
    for row, line in enumerate(LINES):
        for q, n in _reference_pairs(line, go):
            want_names.setdefault(n, set()).add(q)
        if ":" in line or "=" in line or go is True or go == "java":
            want_typed.extend((row, v, t) for v, t in _reference_receivers(line, go))
    assert list(names) == list(want_names)
    assert {n: list(qs) for n, qs in names.items()} == {n: list(qs) for n, qs in want_names.items()}
    assert typed == want_typed


Item = namedtuple("Item", "name kind")
Analysis = namedtuple("Analysis", "items")
File = namedtuple("File", "analysis")


def _one_walk(files) -> dict:
    """`_postings` as it was: one walk over every file's items."""
    out: dict = {}
    for f in files:
        for item in f.analysis.items:
            if item.name and item.kind in name_family.KINDS:
                for w in name_family.words(item.name):
                    out.setdefault(w, set()).add(item.name)
    return {w: frozenset(names) for w, names in out.items()}


def test_postings_from_file_parts_equal_one_walk_in_order():
    a = File(Analysis(tuple(Item(n, "function") for n in
                            ("scanFollowsTrue", "scanFollowsFalse", "getUint8", "GetInt8Slice",
                             "newParser", "") ) + (Item("ParseError", "import"),)))
    b = File(Analysis(tuple(Item(n, k) for n, k in
                            (("ParseError", "class"), ("parseFlags", "method"),
                             ("scanFollowsTrue", "function"), ("flagSet", "field"),
                             ("uint8Parser", "struct")))))
    c = File(Analysis(tuple(Item(f"name{k}Flag{k % 7}", "function") for k in range(40))))
    for files in ((a, b), (b, a), (a, b, c), (c, b), (b,)):
        got = name_family._postings(files)
        want = _one_walk(files)
        assert list(got) == list(want)  # the words' order
        assert {w: list(s) for w, s in got.items()} == {w: list(s) for w, s in want.items()}


def test_the_gates_are_exercised():
    """The sample lines include what each gate skips (so the tests above test them)."""
    assert any(":" in x and "::" not in x and "." not in x and "->" not in x for x in LINES)
    assert any(not evidence._UPPER.search(x) for x in LINES)
    assert any(evidence._UPPER.search(x) and ":" not in x and "=" not in x for x in LINES)


def test_names_then_equals_the_name_specific_search():
    """`receivers_c._names_then` finds what the per-name pattern it replaces found."""
    import re
    from flashls.context.receivers_c import _BASE_CLAUSE, _SEMICOLON, _names_then
    texts = ["typedef struct node Node;", "typedef Foo xFoo ; Foo;", "typedef A $A; A ;",
             "class Foo final : public Bar<int>, Baz {", "struct A<T> : B {", "Foo::Bar x; Foo : Baz {",
             "class éA : B {", "typedef X A\u00a0;", "class AB : C { class A : D {"]
    for text in texts:
        for name in ("A", "Foo", "Node", "xFoo", "AB"):
            for tail, pattern in ((_SEMICOLON, rf"(?<![\w$]){re.escape(name)}\s*;"),
                                  (_BASE_CLAUSE, rf"(?<![\w$]){re.escape(name)}\b(?:\s*<[^{{]*?>)?"
                                                 r"\s*(?:final\s*)?:(?!:)([^{;]*)")):
                want = re.search(pattern, text)
                got = _names_then(name, text, tail)
                assert (got is None) == (want is None), (name, text)
                if want is not None:
                    assert (got.groups(), got.end()) == (want.groups(), want.end()), (name, text)
