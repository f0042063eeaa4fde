"""Rust names a file imports from the standard library (`evidence_rust.std_imported`):
`use std::cmp::{max, min}` binds `min` to std's, so a crate's own `min` (itertools'
`free::min`, reached by a star import) is not what a plain `min(..)` calls."""

from __future__ import annotations

from flashls.context.analysis import analyze
from flashls.context.evidence_rust import std_imported
from flashls.context.languages import language_for
from tests.files import write
from tests.test_context_go_rust import CARGO, score, scores


def test_std_imported_reads_grouped_nested_and_renamed_use_statements():
    src = ("use std::cmp::{max, min, Ordering};\nuse core::ops::Range as R;\n"
           "use crate::free::merge;\nmod tests {\n    use std::{\n        fmt,\n"
           "        collections::HashMap,\n    };\n}\n")
    analysis = analyze(language_for("", "a.rs"), src, ("std-imported", src))
    names = std_imported(analysis)
    assert {"max", "min", "Ordering", "R", "fmt", "HashMap"} <= names
    assert "Range" not in names and "merge" not in names


def test_rust_name_imported_from_std_is_not_the_crates_namesake(tmp_path):
    write(tmp_path, {
        "Cargo.toml": CARGO,
        "src/lib.rs": "pub mod free;\n",
        "src/free.rs": "pub fn min<T>(a: T, b: T) -> T {\n    a\n}\n\n"
                       "pub fn merge<T>(a: T, b: T) -> T {\n    a\n}\n",
        "tests/quick.rs": "use std::cmp::min;\nuse my_crate::free::*;\n\n#[test]\n"
                          "fn t() {\n    let a = min(1, 2);\n    let b = merge(1, 2);\n}\n",
    })
    table = scores(tmp_path, "tests/quick.rs", "let a = min")
    assert score(table, "src/free.rs", "pub fn min<") < \
        score(table, "src/free.rs", "pub fn merge<") / 2
