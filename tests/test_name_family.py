"""Relatives of the names around the cursor (`flashls/context/name_family.py`): a Go
name used for the first time, with no evidence of its own, is lifted by an identifier
made of the same words a few lines away; a theme shared by many names lifts none."""

from __future__ import annotations

from flashls.context import name_family as nf
from tests.files import write
from tests.test_context_go_rust import GO_MOD, score, scores


def test_words_split_camel_snake_acronyms_and_fold_plurals():
    assert nf.words("URLHost") == {"url", "host"}
    assert nf.words("scan_follows_false") == {"scan", "follow", "false"}
    assert nf.words("ValidateFlags") == {"validate", "flag"}
    assert nf.words("HTTPServerV2") == {"http", "server", "v", "2"}
    assert nf.words("class") == {"class"}  # `ss`: no plural


def test_dice_ignores_names_sharing_only_weak_words():
    assert nf.dice(nf.words("NewRouter"), nf.words("NewEntry")) == 0.0
    assert nf.dice(nf.words("scanFollowsFalse"), nf.words("scanFollowsTrue")) > 0.6


def test_a_theme_of_many_names_lifts_none_of_them():
    index = {"flag": frozenset(f"Flag{i}Set" for i in range(nf.MAX_FAMILY + 1)),
             "set": frozenset(f"Flag{i}Set" for i in range(nf.MAX_FAMILY + 1))}
    assert nf.bonuses({"FlagSet": 1}, index) == {}
    few = {w: frozenset(list(names)[:2]) for w, names in index.items()}
    assert nf.bonuses({"FlagSet": 1}, few)


SCANNER = ("package toml\n\n"
           "func scanDigits(b []byte) int { return 0 }\n\n"
           "func scanWhitespace(b []byte) int { return 0 }\n\n"
           "func scanFollowsTrue(b []byte) bool { return false }\n\n"
           "func scanFollowsFalse(b []byte) bool { return false }\n")


def test_go_first_use_of_a_relative_of_a_name_used_above_ranks_first(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "scanner.go": SCANNER,
        "parser.go": "package toml\n\nfunc parseBool(b []byte) bool {\n"
                     "\tswitch b[0] {\n\tcase 't':\n\t\treturn scanFollowsTrue(b)\n"
                     "\tcase 'f':\n\t\t\n\t}\n\treturn false\n}\n",
    })
    table = scores(tmp_path, "parser.go", "\t\t\n")
    assert score(table, "scanner.go", "func scanFollowsFalse(") > \
        score(table, "scanner.go", "func scanDigits(") + 20


def test_go_relative_far_outside_the_rows_read_lifts_nothing(tmp_path):
    filler = "".join(f"\tn{i} := {i}\n\t_ = n{i}\n" for i in range(nf.ROWS))
    write(tmp_path, {
        "go.mod": GO_MOD,
        "scanner.go": SCANNER,
        "parser.go": "package toml\n\nfunc parseBool(b []byte) bool {\n"
                     "\tok := scanFollowsTrue(b)\n" + filler +
                     "\t\n\treturn ok\n}\n",
    })
    table = scores(tmp_path, "parser.go", "\t\n\treturn ok")
    assert score(table, "scanner.go", "func scanFollowsFalse(") < \
        score(table, "scanner.go", "func scanDigits(") + 5


def test_the_line_being_typed_lifts_nothing():
    """Half-typed words would change the family at every key (and the prompt's head
    with it): only the rows around the cursor's line count."""
    lines = ["func f() {", "\tscanFollowsTrue(b)", "\tscanFol", "}"]
    near = nf.relatives(lines, 2, (0, 3))
    assert "scanFol" not in near and near["scanFollowsTrue"] == 1


def test_remembered_bonuses_equal_a_fresh_computation():
    index = {"scan": frozenset({"scanFollowsFalse", "scanDigits"}),
             "follow": frozenset({"scanFollowsFalse"}), "false": frozenset({"scanFollowsFalse"}),
             "digit": frozenset({"scanDigits"})}
    first = {"scanFollowsTrue": 2}
    other = {"scanFollowsTrue": 9}
    assert nf._last_bonuses(first, index) == nf.bonuses(first, index)
    assert nf._last_bonuses(other, index) == nf.bonuses(other, index) != nf.bonuses(first, index)
    assert nf._last_bonuses(first, dict(index)) == nf.bonuses(first, index)


def test_the_name_a_definition_line_declares_is_no_relative():
    """The function around the cursor naming itself (`GetUint8`) says its parallels in
    other files exist (`GetInt8`, `GetUint16`), not that it calls them; a call of the
    same name still counts."""
    lines = ["func (f *FlagSet) GetUint8(name string) (uint8, error) {", "\t",
             "\treturn f.GetUint8Slice(name)", "}"]
    near = nf.relatives(lines, 1, (0, 3))
    assert "GetUint8" not in near and near["FlagSet"] == 1 and near["GetUint8Slice"] == 1
    again = nf.relatives(["func run() {", "\t", "\trun()", "}"], 1, (0, 3))
    assert again["run"] == 1  # the recursive call is an occurrence


def test_parallel_definitions_of_other_files_are_not_lifted_by_the_function_name(tmp_path):
    def getter(t: str) -> str:
        return (f"package flags\n\nfunc (f *FlagSet) Get{t}(name string) (int, error) {{\n"
                f"\treturn 0, nil\n}}\n")
    write(tmp_path, {
        "go.mod": GO_MOD,
        "flag.go": "package flags\n\ntype FlagSet struct{}\n\n"
                   "func (f *FlagSet) Lookup(name string) int { return 0 }\n",
        "int8.go": getter("Int8"), "int16.go": getter("Int16"),
        "uint8.go": "package flags\n\nfunc (f *FlagSet) GetUint8(name string) (int, error) {\n"
                    "\t\n\treturn 0, nil\n}\n",
    })
    table = scores(tmp_path, "uint8.go", "\t\n\treturn 0")
    assert score(table, "int8.go", "func (f *FlagSet) GetInt8(") <= \
        score(table, "flag.go", "func (f *FlagSet) Lookup(")


def test_relatives_of_the_current_files_own_names_are_parallels_not_lifted(tmp_path):
    """`newUint8Parser` defined in uint8.go and called near the cursor: int8.go's
    `newInt8Parser` is the same pattern for another type, not what uint8.go calls."""
    def flag_type(t: str) -> str:
        return (f"package flags\n\ntype {t}Parser {t}\n\n"
                f"func new{t.title()}Parser(p *{t}) *{t}Parser {{ return nil }}\n\n"
                f"func {t}Conv(s string) int {{ return 0 }}\n")
    write(tmp_path, {
        "go.mod": GO_MOD,
        "int8.go": flag_type("int8"),
        "uint8.go": flag_type("uint8") + "\nfunc Register(p *uint8) {\n"
                    "\tv := newUint8Parser(p)\n\t\n\t_ = v\n}\n",
    })
    table = scores(tmp_path, "uint8.go", "\t\n\t_ = v")
    assert score(table, "int8.go", "func newInt8Parser(") <= \
        score(table, "int8.go", "func int8Conv(") + 1
