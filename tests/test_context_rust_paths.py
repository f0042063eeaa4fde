"""Rust paths through a turbofish (`flashls/context/rust_paths.py`): `SmallVec::<[u8;
2]>::from_iter(..)` names SmallVec's `from_iter`, as `SmallVec::from_iter(..)` does."""

from __future__ import annotations

from flashls.context.rust_paths import turbofish_paths
from tests.test_context_go_rust import lib_scores, score


def test_turbofish_paths_read_the_type_before_the_generic_arguments():
    assert turbofish_paths("let v = SmallVec::<[u8; 2]>::from_iter(0..3).into_iter();") == \
        (("SmallVec", "from_iter"),)
    assert turbofish_paths("SmallVec::<[Vec<u8>; 2]>::new()") == (("SmallVec", "new"),)
    assert turbofish_paths("HashMap::<K, V>::with_capacity(3)") == (("HashMap", "with_capacity"),)
    assert turbofish_paths("let v = it.collect::<Vec<_>>();") == ()


VEC = ("pub struct SmallVec<A> {\n    a: A,\n}\n\n"
       "impl<A> FromIterator<u8> for SmallVec<A> {\n"
       "    fn from_iter<I: IntoIterator<Item = u8>>(it: I) -> SmallVec<A> {\n        todo!()\n    }\n}\n\n"
       "pub struct Other;\n\nimpl FromIterator<u8> for Other {\n"
       "    fn from_iter<I: IntoIterator<Item = u8>>(it: I) -> Other {\n        Other\n    }\n}\n")


def test_a_turbofish_path_call_names_its_impl(tmp_path):
    table = lib_scores(tmp_path, {"src/vec.rs": VEC},
                       "mod vec;\nuse crate::vec::{Other, SmallVec};\n\nfn t() {\n"
                       "    let v = SmallVec::<[u8; 2]>::from_iter(0..3);\n    let o: Other;\n"
                       "    let w = 0;\n}\n", "let w = 0")
    sig = "fn from_iter<I: IntoIterator<Item = u8>>(it: I) -> "
    assert score(table, "src/vec.rs", sig + "SmallVec") >= 80
    assert score(table, "src/vec.rs", sig + "SmallVec") > score(table, "src/vec.rs", sig + "Other")
