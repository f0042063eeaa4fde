"""rust_impl_only: a type declared in a macro body is known by its impl headers only."""
from types import SimpleNamespace as NS

from flashls.context import evidence_rust
from flashls.context.rust_impl_only import impl_only_types
from tests.files import write
from tests.test_context_go_rust import CARGO, score, scores


def _an(*items):
    return NS(items=tuple(NS(name=n, kind=k) for n, k in items))


def test_impl_only_type_imported_by_name_is_found():
    parser = NS(analysis=_an(("ParseError", "impl"), ("Parser", "struct"), ("Parser", "impl")))
    here = _an(("Url", "struct"))
    got = impl_only_types(here, [parser], frozenset({"ParseError", "Parser"}), frozenset())
    assert got == frozenset({"ParseError"})


def test_std_types_and_own_definitions_keep_the_discount():
    lib = NS(analysis=_an(("Vec", "impl"), ("Thing", "impl")))
    here = _an(("Thing", "struct"))
    assert impl_only_types(here, [lib], frozenset({"Vec", "Thing"}), frozenset({"Vec"})) == frozenset()


# -- end to end: the score `evidence_rust.revise` gives the impl headers ----------------

PARSER = ("macro_rules! simple_enum_error {\n    ($($name: ident => $description: expr,)+) => {\n"
          "        pub enum ParseError {\n            $($name,)+\n        }\n    }\n}\n\n"
          "simple_enum_error! {\n    EmptyHost => \"empty host\",\n    InvalidPort => \"invalid port\",\n}\n\n"
          "impl std::error::Error for ParseError {}\n\n"
          "pub struct SyntaxViolation {\n    pub line: u32,\n}\n\n"
          "impl std::fmt::Display for SyntaxViolation {\n"
          "    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {\n"
          "        todo!()\n    }\n}\n")


def _impl_scores(tmp_path, lib_use: str) -> tuple[float, float]:
    """Scores of the two impl headers in parser.rs, the cursor in lib.rs's `parse`."""
    write(tmp_path, {
        "Cargo.toml": CARGO, "src/parser.rs": PARSER,
        "src/lib.rs": "mod parser;\n" + lib_use + "\n\n"
                      "pub fn parse(s: &str) -> Result<(), ParseError> {\n"
                      "    let v = SyntaxViolation { line: 1 };\n    Ok(())\n}\n",
    })
    table = scores(tmp_path, "src/lib.rs", "    Ok(())")
    return (score(table, "src/parser.rs", "impl std::error::Error for ParseError"),
            score(table, "src/parser.rs", "impl std::fmt::Display for SyntaxViolation"))


def test_impl_header_of_a_macro_declared_type_counts_in_full(tmp_path):
    error, display = _impl_scores(tmp_path, "use crate::parser::{ParseError, SyntaxViolation};")
    # SyntaxViolation has its struct line, so its impl header keeps the quarter
    assert error > display * 4


def test_without_the_rule_the_header_keeps_the_quarter(tmp_path, monkeypatch):
    with_rule, _ = _impl_scores(tmp_path / "a", "use crate::parser::{ParseError, SyntaxViolation};")
    monkeypatch.setattr(evidence_rust, "impl_only_types", lambda *a: frozenset())
    without, _ = _impl_scores(tmp_path / "b", "use crate::parser::{ParseError, SyntaxViolation};")
    assert with_rule > without * 3
