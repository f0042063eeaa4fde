"""Go and Rust evidence (`flashls/context/evidence_go.py`, `evidence_rust.py`,
`evidence_lang.py`): small real-shaped packages and crates where the neutral scores
cannot tell the used definition from a namesake, and each kind of evidence can.

Each test compares the score of the definition the code reaches with a namesake's
that comes first in file order: with the evidence removed, the two tie (or the
namesake wins) and the test fails."""

from __future__ import annotations

from pathlib import Path

from flashls.context import ranking
from flashls.context.analysis import analyze
from flashls.context.document import Document
from flashls.context.evidence_lang import order_files
from flashls.context.imports import resolve_imports
from flashls.context.neighbors import MAX_NEIGHBOR_FILES, neighbor_files
from flashls.context.syntax import ParsedDocument
from flashls.context.assemble import _current_analysis
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE
from tests.files import write


def scores(root: Path, rel: str, needle: str) -> dict[tuple[str, str, str], float]:
    """(source, name, first line stripped) -> score, for the cursor at `needle`."""
    path = root / rel
    text = path.read_text()
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
    analysis = _current_analysis(pdoc)
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    files = neighbor_files(analysis.spec, str(path), analysis, ws, {})
    cursor = text[:text.index(needle)].count("\n")
    ranking.forget()
    cands, _ = ranking.rank(analysis, str(path), cursor, (cursor, cursor), files,
                            analysis.spec.resolver)
    out = {}
    for c in cands:
        items = files[c.file].analysis.items if c.file >= 0 else analysis.items
        item = items[c.item]
        source = files[c.file].source if c.file >= 0 else "(outline)"
        line = next((x.strip() for x in item.lines if not x.lstrip().startswith("//")), "")
        out[(source, item.name, line)] = c.score
    return out


def score(table: dict, source: str, line_start: str) -> float:
    hits = [s for (src, _, line), s in table.items() if src == source and
            line.startswith(line_start)]
    assert hits, f"no candidate {line_start!r} in {source}"
    return max(hits)


GO_MOD = "module example.com/shop\n\ngo 1.20\n"


# -- Go ------------------------------------------------------------------------------
def test_go_receiver_type_decides_between_methods_of_one_name(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "path.go": "package shop\n\ntype Step struct{}\n\n"
                   "func (s Step) Values() []int { return nil }\n\n"
                   "type Route struct{ name string }\n\n"
                   "func (r *Route) Values() []int { return nil }\n",
        "use.go": "package shop\n\nfunc count(r *Route) int {\n\tn := 0\n"
                  "\tfor range r.Values() {\n\t\tn++\n\t}\n\treturn n\n}\n",
    })
    table = scores(tmp_path, "use.go", "n := 0")
    assert score(table, "path.go", "func (r *Route) Values()") > \
        score(table, "path.go", "func (s Step) Values()")


def test_go_constructor_result_and_lower_case_types_type_a_receiver(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "node.go": "package shop\n\ntype node struct{}\n\n"
                   "func (n *node) Expression() string { return \"\" }\n",
        "parser.go": "package shop\n\ntype parser struct{ depth int }\n\n"
                     "func newParser() *parser { return &parser{} }\n\n"
                     "func (p *parser) Expression() string { return \"\" }\n",
        "use.go": "package shop\n\nfunc parse() string {\n\tp := newParser()\n"
                  "\treturn p.Expression()\n}\n",
    })
    table = scores(tmp_path, "use.go", "p := newParser()")
    assert score(table, "parser.go", "func (p *parser) Expression()") > \
        score(table, "node.go", "func (n *node) Expression()")


def test_go_struct_field_types_a_chained_receiver(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "builder.go": "package shop\n\ntype list struct{}\n\n"
                      "func (l *list) Push(x int) {}\n\n"
                      "type builder struct{}\n\nfunc (b *builder) Push(x int) {}\n",
        "decoder.go": "package shop\n\ntype decoder struct {\n\tb *builder\n\tdepth int\n}\n",
        "use.go": "package shop\n\nfunc (d *decoder) add(x int) {\n"
                  "\td.b.Push(x)\n}\n",
    })
    table = scores(tmp_path, "use.go", "d.b.Push(x)")
    assert score(table, "builder.go", "func (b *builder) Push(") > \
        score(table, "builder.go", "func (l *list) Push(")


def test_go_method_on_another_known_type_is_not_the_one_called(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "fake.go": "package shop\n\ntype fakeT struct{}\n\n"
                   "func (t fakeT) Errorf(format string, args ...interface{}) {}\n\n"
                   "func Check() bool { return true }\n",
        "use_test.go": "package shop\n\nimport \"testing\"\n\n"
                       "func TestX(t *testing.T) {\n\tif !Check() {\n"
                       "\t\tt.Errorf(\"bad\")\n\t}\n}\n",
    })
    table = scores(tmp_path, "use_test.go", "if !Check()")
    assert score(table, "fake.go", "func Check()") > score(table, "fake.go", "func (t fakeT) Errorf(")


def test_go_function_named_like_a_method_called_on_a_value(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "flags.go": "package shop\n\nfunc MarkFlag(name string) error { return nil }\n\n"
                    "type Command struct{}\n\n"
                    "func (c *Command) MarkFlag(name string) error { return nil }\n",
        "use.go": "package shop\n\nfunc setup() {\n\tc := &Command{}\n"
                  "\t_ = c.MarkFlag(\"x\")\n}\n",
    })
    table = scores(tmp_path, "use.go", "c := &Command{}")
    assert score(table, "flags.go", "func (c *Command) MarkFlag(") > \
        score(table, "flags.go", "func MarkFlag(")


def test_go_package_files_defining_used_names_are_kept_when_the_package_is_large(tmp_path):
    files = {"go.mod": GO_MOD}
    for k in range(MAX_NEIGHBOR_FILES + 6):
        files[f"a{k:02d}.go"] = f"package shop\n\nfunc helper{k}() int {{ return {k} }}\n"
    files["zz_format.go"] = "package shop\n\ntype TextFormatter struct{ Colors bool }\n"
    files["use.go"] = "package shop\n\nfunc pick() *TextFormatter {\n" \
                      "\treturn &TextFormatter{Colors: true}\n}\n"
    write(tmp_path, files)
    path = tmp_path / "use.go"
    pdoc = ParsedDocument.open(Document(path.as_uri(), path.read_text(), "", 1), str(path))
    analysis = _current_analysis(pdoc)
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    got = [Path(f.path).name for f in neighbor_files(analysis.spec, str(path), analysis, ws, {})]
    assert len(got) == MAX_NEIGHBOR_FILES and "zz_format.go" in got


def test_go_each_constant_of_a_const_block_is_a_definition(tmp_path):
    """`const ( A = ..; B = .. )` is two definitions, each with its own line (as one
    block it was named after one constant, and the other was no definition at all)."""
    write(tmp_path, {
        "go.mod": GO_MOD,
        "names.go": "package shop\n\nconst (\n\t// RequestCmd asks.\n"
                    "\tRequestCmd = \"__complete\"\n\t// NoDescCmd asks tersely.\n"
                    "\tNoDescCmd = \"__completeNoDesc\"\n)\n\n"
                    "var (\n\tdefaultName = \"shop\"\n\tMaxItems    = 10\n)\n",
        "use.go": "package shop\n\nfunc run() string {\n\tx := 1\n"
                  "\treturn RequestCmd + NoDescCmd + defaultName\n}\n",
    })
    table = scores(tmp_path, "use.go", "x := 1")
    assert score(table, "names.go", 'RequestCmd = "__complete"') > 30
    assert score(table, "names.go", 'NoDescCmd = "__completeNoDesc"') > 30
    assert score(table, "names.go", 'defaultName = "shop"') > 30
    names = {name for (src, name, _) in table if src == "names.go"}
    assert {"RequestCmd", "NoDescCmd", "defaultName", "MaxItems"} <= names


def test_go_constant_of_a_block_whose_sibling_is_used_ranks_above_fill(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "a.go": "package shop\n\nconst Unrelated = 3\n",
        "kinds.go": "package shop\n\ntype Directive int\n\nconst (\n"
                    "\tDirectiveError Directive = 1 << iota\n\tDirectiveNoSpace\n"
                    "\tDirectiveNoFile\n)\n",
        "use.go": "package shop\n\nfunc f() Directive {\n\tx := DirectiveError\n"
                  "\treturn x\n}\n",
    })
    table = scores(tmp_path, "use.go", "x := DirectiveError")
    assert score(table, "kinds.go", "DirectiveNoFile") > 30
    assert score(table, "kinds.go", "DirectiveNoFile") > score(table, "a.go", "const Unrelated")


def test_go_unexported_names_of_another_package_are_not_candidates(tmp_path):
    """`toml.NewEncoder` used: toml's other exported names may be next, its
    unexported ones cannot be named from here at all."""
    write(tmp_path, {
        "go.mod": GO_MOD,
        "enc/enc.go": "package enc\n\nfunc parseInteger(b []byte) int { return 0 }\n\n"
                      "func Marshal(v any) []byte { return nil }\n\n"
                      "func NewEncoder() int { return 0 }\n",
        "cmd/main.go": "package main\n\nimport \"example.com/shop/enc\"\n\n"
                       "func main() {\n\te := enc.NewEncoder()\n\t_ = e\n}\n",
    })
    table = scores(tmp_path, "cmd/main.go", "_ = e")
    assert score(table, "enc/enc.go", "func Marshal(") > 30
    assert score(table, "enc/enc.go", "func Marshal(") > \
        5 * score(table, "enc/enc.go", "func parseInteger(")


def test_file_order_is_kept_when_everything_fits(tmp_path):
    write(tmp_path, {"go.mod": GO_MOD, "b.go": "package shop\n\nfunc B() {}\n",
                     "a.go": "package shop\n\nfunc A() {}\n",
                     "use.go": "package shop\n\nfunc f() { B() }\n"})
    path = tmp_path / "use.go"
    text = path.read_text()
    analysis = analyze(_spec(path), text, ("t", str(path)))
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    paths = [str(tmp_path / "a.go"), str(tmp_path / "b.go")]
    assert order_files("go", analysis, paths, ws, room=10) == paths
    assert order_files("go", analysis, paths, ws, room=1) == paths[::-1]
    assert order_files("python", analysis, paths, ws, room=1) == paths


def _spec(path: Path):
    from flashls.context.languages import language_for
    return language_for("", str(path))


def test_large_anchor_prefers_names_used_near_the_cursor(tmp_path):
    rows = "\n".join(f"\t\t{{in: {k}}}," for k in range(200))
    write(tmp_path, {
        "go.mod": GO_MOD,
        "opts.go": "package shop\n\nfunc SortMaps() int { return 0 }\n\n"
                   "func IgnoreFields() int { return 0 }\n",
        "use_test.go": "package shop\n\nfunc TestTable() {\n\t_ = SortMaps()\n"
                       f"\tcases := []struct{{ in int }}{{\n{rows}\n\t}}\n"
                       "\t_ = IgnoreFields()\n\t_ = cases\n}\n",
    })
    table = scores(tmp_path, "use_test.go", "\t_ = IgnoreFields()")
    assert score(table, "opts.go", "func IgnoreFields()") > score(table, "opts.go", "func SortMaps()")


# -- Rust ----------------------------------------------------------------------------
CARGO = "[package]\nname = \"my-crate\"\nversion = \"0.1.0\"\n"
PTR = ("pub struct Own<T> {\n    pub ptr: *const T,\n}\n\npub struct Ref<T> {\n"
       "    pub ptr: *const T,\n}\n\nimpl<T> Ref<T> {\n    pub fn new(p: &T) -> Self {\n"
       "        todo!()\n    }\n\n    pub fn by_ref(&self) -> Ref<T> {\n        todo!()\n    }\n}\n\n"
       "impl<T> Own<T> {\n    pub fn new(b: Box<T>) -> Self {\n        todo!()\n    }\n\n"
       "    pub fn by_ref(&self) -> Ref<T> {\n        todo!()\n    }\n}\n")


def test_rust_path_call_names_its_impl(tmp_path):
    write(tmp_path, {
        "Cargo.toml": CARGO, "src/ptr.rs": PTR,
        "src/lib.rs": "mod ptr;\nuse crate::ptr::{Own, Ref};\n\n"
                      "pub fn wrap(b: Box<u8>) -> Own<u8> {\n    let o = Own::new(b);\n    o\n}\n",
    })
    table = scores(tmp_path, "src/lib.rs", "let o = Own::new(b);")
    own_new = [s for (src, n, line), s in table.items()
               if src == "src/ptr.rs" and n == "new" and "Box<T>" in line]
    ref_new = [s for (src, n, line), s in table.items()
               if src == "src/ptr.rs" and n == "new" and "&T" in line]
    assert own_new and ref_new and own_new[0] > ref_new[0]


def test_rust_field_type_of_self_reaches_the_method(tmp_path):
    write(tmp_path, {
        "Cargo.toml": CARGO, "src/ptr.rs": PTR,
        "src/lib.rs": "mod ptr;\nuse crate::ptr::Own;\n\npub struct Error {\n"
                      "    inner: Own<u8>,\n}\n\nimpl Error {\n    pub fn peek(&self) -> u8 {\n"
                      "        let r = self.inner.by_ref();\n        0\n    }\n}\n",
    })
    # (Ref's impl comes first in ptr.rs: without the field's type it would win)
    assert _member_score(tmp_path, "src/lib.rs", "let r = self", "Own", "by_ref") > \
        _member_score(tmp_path, "src/lib.rs", "let r = self", "Ref", "by_ref")


def _member_score(root: Path, rel: str, needle: str, parent: str, name: str) -> float:
    """The score of `parent`'s member `name` (members of two impls render alike)."""
    path = root / rel
    text = path.read_text()
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
    analysis = _current_analysis(pdoc)
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    files = neighbor_files(analysis.spec, str(path), analysis, ws, {})
    cursor = text[:text.index(needle)].count("\n")
    ranking.forget()
    cands, _ = ranking.rank(analysis, str(path), cursor, (cursor, cursor), files,
                            analysis.spec.resolver)
    for c in cands:
        if c.file < 0:
            continue
        items = files[c.file].analysis.items
        item = items[c.item]
        if item.name == name and item.parent != -1 and items[item.parent].name == parent:
            return c.score
    raise AssertionError(f"no {parent}::{name}")


def test_rust_trait_bound_types_a_generic_receiver(tmp_path):
    write(tmp_path, {
        "Cargo.toml": CARGO,
        "src/traits.rs": "pub struct Window {}\n\nimpl Window {\n"
                         "    pub fn input_len(&self) -> usize {\n        0\n    }\n}\n\n"
                         "pub trait InputLength {\n    fn input_len(&self) -> usize;\n}\n",
        "src/lib.rs": "mod traits;\nuse crate::traits::InputLength;\n\n"
                      "pub fn short<I>(input: I, bound: usize) -> bool\nwhere\n"
                      "    I: InputLength + Clone,\n{\n    input.input_len() < bound\n}\n",
    })
    assert _member_score(tmp_path, "src/lib.rs", "input.input_len()", "InputLength",
                         "input_len") > \
        _member_score(tmp_path, "src/lib.rs", "input.input_len()", "Window", "input_len")


def test_rust_trait_bound_below_a_long_doc_comment_types_a_receiver(tmp_path):
    """The where clause is read from the signature, not from the first rows of the
    definition: nom's parsers open with twenty lines of `///` examples."""
    docs = "".join(f"/// example line {k}\n" for k in range(20))
    write(tmp_path, {
        "Cargo.toml": CARGO,
        "src/traits.rs": "pub struct Window {}\n\nimpl Window {\n"
                         "    pub fn input_len(&self) -> usize {\n        0\n    }\n}\n\n"
                         "pub trait InputLength {\n    fn input_len(&self) -> usize;\n}\n",
        "src/lib.rs": "mod traits;\nuse crate::traits::InputLength;\n\n" + docs +
                      "#[inline]\npub fn short<I>(input: I, bound: usize) -> bool\nwhere\n"
                      "    I: InputLength + Clone,\n{\n    input.input_len() < bound\n}\n",
    })
    assert _member_score(tmp_path, "src/lib.rs", "input.input_len()", "InputLength",
                         "input_len") > \
        _member_score(tmp_path, "src/lib.rs", "input.input_len()", "Window", "input_len")


def test_rust_repeated_names_in_one_file_count_once(tmp_path):
    write(tmp_path, {
        "Cargo.toml": CARGO, "src/ptr.rs": PTR,
        "src/lib.rs": "mod ptr;\nuse crate::ptr::{Own, Ref};\n\npub fn f(x: u8) {\n"
                      "    let r = make().by_ref();\n}\n",
    })
    first = _member_score(tmp_path, "src/lib.rs", "let r", "Ref", "by_ref")
    second = _member_score(tmp_path, "src/lib.rs", "let r", "Own", "by_ref")
    assert second < first  # same evidence, later in the file: discounted


def test_rust_name_the_current_file_defines_shadows_a_neighbors(tmp_path):
    write(tmp_path, {
        "Cargo.toml": CARGO,
        "src/number/streaming.rs": "pub fn be_u16(i: &[u8]) -> u16 {\n    0\n}\n\n"
                                   "pub fn be_u32(i: &[u8]) -> u32 {\n    0\n}\n",
        "src/number/complete.rs": "use super::streaming::*;\n\n"
                                  "pub fn be_u16(i: &[u8]) -> u16 {\n    0\n}\n\n"
                                  "pub fn both(i: &[u8]) -> u32 {\n"
                                  "    be_u16(i) as u32 + be_u32(i)\n}\n",
        "src/number/mod.rs": "pub mod complete;\npub mod streaming;\n",
        "src/lib.rs": "pub mod number;\n",
    })
    table = scores(tmp_path, "src/number/complete.rs", "be_u16(i) as u32")
    assert score(table, "src/number/streaming.rs", "pub fn be_u32(") > \
        score(table, "src/number/streaming.rs", "pub fn be_u16(")


def test_rust_crate_name_in_a_use_path_resolves_like_crate(tmp_path):
    write(tmp_path, {
        "Cargo.toml": CARGO,
        "src/lib.rs": "pub mod util;\n",
        "src/util.rs": "pub fn helper() {}\n",
        "tests/it.rs": "use my_crate::util::helper;\n\n#[test]\nfn t() {\n    helper();\n}\n",
    })
    path = tmp_path / "tests/it.rs"
    analysis = analyze(_spec(path), path.read_text(), ("t", str(path)))
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    got = [Path(p).name for p in resolve_imports(analysis.spec, str(path), analysis, ws)]
    assert got == ["util.rs"]


def test_rust_impl_of_a_reference_type_is_named_after_the_type(tmp_path):
    path = tmp_path / "g.rs"
    path.write_text("pub struct Groups<'a> { n: &'a u8 }\n\n"
                    "impl<'a> IntoIterator for &'a Groups<'a> {\n    type Item = u8;\n"
                    "    fn into_iter(self) -> Self::IntoIter {\n        todo!()\n    }\n}\n")
    analysis = analyze(_spec(path), path.read_text(), ("t", str(path)))
    assert [it.name for it in analysis.items if it.kind == "impl"] == ["Groups"]


def test_rust_trait_impl_methods_and_inline_modules_of_neighbors_count_less(tmp_path):
    write(tmp_path, {
        "Cargo.toml": CARGO,
        "src/kinds.rs": "use std::fmt;\n\npub struct Kind {}\n\n"
                        "impl fmt::Display for Kind {\n"
                        "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
                        "        todo!()\n    }\n}\n\nimpl Kind {\n"
                        "    pub fn describe(&self) -> String {\n        todo!()\n    }\n}\n\n"
                        "#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n",
        "src/lib.rs": "mod kinds;\nuse crate::kinds::Kind;\n\npub fn show(tests: u8) {\n"
                      "    let a = make().fmt(x);\n    let b = make().describe();\n}\n",
    })
    fmt = _member_score(tmp_path, "src/lib.rs", "let a", "Kind", "fmt")
    describe = [s for (src, n, _), s in scores(tmp_path, "src/lib.rs", "let a").items()
                if n == "describe"]
    assert describe and fmt < describe[0]
    table = scores(tmp_path, "src/lib.rs", "let a")
    module = [s for (src, n, _), s in table.items() if src == "src/kinds.rs" and n == "tests"]
    assert module and module[0] < describe[0] / 2


def test_rust_long_enum_below_attributes_keeps_its_name_line_in_brief(tmp_path):
    """A long body-less definition's brief form keeps its first lines; below three
    attribute lines (nom's `ErrorKind`) the line naming it must stay too."""
    variants = "".join(f"  Variant{k},\n" for k in range(30))
    text = ("#[rustfmt::skip]\n#[derive(Debug, PartialEq, Eq, Clone, Copy)]\n"
            "#[allow(deprecated, missing_docs)]\npub enum ErrorKind {\n" + variants + "}\n")
    path = tmp_path / "error.rs"
    path.write_text(text)
    analysis = analyze(_spec(path), text, ("t", str(path)))
    item = next(it for it in analysis.items if it.name == "ErrorKind" and it.kind == "enum")
    brief_lines = item.brief[0] + item.brief[1]
    assert "pub enum ErrorKind {" in brief_lines
    assert len(brief_lines) <= 6


def test_go_struct_brief_form_leaves_field_comments_out(tmp_path):
    """The brief form (completion context) of a struct whose first rows are field
    comments shows its fields, not the comments; the full form keeps them."""
    text = ("package shop\n\n// Command is a command.\ntype Command struct {\n"
            "\t// Use is the one-line usage message.\n\tUse string\n"
            "\t// Short is the short description.\n\tShort string\n}\n")
    path = tmp_path / "command.go"
    path.write_text(text)
    analysis = analyze(_spec(path), text, ("t", str(path)))
    item = next(it for it in analysis.items if it.name == "Command")
    assert item.brief[0] == ("type Command struct {", "\tUse string", "\tShort string", "}")
    assert "\t// Use is the one-line usage message." in item.lines


def test_the_file_order_does_not_depend_on_the_order_a_set_yields_its_names():
    """A file's weight is a sum of 1 / (files defining the name) over a set of names;
    summed in set order, 1/2 + 1/3 + 1/6 is 1.0 or 0.9999999999999999 depending on the
    process's hash seed, and logrus' `logger.go` and `entry.go` (tied) swapped places
    from one server start to the next, and with them what the request held."""
    from itertools import permutations

    from flashls.context.evidence_lang import _weight
    defining = {"a": 2, "b": 3, "c": 6}
    weights = {_weight(order, defining) for order in permutations(["a", "b", "c"])}
    assert weights == {1.0}


def test_go_methods_of_a_struct_fields_type_the_anchor_calls_are_at_hand(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "strict.go": "package shop\n\ntype strict struct{ on bool }\n\n"
                     "func (s *strict) EnterTable(k string) {}\n\n"
                     "func (s *strict) Close() {}\n\n"
                     "type loose struct{}\n\n"
                     "func (l *loose) Flush() {}\n",
        "decode.go": "package shop\n\ntype decoder struct {\n\tstrict strict\n}\n\n"
                     "func (d *decoder) handle(k string) {\n\td.strict.EnterTable(k)\n"
                     "\tif k == \"\" {\n\t\treturn\n\t}\n}\n",
    })
    table = scores(tmp_path, "decode.go", "\tif k ==")
    # `d.strict` is a field of type strict: its unused methods are as near as a variable's
    assert score(table, "strict.go", "func (s *strict) Close(") > \
        score(table, "strict.go", "func (l *loose) Flush(")


QUIRKS = ("use crate::Url;\n\npub fn href(url: &Url) -> &str {\n    \"\"\n}\n\n"
          "pub fn username(url: &Url) -> &str {\n    \"\"\n}\n\n"
          "pub fn hostname(url: &Url) -> &str {\n    \"\"\n}\n")


def test_rust_plain_name_of_a_module_used_by_path_scores_like_its_unused_names(tmp_path):
    # `let username = ..` is a local: it must not push `quirks::username` below the
    # module's names that are not used at all (url's `"username" => quirks::username`)
    write(tmp_path, {
        "Cargo.toml": CARGO, "src/quirks.rs": QUIRKS,
        "src/lib.rs": "mod quirks;\npub struct Url;\n",
        "src/get.rs": "use crate::{quirks, Url};\n\npub fn get(url: &Url, username: &str) -> &str {\n"
                      "    let a = quirks::href(url);\n    a\n}\n",
    })
    table = scores(tmp_path, "src/get.rs", "    a\n}")
    assert score(table, "src/quirks.rs", "pub fn username") >= \
        score(table, "src/quirks.rs", "pub fn hostname") > 20


def _crate_scores(root: Path, files: dict[str, str], rel: str, body: str) -> dict:
    """`scores` in a crate of `files` and `rel`, whose text is `body` then the line
    the cursor is on (`    let b = 1;`) and the closing brace."""
    write(root, {"Cargo.toml": CARGO, **files, rel: body + "    let b = 1;\n}\n"})
    return scores(root, rel, "    let b = 1;")


EXEC = ("pub struct ExecBuilder;\n\nimpl ExecBuilder {\n"
        "    pub fn new(re: &str) -> Self {\n        ExecBuilder\n    }\n\n"
        "    pub fn nfa(self) -> Self {\n        self\n    }\n\n"
        "    pub fn bytes(self, yes: bool) -> Self {\n        self\n    }\n\n"
        "    pub fn build(self) -> Result<Exec, ()> {\n        Ok(Exec)\n    }\n}\n\n"
        "pub struct Exec;\n")


def test_rust_method_chain_lines_are_member_calls(tmp_path):
    # rustfmt puts each call of a builder chain on a line of its own (regex's
    # tests/consistent.rs): `.nfa()` calls ExecBuilder's `nfa` as `b.nfa()` would
    table = _crate_scores(tmp_path, {"src/exec.rs": EXEC, "src/lib.rs": "mod exec;\nmod check;\n"},
                          "src/check.rs", "use crate::exec::ExecBuilder;\n\npub fn check(re: &str) {\n"
                          "    let a = ExecBuilder::new(re)\n        .nfa()\n        .build();\n")
    assert score(table, "src/exec.rs", "pub fn nfa") > 5 * score(table, "src/exec.rs", "pub fn bytes")


SMALLVEC = ("pub struct SmallVec;\n\nimpl SmallVec {\n"
            "    pub fn new() -> Self {\n        SmallVec\n    }\n\n"
            "    pub fn push(&mut self, x: u8) {\n    }\n\n"
            "    pub fn pop(&mut self) -> Option<u8> {\n        None\n    }\n\n"
            "    pub fn insert_many(&mut self, at: usize, xs: &[u8]) {\n    }\n}\n")


def test_rust_function_the_enclosing_tests_name_spells_ranks_high(tmp_path):
    # smallvec's `fn test_insert_many_overflow` calls `v.insert_many(..)` on the line
    # to complete: the name says so before any call does
    table = _crate_scores(tmp_path, {"src/vec.rs": SMALLVEC, "src/lib.rs": "mod vec;\nmod tests;\n"},
                          "src/tests.rs", "use crate::vec::SmallVec;\n\nfn test_insert_many_overflow() {\n"
                          "    let mut v = SmallVec::new();\n    v.push(1);\n")
    assert score(table, "src/vec.rs", "pub fn insert_many") > score(table, "src/vec.rs", "pub fn pop")
    assert score(table, "src/vec.rs", "pub fn insert_many") >= 90


def test_rust_a_functions_own_name_is_no_echo():
    from flashls.context.evidence_rust import echoed_names
    from types import SimpleNamespace as NS
    analysis = NS(items=[NS(start=3, name="grow_to_shrink", kind="function")])
    assert echoed_names(analysis, (3, 9)) == {"grow", "shrink", "grow_to", "to_shrink"}
    analysis = NS(items=[NS(start=3, name="size_hint", kind="function")])
    assert echoed_names(analysis, (3, 9)) == {"size", "hint"}  # never `size_hint` itself


ERROR_TRAITS = ("pub enum ErrorKind {\n    MapRes,\n}\n\n"
                "pub trait FromExternalError<I, E> {\n"
                "    fn from_external_error(input: I, kind: ErrorKind, e: E) -> Self;\n}\n\n"
                "pub trait Unrelated {\n    fn unrelated(&self) -> u8;\n}\n")


def test_rust_member_of_a_bound_trait_is_evidence_before_its_first_use(tmp_path):
    # nom's map_res: `E: FromExternalError<I, E2>` and the line being written is the
    # only `E::from_external_error(..)` of the file
    write(tmp_path, {
        "Cargo.toml": CARGO, "src/error.rs": ERROR_TRAITS,
        "src/lib.rs": "mod error;\nuse crate::error::{ErrorKind, FromExternalError, Unrelated};\n\n"
                      "pub fn map_res<I, E, E2>(i: I, r: Result<u8, E2>) -> Result<u8, E>\n"
                      "where\n    E: FromExternalError<I, E2>,\n{\n    match r {\n"
                      "        Ok(v) => Ok(v),\n        Err(e) => todo!(),\n    }\n}\n",
    })
    needle = "Err(e) => todo"
    bound = _member_score(tmp_path, "src/lib.rs", needle, "FromExternalError",
                          "from_external_error")
    assert bound >= 50
    assert _member_score(tmp_path, "src/lib.rs", needle, "Unrelated", "unrelated") < 5


def lib_scores(root: Path, modules: dict[str, str], lib: str, needle: str) -> dict:
    """`scores` for the cursor at `needle` in a crate of `modules` and this `src/lib.rs`."""
    write(root, {"Cargo.toml": CARGO, **modules, "src/lib.rs": lib})
    return scores(root, "src/lib.rs", needle)


ADAPTORS = ("pub struct MergeBy<I, J, F> {\n    a: I,\n    b: J,\n    f: F,\n}\n\n"
            "pub fn merge_by_new<I, J, F>(a: I, b: J, f: F) -> MergeBy<I, J, F> {\n"
            "    MergeBy { a, b, f }\n}\n\n"
            "pub fn unrelated_new(n: u8) -> u8 {\n    n\n}\n")


def test_rust_function_making_the_type_the_anchor_returns_is_evidence(tmp_path):
    # itertools: `fn merge_by(..) -> MergeBy<..> { adaptors::merge_by_new(self, ..) }`,
    # the call being written is the body's only line
    table = lib_scores(tmp_path, {"src/adaptors.rs": ADAPTORS},
                       "mod adaptors;\nuse crate::adaptors::MergeBy;\n\npub trait Tools {\n"
                       "    fn merge_by<J, F>(self, other: J, f: F) -> MergeBy<Self, J, F>\n"
                       "    where\n        Self: Sized,\n    {\n        todo!()\n    }\n}\n",
                       "todo!()")
    assert score(table, "src/adaptors.rs", "pub fn merge_by_new") >= 80
    assert score(table, "src/adaptors.rs", "pub fn unrelated_new") < 50
