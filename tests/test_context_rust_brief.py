"""Rust entries that cost less or say nothing: the brief form of a signature leaves its
`where` clause out (`brief_lang.without_where_clause`; nom's `bytes` was three lines
for one name), and what a neighbor's `mod tests { .. }` holds is not sent
(`evidence_rust.TEST_ITEM`)."""

from __future__ import annotations

from flashls.context.analysis import analyze
from flashls.context.brief_lang import without_where_clause
from tests.files import write
from tests.test_context_go_rust import CARGO, _spec, scores


def test_the_where_clause_of_a_signature_is_left_out_of_its_brief_form(tmp_path):
    text = ("pub fn bytes<I, P>(mut parser: P) -> Bytes<I>\nwhere\n"
            "  I: Slice + InputLength,\n  P: Parser<I>,\n{\n  todo!()\n}\n\n"
            "impl<K, V, S> Map<K, V, S>\nwhere\n  K: Hash + Eq,\n  S: BuildHasher,\n{\n"
            "  pub fn len(&self) -> usize {\n    0\n  }\n}\n")
    path = tmp_path / "lib.rs"
    path.write_text(text)
    analysis = analyze(_spec(path), text, ("t", str(path)))
    fn = next(it for it in analysis.items if it.name == "bytes")
    assert fn.brief[0] == ("pub fn bytes<I, P>(mut parser: P) -> Bytes<I>", "{")
    assert "  I: Slice + InputLength," in fn.lines  # the full form keeps it
    impl = next(it for it in analysis.items if it.kind == "impl")
    assert impl.brief[0] == ("impl<K, V, S> Map<K, V, S>", "{")


def test_a_where_on_the_signature_line_and_a_lone_where_stay():
    assert without_where_clause(["fn f<T>(x: T) where T: Copy {"]) == \
        ["fn f<T>(x: T) where T: Copy {"]
    assert without_where_clause(["where"]) == ["where"]


def test_what_a_neighbors_test_module_holds_is_not_a_candidate(tmp_path):
    write(tmp_path, {
        "Cargo.toml": CARGO,
        "src/kinds.rs": ("pub fn character(c: char) -> bool {\n    true\n}\n\n"
                         "#[cfg(test)]\nmod tests {\n    fn character() {}\n}\n"),
        "src/lib.rs": ("mod kinds;\nuse crate::kinds::character;\n\n"
                       "pub fn show(c: char) -> bool {\n    let a = 1;\n    character(c)\n}\n\n"
                       "#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n"),
    })
    table = scores(tmp_path, "src/lib.rs", "let a")
    top = table[("src/kinds.rs", "character", "pub fn character(c: char) -> bool {")]
    in_tests = table[("src/kinds.rs", "character", "fn character() {}")]
    module = next(v for (src, name, _), v in table.items()
                  if src == "src/kinds.rs" and name == "tests")
    assert in_tests < 5 and module < 5 and top > 50


def test_a_where_clause_opening_on_its_first_bound_is_left_out_too():
    # itertools' trait methods: `    where Self: Sized,` under the signature, three lines
    # of bounds for each of a hundred methods
    head = ["    fn sorted_by<F>(self, cmp: F) -> VecIntoIter<Self::Item>",
            "        where Self: Sized,", "              F: FnMut(&Self::Item) -> Ordering,",
            "    {"]
    assert without_where_clause(head) == [head[0], "    {"]
    one_line = ["fn f<T>(x: T)", "    where T: Copy {"]  # it opens the body: kept
    assert without_where_clause(one_line) == one_line
