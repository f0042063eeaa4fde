"""Rust re-export chains (`flashls/context/rust_reexports.py`): a name imported from the
crate root is re-exported by `lib.rs` from a `mod.rs` that re-exports it from the file
defining it; the neighbor search follows both hops, and among a barrel's many modules
the one re-exporting the name comes first."""

from __future__ import annotations

from pathlib import Path

from flashls.context.analysis import analyze
from flashls.context.assemble import _current_analysis
from flashls.context.brief_lang import without_attributes
from flashls.context.document import Document
from flashls.context.languages import language_for
from flashls.context.neighbors import neighbor_files
from flashls.context.rust_reexports import deep_barrel, reexported_names
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE
from tests.files import sent_context, write
from tests.test_context_go_rust import CARGO


def _neighbors(root: Path, rel: str) -> list[str]:
    path = root / rel
    text = path.read_text()
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
    analysis = _current_analysis(pdoc)
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    return [f.source for f in neighbor_files(analysis.spec, str(path), analysis, ws, {})]


def _naive_crate(modules: int) -> dict[str, str]:
    """`lib.rs` declaring `modules` filler modules, then `naive`, which re-exports
    `NaiveDate` from `naive/date.rs` (chrono's shape)."""
    files = {"Cargo.toml": CARGO}
    lib = "".join(f"pub mod m{k:02};\n" for k in range(modules))
    lib += "pub mod naive;\npub use naive::{NaiveDate};\n"
    files["src/lib.rs"] = lib
    for k in range(modules):
        files[f"src/m{k:02}/mod.rs"] = f"pub struct M{k:02};\n"
    files["src/naive/mod.rs"] = ("mod date;\nmod isoweek;\nmod time;\nmod datetime;\n"
                                 "mod internals;\n"
                                 "pub use self::date::NaiveDate;\n"
                                 "pub use self::time::NaiveTime;\n")
    files["src/naive/date.rs"] = ("pub struct NaiveDate {\n    ymdf: i32,\n}\n\n"
                                  "impl NaiveDate {\n    pub fn from_ymd(y: i32) -> Self {\n"
                                  "        NaiveDate { ymdf: y }\n    }\n}\n")
    for name, text in (("isoweek", "pub struct IsoWeek;\n"), ("time", "pub struct NaiveTime;\n"),
                       ("datetime", "pub struct NaiveDateTime;\n"),
                       ("internals", "pub struct YearFlags;\n")):
        files[f"src/naive/{name}.rs"] = text
    files["src/format.rs"] = ("use crate::NaiveDate;\n\npub fn parse(y: i32) -> NaiveDate {\n"
                              "    let d = 0;\n}\n")
    return files


def test_a_mod_rs_re_exported_by_lib_rs_is_followed_to_the_imported_name(tmp_path):
    files = _naive_crate(modules=2)
    write(tmp_path, files)
    got = _neighbors(tmp_path, "src/format.rs")
    assert got[0] == "src/lib.rs" and "src/naive/mod.rs" in got
    assert "src/naive/date.rs" in got
    assert "src/naive/isoweek.rs" not in got  # the second hop reads the name's file only
    sent = sent_context(tmp_path, {}, "src/format.rs", files["src/format.rs"], budget=2048)
    assert "pub struct NaiveDate {" in sent


def test_the_module_re_exporting_an_imported_name_is_read_among_many(tmp_path):
    # 30 filler modules fill the 24 neighbor slots in file order unless the one
    # re-exporting `NaiveDate` is known to lead to it
    write(tmp_path, _naive_crate(modules=30))
    got = _neighbors(tmp_path, "src/format.rs")
    assert "src/naive/mod.rs" in got and "src/naive/date.rs" in got


def test_reexported_names_reads_pub_use_statements_only():
    src = ("mod date;\nuse self::internals::YearFlags;\npub use self::date::{\n"
           "    NaiveDate,\n    MIN_DATE as MIN,\n};\npub(crate) use self::time::NaiveTime;\n"
           "pub struct IsoWeek;\n")
    analysis = analyze(language_for("", "mod.rs"), src, ("reexported", src))
    names = reexported_names(analysis)
    assert {"date", "NaiveDate", "MIN_DATE", "MIN", "time", "NaiveTime"} <= names
    assert "YearFlags" not in names and "IsoWeek" not in names and "self" not in names


def test_deep_barrels_are_mod_rs_and_lib_rs():
    assert deep_barrel("src/naive/mod.rs") and deep_barrel("src/lib.rs")
    assert not deep_barrel("src/naive.rs") and not deep_barrel("src/mod.py")


def test_benchmark_signature_of_a_rust_item_is_its_definition_line_not_an_attribute():
    # benchmarks/real_context: a task is won when the definition line is sent; an
    # attribute naming the item (`#[must_use = "GroupingMap is lazy .."]`) is not it
    from benchmarks.real_context import _signature_line
    src = ('#[derive(Clone)]\n#[must_use = "GroupingMap is lazy"]\npub struct GroupingMap<I> {\n'
           '    iter: I,\n}\n\n#[cfg(any(backtrace, feature = "backtrace"))]\n'
           'macro_rules! backtrace {\n    () => {};\n}\n')
    items = analyze(language_for("", "lib.rs"), src, ("signature-line", src)).items
    lines = {it.name: _signature_line(it) for it in items if it.name}
    assert lines["GroupingMap"] == "pub struct GroupingMap<I> {"
    assert lines["backtrace"] == "macro_rules! backtrace {"


def test_rust_brief_form_leaves_attributes_and_field_docs_out():
    # regex-syntax's `ast::` types: without this, each costs its derive line and a
    # field doc besides its name (`brief_lang.language_brief`)
    src = ("#[derive(Clone, Debug, Eq, PartialEq)]\npub struct Alternation {\n"
           "    /// The span of this alternation.\n    pub span: Span,\n"
           "    /// The alternate regular expressions.\n    pub asts: Vec<Ast>,\n"
           "    pub extra: u8,\n}\n")
    items = analyze(language_for("", "mod.rs"), src, ("rust-brief", src)).items
    item = next(it for it in items if it.name == "Alternation")
    head, tail, _ = item.brief
    text = "\n".join(head + tail)
    assert "pub struct Alternation {" in text and "pub span: Span," in text
    assert "#[" not in text and "///" not in text
    assert "#[derive(Clone, Debug, Eq, PartialEq)]" in item.lines  # the full form keeps them


def test_rust_attributes_over_several_lines_are_left_out_whole():
    head = ["#[cfg_attr(", '    feature = "serde",', "    derive(Serialize)", ")]",
            "#[inline]", "pub fn parse(&self) -> Ast {"]
    assert without_attributes(head) == ["pub fn parse(&self) -> Ast {"]
    assert without_attributes(["#[test]"]) == ["#[test]"]  # nothing else: unchanged
