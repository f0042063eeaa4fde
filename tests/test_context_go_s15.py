"""Session 15's Go rules: entries that took room for no reason are worth less.

`evidence_go_shadow` (a neighbor's `var _` or a package variable named like a local of
the anchor), `evidence_go_tests` (a neighbor's `TestX` functions), and
`evidence_go_members` (the unused methods of a big type at hand, the unused names of a
big package)."""

from __future__ import annotations

from types import SimpleNamespace

from flashls.context import evidence_go_members as members
from flashls.context import evidence_go_shadow as shadow
from flashls.context import evidence_go_tests as go_tests
from flashls.context.evidence_go import FileFacts
from flashls.context.outline import Item
from flashls.context.ranking import Candidate
from tests.files import write
from tests.test_context_go_rust import GO_MOD, score, scores

VIPER_GO = ("package viper\n\n"
            "type Viper struct{ keys []string }\n\n"
            "var v *Viper\n\n"
            "var Count int\n\n"
            "var _ Getter = (*Viper)(nil)\n\n"
            "type Getter interface{ Get(key string) string }\n\n"
            "func New() *Viper { return &Viper{} }\n\n"
            "func (v *Viper) Get(key string) string { return \"\" }\n")
USE_GO = ("package viper\n\n"
          "func lookup(key string) (string, error) {\n"
          "\tv := New()\n"
          "\tn, err := other(key)\n"
          "\t_ = n\n"
          "\tCount++\n"
          "\treturn v.Get(key), err\n}\n\n"
          "func other(key string) (int, error) { return 0, nil }\n")


def test_go_a_package_variable_named_like_a_local_or_blank_is_not_lifted_by_its_uses(tmp_path):
    write(tmp_path, {"go.mod": GO_MOD, "viper.go": VIPER_GO, "use.go": USE_GO})
    table = scores(tmp_path, "use.go", "\tCount++")
    # `v` and `_` are the anchor's own: the package's `var v`, `var _` get the fill score
    assert score(table, "viper.go", "var v *Viper") <= shadow.FILL
    assert score(table, "viper.go", "var _ Getter") <= shadow.FILL
    # a package variable the anchor does use keeps its evidence
    assert score(table, "viper.go", "var Count int") > 30


def test_go_shadowed_variables_keep_their_score_without_the_rule(tmp_path, monkeypatch):
    monkeypatch.setattr(shadow, "KINDS", frozenset())
    write(tmp_path, {"go.mod": GO_MOD, "viper.go": VIPER_GO, "use.go": USE_GO})
    table = scores(tmp_path, "use.go", "\tCount++")
    assert score(table, "viper.go", "var v *Viper") > 30


def test_go_anchor_locals_are_parameters_short_declarations_and_vars():
    lines = ["func (c *Conn) read(n int, buf []byte) (out int, err error) {",
             "\tx, y := f()", "\tvar total int", "\tfor _, item := range items {",
             "\t\tuse(z)", "\t}", "}"]
    got = shadow.anchor_locals(lines, (0, len(lines) - 1))
    assert {"c", "n", "buf", "out", "err", "x", "y", "total", "item"} <= got
    assert "z" not in got and "_" not in got and "int" not in got


def _item(name: str, kind: str = "function") -> Item:
    return Item(name=name, kind=kind, level=1, start=0, end=0, lines=(f"func {name}() {{",),
                tail=(), parent=-1, tokens=5)


def test_go_a_neighbors_test_functions_get_the_fill_score():
    items = [_item("TestDecodeError"), _item("BenchmarkMask"), _item("ExampleDial"),
             _item("Testable"), _item("helper")]
    test_file = SimpleNamespace(path="/p/errors_test.go", rank=0,
                                analysis=SimpleNamespace(items=items))
    code_file = SimpleNamespace(path="/p/errors.go", rank=0,
                                analysis=SimpleNamespace(items=[_item("TestDecodeError")]))
    files = [test_file, code_file]
    cands = [Candidate(50.0, 0, i) for i in range(len(items))] + [Candidate(50.0, 1, 0)]
    got = [c.score for c in go_tests.demote("go", files, cands)]
    assert got[:3] == [go_tests.FILL] * 3  # TestX, BenchmarkX, ExampleX of a _test.go
    assert got[3:] == [50.0, 50.0, 50.0]  # `Testable`, a helper, a non-test file's name
    assert go_tests.demote("rust", files, cands) is cands


def _facts(methods: dict[str, frozenset[str]]) -> FileFacts:
    return FileFacts(frozenset(methods), {}, {}, {}, methods)


def test_go_size_factor_is_one_for_small_types_and_falls_with_the_methods():
    known = (_facts({"Small": frozenset({"A", "B"}),
                     "Big": frozenset(f"M{i}" for i in range(24))}),)
    assert members.size_factor("Small", known) == 1.0
    assert members.size_factor("Big", known) == (members.SMALL_TYPE / 24) ** members.POWER
    assert members.size_factor("Unknown", known) == 1.0


BIG_GO = "package shop\n\ntype Big struct{}\n\n" + "".join(
    f"func (b *Big) Method{i}() {{}}\n\n" for i in range(20)) + \
    "type Small struct{}\n\nfunc (s *Small) Alpha() {}\n\nfunc (s *Small) Beta() {}\n"
USE_BIG = ("package shop\n\nfunc run(b *Big, s *Small) {\n\tprintln(\"start\")\n}\n")


def test_go_unused_methods_of_a_big_type_at_hand_score_below_a_small_types(tmp_path):
    write(tmp_path, {"go.mod": GO_MOD, "big.go": BIG_GO, "use.go": USE_BIG})
    table = scores(tmp_path, "use.go", "\tprintln")
    small = score(table, "big.go", "func (s *Small) Alpha()")
    big = score(table, "big.go", "func (b *Big) Method3()")
    assert small > 40
    assert big < small / 4


def test_go_big_types_methods_tie_with_small_ones_without_the_factor(tmp_path, monkeypatch):
    monkeypatch.setattr(members, "SMALL_TYPE", 1000)
    write(tmp_path, {"go.mod": GO_MOD, "big.go": BIG_GO, "use.go": USE_BIG})
    table = scores(tmp_path, "use.go", "\tprintln")
    assert score(table, "big.go", "func (b *Big) Method3()") == \
        score(table, "big.go", "func (s *Small) Alpha()")


def _lib(n: int) -> str:
    return "package lib\n\n" + "".join(f"func Name{i}() int {{ return {i} }}\n\n"
                                       for i in range(n))


def _module_scores(tmp_path, n: int) -> tuple[float, float]:
    write(tmp_path, {"go.mod": GO_MOD, "lib/lib.go": _lib(n),
                     "cmd/main.go": "package main\n\nimport \"example.com/shop/lib\"\n\n"
                                    "func main() {\n\tx := lib.Name0()\n\tprintln(x)\n}\n"})
    table = scores(tmp_path, "cmd/main.go", "\tprintln(x)")
    return score(table, "lib/lib.go", "func Name0()"), score(table, "lib/lib.go", "func Name7()")


def test_go_unused_names_of_a_big_package_are_worth_less(tmp_path):
    used, unused = _module_scores(tmp_path / "big", 60)
    _, unused_small = _module_scores(tmp_path / "small", 10)
    assert used > 60  # `lib.Name0` is used: no factor
    assert unused_small > 40  # a package of ten names: its others may be next
    assert unused < unused_small / 2  # sixty names: 24 / 60 of the score


def test_go_module_factor_is_one_without_the_rule(tmp_path, monkeypatch):
    monkeypatch.setattr(members, "SMALL_MODULE", 1000)
    _, unused = _module_scores(tmp_path / "big", 60)
    _, unused_small = _module_scores(tmp_path / "small", 10)
    assert abs(unused - unused_small) < 1.0
