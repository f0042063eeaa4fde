"""Session 15 Rust rules: a test written inside a macro echoes its name."""
from flashls.context import evidence_rust
from flashls.context.rust_macro_fn import enclosing_fn_name
from tests.files import write
from tests.test_context_go_rust import CARGO, score, scores

QUICK = """quickcheck! {
    fn size_take(a: Vec<u8>) -> bool {
        x
    }
}

quickcheck! {
    fn equal_partition(a: Vec<i32>) -> bool {
        let mut a = a;
        if a {
            b
        } else {
            CUR
        }
        CUR2
    }
    fn multi(a: X)
        -> bool
    {
        CUR3
    }
    CUR4
}
""".split("\n")


def _at(tag: str) -> int:
    return next(i for i, line in enumerate(QUICK) if line.strip() == tag)


def test_enclosing_fn_is_read_from_the_lines_of_a_macro_body():
    assert enclosing_fn_name(QUICK, _at("CUR")) == "equal_partition"  # `} else {` crossed
    assert enclosing_fn_name(QUICK, _at("CUR2")) == "equal_partition"
    assert enclosing_fn_name(QUICK, _at("CUR3")) == "multi"  # a header above its `{`
    assert enclosing_fn_name(QUICK, _at("x")) == "size_take"


def test_between_functions_of_a_macro_body_there_is_none():
    assert enclosing_fn_name(QUICK, _at("CUR4")) is None
    assert enclosing_fn_name(QUICK, 0) is None


LIB = ("pub fn partition(v: &mut [i32]) -> usize {\n    0\n}\n\n"
       "pub fn interleave(a: u8) -> u8 {\n    a\n}\n\n"
       "pub fn merge(a: u8) -> u8 {\n    a\n}\n")
TEST = ("use my_crate::merge;\n\n"
        "quickcheck! {\n    fn equal_partition(a: Vec<i32>) -> bool {\n"
        "        let mut ap = a.clone();\n        let n = 0;\n        merge(1) == 1\n    }\n}\n")


def _partition_score(tmp_path) -> float:
    write(tmp_path, {"Cargo.toml": CARGO, "src/lib.rs": LIB, "tests/quick.rs": TEST})
    table = scores(tmp_path, "tests/quick.rs", "let n = 0;")
    return score(table, "src/lib.rs", "pub fn partition")


def test_a_quickcheck_test_name_lifts_what_it_spells(tmp_path, monkeypatch):
    with_rule = _partition_score(tmp_path / "a")
    monkeypatch.setattr(evidence_rust, "MACRO_FN_ECHO", False)
    without = _partition_score(tmp_path / "b")
    assert with_rule >= evidence_rust.ECHO_SCORE > without
