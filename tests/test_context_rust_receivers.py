"""Rust receivers typed by a turbofish or a clone (`evidence_rust.line_bindings`):
`let map = pairs.into_iter().collect::<Table<_, _>>();` and `let copy = map.clone();`
both call Table's methods, not a namesake's of another type."""

from __future__ import annotations

from flashls.context.evidence_rust import line_bindings
from tests.files import write
from tests.test_context_go_rust import CARGO, score, scores

TABLE = ("pub struct Table<K, V> {\n    keys: Vec<K>,\n    values: Vec<V>,\n}\n\n"
         "impl<K, V> Table<K, V> {\n    pub fn get_full(&self, key: &K) -> Option<&V> {\n"
         "        None\n    }\n}\n")
LIST = ("pub struct List {\n    items: Vec<u8>,\n}\n\nimpl List {\n"
        "    pub fn get_full(&self, at: usize) -> Option<u8> {\n        None\n    }\n}\n")


HEAD = "use my_crate::table::Table;\nuse my_crate::list::List;\n\n"


def _get_full_scores(root, quick: str) -> tuple[float, float]:
    """Table's and List's `get_full` for the cursor at `let n = 0;` of tests/quick.rs."""
    write(root, {"Cargo.toml": CARGO, "src/lib.rs": "pub mod table;\npub mod list;\n",
                 "src/table.rs": TABLE, "src/list.rs": LIST, "tests/quick.rs": HEAD + quick})
    table = scores(root, "tests/quick.rs", "let n = 0;")
    return score(table, "src/table.rs", "pub fn get_full"), \
        score(table, "src/list.rs", "pub fn get_full")


def test_turbofish_and_clone_bind_a_type():
    assert line_bindings("    let map = it.collect::<Table<_, _>>();") == \
        (("map", "Table", "decl"),)
    assert line_bindings("    let mut copy = map.clone();") == (("copy", "map", "alias"),)
    assert line_bindings("    let n = s.parse::<u8>().unwrap();") == ()


def test_a_clone_of_a_collected_value_calls_the_collected_types_method(tmp_path):
    table, other = _get_full_scores(tmp_path, (
        "fn lookup(pairs: Vec<(u8, u8)>, l: List) -> bool {\n"
        "    let map = pairs.into_iter().collect::<Table<_, _>>();\n"
        "    let copy = map.clone();\n    let n = 0;\n    copy.get_full(&n).is_some()\n}\n"))
    assert table > 2 * other


def test_a_binding_broken_after_its_equals_sign_types_the_variable(tmp_path):
    """rustfmt breaks a long `let` after `=`: `let mut cls =` above
    `hir::ClassBytes::new(..)`."""
    table, other = _get_full_scores(tmp_path, (
        "fn lookup(l: List) -> bool {\n    let map =\n        Table::default();\n"
        "    let n = 0;\n    map.get_full(&n).is_some()\n}\n"))
    assert table > 2 * other

