"""Rust doctests and plain comments are no evidence (`rust_comments.py`): nom documents
every parser with an example using its siblings (`/// use nom::bytes::complete::take;`),
and those names outranked what the parser's body calls. The prose of a doc comment
stays evidence."""

from __future__ import annotations

from flashls.context import rust_comments
from flashls.context.rust_comments import unread_rows
from tests.files import write
from tests.test_context_go_rust import CARGO, score, scores

DOC = ["/// Takes the rest.", "///", "/// ```rust", "/// use nom::bytes::take;",
       "/// let p = take(3);", "/// ```", "/// See [`Needed`].", "pub fn rest() {}"]


def test_unread_rows_are_a_doctests_fences_and_code_between_them():
    assert unread_rows(DOC, 0, len(DOC)) == {2, 3, 4, 5}


def test_a_row_inside_a_block_is_known_from_the_rows_above_it():
    """A `///` line is a node of its own in tree-sitter: asked one row at a time."""
    assert [bool(unread_rows(DOC, r, r + 1)) for r in range(len(DOC))] == \
        [False, False, True, True, True, True, False, False]


def test_a_row_asked_alone_reads_the_doc_rows_above_it():
    """Without the last call's state (another document, or not the row below it)."""
    rust_comments._LAST[0] = None
    assert unread_rows(DOC, 3, 4) == {3}
    assert unread_rows(list(DOC), 6, 7) == set()  # a copy: the state is not its own


def test_inner_docs_and_indented_docs_count_too():
    lines = ["    //! ```", "    //! let x = take(1);", "    //! ```", "    let y = 1;"]
    assert unread_rows(lines, 0, 4) == {0, 1, 2}


def test_plain_comments_are_unread_and_code_ending_in_a_comment_is_read():
    lines = ["    // Safety: e is an ErrorImpl<E>.", "    let x = e.cast(); // cast back",
             "    //! inner prose", "    /// prose"]
    assert unread_rows(lines, 0, 4) == {0}


def test_a_name_used_only_in_a_doctest_is_not_evidence(tmp_path):
    write(tmp_path, {
        "Cargo.toml": CARGO,
        "src/lib.rs": "pub mod bytes;\npub mod traits;\npub mod combinator;\n",
        "src/bytes.rs": "pub fn take(n: usize) -> usize {\n    n\n}\n",
        "src/traits.rs": ("pub trait Slice {\n    fn slice(&self, n: usize) -> usize;\n}\n\n"
                          "pub fn offset(n: usize) -> usize {\n    n\n}\n"),
        "src/combinator.rs": ("use crate::bytes::take;\nuse crate::traits::{offset, Slice};\n\n"
                              "/// Recognizes the rest.\n///\n/// ```rust\n"
                              "/// let parser = take(3);\n/// let parser = take(4);\n/// ```\n"
                              "pub fn rest<I: Slice>(input: I) -> usize {\n    let n = 0;\n"
                              "    offset(input.slice(n))\n}\n"),
    })
    table = scores(tmp_path, "src/combinator.rs", "let n = 0;")
    # `take` is imported but used only in the example: an unused import, below `offset`
    assert score(table, "src/traits.rs", "pub fn offset") > \
        score(table, "src/bytes.rs", "pub fn take") + 5
