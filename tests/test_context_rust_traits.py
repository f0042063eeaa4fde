"""Rust trait methods reached through `impl Trait for Type` (`evidence_rust.receivers`):
a value of a type the crate implements a trait for has the trait's methods, and so has
`self` inside such an impl. Without that, the trait's method and a namesake of another
type score alike (both are "a method of some other known type")."""

from __future__ import annotations

from tests.files import write
from tests.test_context_go_rust import CARGO, score, scores

BUF = ("pub trait Buf {\n    fn remaining(&self) -> usize;\n\n"
       "    fn advance(&mut self, cnt: usize);\n\n"
       "    fn get_u8(&mut self) -> u8 {\n        0\n    }\n}\n")
READER = ("pub struct Reader {\n    pos: usize,\n}\n\nimpl Reader {\n"
          "    pub fn advance(&mut self, cnt: usize) {\n        self.pos += cnt;\n    }\n\n"
          "    pub fn get_u8(&mut self) -> u8 {\n        0\n    }\n}\n")


def test_a_value_of_a_type_implementing_a_trait_has_the_traits_methods(tmp_path):
    write(tmp_path, {
        "Cargo.toml": CARGO,
        "src/lib.rs": "pub mod buf;\npub mod reader;\npub mod bytes;\n",
        "src/buf.rs": BUF,
        "src/reader.rs": READER,
        "src/bytes.rs": ("use crate::buf::Buf;\n\npub struct Bytes {\n    len: usize,\n}\n\n"
                         "impl Buf for Bytes {\n    fn remaining(&self) -> usize {\n"
                         "        self.len\n    }\n\n    fn advance(&mut self, cnt: usize) {\n"
                         "        self.len -= cnt;\n    }\n}\n"),
        "src/decode.rs": ("use crate::bytes::Bytes;\nuse crate::buf::Buf;\nuse crate::reader::Reader;\n\n"
                          "pub fn first(mut b: Bytes) -> u8 {\n    let n = 0;\n"
                          "    b.get_u8()\n}\n"),
    })
    table = scores(tmp_path, "src/decode.rs", "let n = 0;")
    # typed, it scores as the receiver's own method (without: 22.5 against 18)
    assert score(table, "src/buf.rs", "fn get_u8(&mut self)") > \
        2 * score(table, "src/reader.rs", "pub fn get_u8(&mut self)")


def test_self_inside_an_impl_of_a_trait_has_the_traits_methods(tmp_path):
    write(tmp_path, {
        "Cargo.toml": CARGO,
        "src/lib.rs": "pub mod buf;\npub mod reader;\npub mod bytes;\n",
        "src/buf.rs": BUF,
        "src/reader.rs": READER,
        "src/bytes.rs": ("use crate::buf::Buf;\nuse crate::reader::Reader;\n\n"
                         "pub struct Bytes {\n    len: usize,\n}\n\n"
                         "impl Buf for Bytes {\n    fn remaining(&self) -> usize {\n"
                         "        self.len\n    }\n\n    fn get_u8(&mut self) -> u8 {\n"
                         "        let n = 0;\n        self.advance(1);\n        n\n    }\n}\n"),
    })
    table = scores(tmp_path, "src/bytes.rs", "let n = 0;")
    assert score(table, "src/buf.rs", "fn advance(&mut self") > \
        2 * score(table, "src/reader.rs", "pub fn advance(&mut self")
