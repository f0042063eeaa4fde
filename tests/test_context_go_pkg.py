"""What similar files of a Go package use (`flashls/context/evidence_go_pkg.py`): a
same-package name used for the first time in a file has no evidence in it, but the
files that use the same package names as this one use it too."""

from __future__ import annotations

from flashls.context import evidence_go_pkg as pkg
from tests.files import write
from tests.test_context_go_rust import GO_MOD, score, scores

FLAG_GO = ("package flags\n\n"
           "type FlagSet struct{ name string }\n\n"
           "func (f *FlagSet) Aardvark() {}\n\n"
           "func (f *FlagSet) Bison() {}\n\n"
           "func (f *FlagSet) VarP(v Value, name, short, usage string) {}\n\n"
           "func (f *FlagSet) getFlagType(name, ftype string, conv func(string) (interface{}, error))"
           " (interface{}, error) {\n\treturn nil, nil\n}\n\n"
           "type Value interface{ Set(string) error }\n")


def _type_file(t: str, get: bool = True) -> str:
    body = (f"\tval, err := f.getFlagType(name, \"{t}\", {t}Conv)\n"
            f"\tif err != nil {{\n\t\treturn 0, err\n\t}}\n\treturn val.({t}), nil\n") if get else \
        "\treturn 0, nil\n"
    return (f"package flags\n\n"
            f"type {t}Value {t}\n\n"
            f"func (i *{t}Value) Set(s string) error {{ return nil }}\n\n"
            f"func {t}Conv(s string) (interface{{}}, error) {{ return nil, nil }}\n\n"
            f"func (f *FlagSet) Get{t.title()}(name string) ({t}, error) {{\n{body}}}\n\n"
            f"func (f *FlagSet) {t.title()}Var(p *{t}, name string, usage string) {{\n"
            f"\tf.VarP((*{t}Value)(p), name, \"\", usage)\n}}\n")


def test_go_first_use_of_a_name_the_similar_siblings_use_ranks_above_its_ties(tmp_path):
    files = {"go.mod": GO_MOD, "flag.go": FLAG_GO,
             "int8.go": _type_file("int8"), "int16.go": _type_file("int16"),
             "int32.go": _type_file("int32"), "uint8.go": _type_file("uint8", get=False)}
    write(tmp_path, files)
    table = scores(tmp_path, "uint8.go", "\treturn 0, nil")
    # every FlagSet method ties as "a method of the receiver's type"; the siblings that
    # look like uint8.go all call getFlagType
    assert score(table, "flag.go", "func (f *FlagSet) getFlagType(") > \
        score(table, "flag.go", "func (f *FlagSet) Aardvark()")


def test_a_name_one_sibling_uses_or_several_entries_define_is_not_lifted():
    sib = pkg.Siblings(vocabulary=frozenset({"Alpha", "Beta", "Gamma", "Name"}),
                       definitions={"Alpha": 1, "Beta": 1, "Gamma": 1, "Name": 3},
                       uses=(frozenset({"Beta", "Gamma", "Name"}), frozenset({"Beta", "Name"})),
                       seen=(frozenset({"Alpha", "Beta", "Gamma", "Name"}), frozenset({"Alpha", "Beta", "Name"})),
                       idents=(frozenset({"Alpha", "Beta", "Gamma", "Name"}), frozenset({"Alpha", "Beta", "Name"})))
    got = pkg.bonuses(frozenset({"Alpha"}), sib, [True, True])
    assert got["Beta"] == 100 * pkg.CO_USED  # both similar siblings use it
    assert "Gamma" not in got  # one file's habit
    assert got["Name"] == got["Beta"] / 9  # three entries define it: which one is unclear
    assert pkg.bonuses(frozenset({"Alpha"}), sib, [False, False]) == {}  # other packages


def test_go_variable_read_from_a_struct_field_has_the_fields_type(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "path.go": "package flags\n\ntype Step struct{}\n\n"
                   "func (s Step) Values() []int { return nil }\n\n"
                   "type Route struct{ name string }\n\n"
                   "func (r *Route) Values() []int { return nil }\n",
        "route_test.go": "package flags\n\ntype routeTest struct {\n\ttitle string\n"
                         "\troute *Route\n}\n\nfunc check(test routeTest) int {\n"
                         "\tr := test.route\n\tn := 0\n\tfor range r.Values() {\n\t\tn++\n"
                         "\t}\n\treturn n\n}\n",
    })
    table = scores(tmp_path, "route_test.go", "\tn := 0")
    assert score(table, "path.go", "func (r *Route) Values()") > \
        score(table, "path.go", "func (s Step) Values()")


def test_go_method_named_in_a_message_beside_a_receiver_of_its_type_is_likely_called(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "flag.go": "package flags\n\ntype FlagSet struct{}\n\n"
                   "func (f *FlagSet) Aardvark() {}\n\n"
                   "func (f *FlagSet) GetUint8(name string) (uint8, error) { return 0, nil }\n",
        "uint8_test.go": "package flags\n\nimport \"testing\"\n\n"
                         "func TestGet(t *testing.T, f *FlagSet) {\n\t\n"
                         "\tif err != nil {\n\t\tt.Errorf(\"GetUint8 failed: %v\", err)\n\t}\n}\n",
    })
    table = scores(tmp_path, "uint8_test.go", "\t\n\tif err")
    # a plain mention (the message string) used to rank it below the methods not named
    assert score(table, "flag.go", "func (f *FlagSet) GetUint8(") > \
        score(table, "flag.go", "func (f *FlagSet) Aardvark()") + 20


def test_remembered_co_use_bonuses_equal_a_fresh_computation():
    sib = pkg.Siblings(vocabulary=frozenset({"Alpha", "Beta"}), definitions={},
                       uses=(frozenset({"Beta"}), frozenset({"Beta"})),
                       seen=(frozenset({"Alpha", "Beta"}), frozenset({"Alpha", "Beta"})),
                       idents=(frozenset({"Alpha", "Beta"}), frozenset({"Alpha", "Beta"})))
    first, other = frozenset({"Alpha"}), frozenset({"Alpha", "Gamma"})
    same = (True, True)
    two = pkg.MIN_FILES
    assert pkg._last_bonuses(first, sib, same, frozenset(), two) == \
        pkg.bonuses(first, sib, same)
    assert pkg._last_bonuses(other, sib, same, frozenset(), two) == pkg.bonuses(other, sib, same)
    assert pkg._last_bonuses(first, sib, (False, False), frozenset(), two) == {} != \
        pkg._last_bonuses(first, sib, same, frozenset(), two)
    # another threshold (a test file's) is not served the last answer
    assert pkg._last_bonuses(first, sib, same, frozenset(), 3) == {}


def _one_sibling_package(tmp_path, testing: bool):
    current = _type_file("uint8", get=False)
    if testing:
        current = current.replace("package flags\n\n", "package flags\n\nimport \"testing\"\n\n"
                                  "var _ = testing.Short\n\n", 1)
    write(tmp_path, {"go.mod": GO_MOD, "flag.go": FLAG_GO, "int8.go": _type_file("int8"),
                     "int16.go": _type_file("int16", get=False), "uint8.go": current})
    table = scores(tmp_path, "uint8.go", "\treturn 0, nil")
    return (score(table, "flag.go", "func (f *FlagSet) getFlagType("),
            score(table, "flag.go", "func (f *FlagSet) Aardvark()"))


def test_go_a_name_one_sibling_uses_is_lifted_in_a_file_that_is_not_a_test(tmp_path):
    # websocket's server.go calls newConn like conn's other callers: in package code one
    # similar sibling's use is a pattern; in tests (viper_test.go) it is one test's habit
    get, other = _one_sibling_package(tmp_path, testing=False)
    assert get > other
    get, other = _one_sibling_package(tmp_path / "t", testing=True)
    assert get == other
