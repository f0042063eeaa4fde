"""Go test files: the file a test tests (`flashls/context/evidence_go_twin.py`) and
what a test function's name says it tests (`name_family.tested_name`)."""

from __future__ import annotations

from types import SimpleNamespace

from flashls.context import evidence_go_twin as twin
from flashls.context import name_family
from tests.files import write
from tests.test_context_go_rust import GO_MOD, score, scores

COMMAND_GO = ("package cli\n\ntype Command struct{ name string }\n\n"
              "func (c *Command) Name() string { return c.name }\n")
BASH_GO = "package cli\n\nfunc (c *Command) GenBash() error { return nil }\n"
ZSH_GO = "package cli\n\nfunc (c *Command) GenZsh() error { return nil }\n"
SCRIPTS_TEST = ("package cli\n\nimport \"testing\"\n\n"
                "func TestScripts(t *testing.T) {\n\tc := &Command{}\n\t_ = c.Name()\n"
                "\tcheck(t)\n}\n\nfunc check(t *testing.T) {}\n")


def test_a_tests_twin_ranks_its_unused_entries_above_their_namesakes_elsewhere(tmp_path):
    write(tmp_path, {"go.mod": GO_MOD, "command.go": COMMAND_GO, "bash.go": BASH_GO,
                     "zsh.go": ZSH_GO, "zsh_test.go": SCRIPTS_TEST})
    table = scores(tmp_path, "zsh_test.go", "\tcheck(t)")
    # both are methods of the receiver's type, neither is used: zsh_test.go tests zsh.go
    assert score(table, "zsh.go", "func (c *Command) GenZsh()") > \
        score(table, "bash.go", "func (c *Command) GenBash()")


def test_an_external_test_reaches_only_its_twins_exported_names(tmp_path):
    write(tmp_path, {"go.mod": GO_MOD, "command.go": COMMAND_GO, "bash.go": BASH_GO,
                     "zsh.go": ZSH_GO + "\nfunc (c *Command) genZshLine() string { return \"\" }\n",
                     "zsh_test.go": SCRIPTS_TEST.replace("package cli\n\nimport \"testing\"",
                                                         "package cli_test\n\nimport (\n"
                                                         "\t\"testing\"\n\n"
                                                         "\t. \"example.com/shop\"\n)")})
    table = scores(tmp_path, "zsh_test.go", "\tcheck(t)")
    assert score(table, "zsh.go", "func (c *Command) GenZsh()") > \
        score(table, "bash.go", "func (c *Command) GenBash()")
    assert score(table, "zsh.go", "func (c *Command) genZshLine()") < \
        score(table, "zsh.go", "func (c *Command) GenZsh()")


def test_the_twin_is_the_longest_stem_the_test_names_first():
    files = [SimpleNamespace(path=f"/p/{n}") for n in
             ("int.go", "int_slice.go", "int_slice_more_test.go", "format.go", "formatter.go")]
    assert twin.twin_index("/p/int_slice_test.go", files) == 1
    assert twin.twin_index("/p/int_test.go", files) == 0
    assert twin.twin_index("/p/formatter_bench_test.go", files) == 4
    assert twin.twin_index("/p/other_test.go", files) == -1
    assert twin.twin_index("/p/int_slice.go", files) == -1  # no test, no twin
    assert twin.twin_index("/q/int_test.go", files) == -1  # another directory


def test_a_big_twins_bonus_is_shared_out_and_used_names_get_none():
    small = twin.bonuses(frozenset({"A", "B"}), {"A": object()})
    assert small == {"B": 100 * twin.TWIN}
    names = frozenset(f"N{k}" for k in range(4 * twin.SMALL_TWIN))
    big = twin.bonuses(names, {})
    assert set(big.values()) == {100 * twin.TWIN / 4}


LOGGER_GO = ("package log\n\ntype Logger struct{ level int }\n\n"
             "func New() *Logger { return &Logger{} }\n\n"
             "func (l *Logger) SetFormatter(f string) {}\n\n"
             "func (l *Logger) SetReportCaller(on bool) {}\n")


def test_a_test_functions_name_lifts_what_it_tests_anywhere_in_its_body(tmp_path):
    body = "".join(f"\tl.level = {k}\n" for k in range(30))
    write(tmp_path, {"go.mod": GO_MOD, "logger.go": LOGGER_GO,
                     "race_test.go": "package log\n\nimport \"testing\"\n\n"
                                     "func TestSetReportCallerRace(t *testing.T) {\n"
                                     f"\tl := New()\n{body}\tdone(t)\n}}\n\n"
                                     "func done(t *testing.T) {}\n"})
    table = scores(tmp_path, "race_test.go", "\tdone(t)")  # 30 rows below the name
    assert score(table, "logger.go", "func (l *Logger) SetReportCaller(") > \
        score(table, "logger.go", "func (l *Logger) SetFormatter(")


def test_tested_name_reads_tests_benchmarks_and_examples_only():
    lines = ["func TestGetLevel(t *testing.T) {", "func ExampleCommand_Flags() {",
             "func BenchmarkParse(b *testing.B) {", "func testHelper(t *testing.T) {",
             "func Testify() {"]
    assert name_family.tested_name(lines, (0, 0)) == "GetLevel"
    assert name_family.tested_name(lines, (1, 1)) == "Command_Flags"
    assert name_family.tested_name(lines, (2, 2)) == "Parse"
    assert name_family.tested_name(lines, (3, 3)) is None
    assert name_family.tested_name(lines, (4, 4)) is None  # `Testify`: no test (no upper-case after)


def test_a_big_packages_code_is_read_before_other_tests_when_nothing_tells_them_apart(tmp_path):
    from flashls.context.analysis import analyze
    from flashls.context.languages import language_for
    from flashls.context.neighbors import MAX_NEIGHBOR_FILES, neighbor_files
    from flashls.context.workspace import Workspace
    from flashls.settings import DEFAULT_EXCLUDE
    files = {"go.mod": GO_MOD, "used.go": "package cli\n\nfunc Used() {}\n",
             "zz_format.go": "package cli\n\ntype TextFormat struct{}\n",
             "main_test.go": "package cli\n\nimport \"testing\"\n\n"
                             "func TestMain(t *testing.T) {\n\tUsed()\n}\n"}
    for k in range(MAX_NEIGHBOR_FILES + 2):  # more tests than there are neighbor slots
        files[f"a{k:02d}_test.go"] = f"package cli\n\nfunc helper{k}() {{}}\n"
    write(tmp_path, files)
    path = tmp_path / "main_test.go"
    text = path.read_text()
    analysis = analyze(language_for("", str(path)), text, ("test", str(path)))
    got = neighbor_files(analysis.spec, str(path), analysis,
                         Workspace([str(tmp_path)], DEFAULT_EXCLUDE), {})
    names = [f.source for f in got]
    assert names[0] == "used.go"  # what the test uses first
    assert names[1] == "zz_format.go"  # then the package's code, before other tests


def test_a_tests_twin_is_read_first_in_a_package_of_more_files_than_are_read(tmp_path):
    from flashls.context.analysis import analyze
    from flashls.context.languages import language_for
    from flashls.context.neighbors import MAX_NEIGHBOR_FILES, neighbor_files
    from flashls.context.workspace import Workspace
    from flashls.settings import DEFAULT_EXCLUDE
    files = {"go.mod": GO_MOD, "zz_value.go": "package cli\n\nfunc GetValue() int { return 0 }\n",
             "zz_value_test.go": "package cli\n\nimport \"testing\"\n\n"
                                 "func TestValue(t *testing.T) {\n\tUsed0()\n}\n"}
    for k in range(MAX_NEIGHBOR_FILES + 4):  # a flag library's file per type
        files[f"a{k:02d}.go"] = f"package cli\n\nfunc Used{k}() {{}}\n"
    write(tmp_path, files)
    path = tmp_path / "zz_value_test.go"
    analysis = analyze(language_for("", str(path)), path.read_text(), ("test", str(path)))
    got = neighbor_files(analysis.spec, str(path), analysis,
                         Workspace([str(tmp_path)], DEFAULT_EXCLUDE), {})
    assert [f.source for f in got][:2] == ["zz_value.go", "a00.go"]
