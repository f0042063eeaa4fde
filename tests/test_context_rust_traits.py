"""Rust trait methods reached through `impl Trait for Type` (`evidence_rust.receivers`):
a value of a type the crate implements a trait for has the trait's methods, and so has
`self` inside such an impl. Without that, the trait's method and a namesake of another
type score alike (both are "a method of some other known type")."""

from __future__ import annotations

from flashls.context import ranking
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


EXT = ("pub trait Itertools: Iterator {\n    fn interleave<J>(self, other: J) -> u8 {\n"
       "        0\n    }\n}\n\nimpl<T: Iterator> Itertools for T {}\n")
WALK = ("pub struct Walk {\n    pos: usize,\n}\n\nimpl Walk {\n"
        "    pub fn interleave(&mut self, other: usize) -> u8 {\n        0\n    }\n}\n")


def test_a_method_of_a_trait_imported_by_name_is_callable_on_other_types(tmp_path):
    """`use itertools::Itertools;` is written to call its methods on other types (a
    blanket impl over every iterator): `a: Iter` calling `a.interleave(b)` where the
    file's own `Iter` implements `Iterator` is a call of the trait's method, not a
    namesake of some other type."""
    write(tmp_path, {
        "Cargo.toml": CARGO,
        "src/lib.rs": "pub mod ext;\npub mod walk;\n",
        "src/ext.rs": EXT,
        "src/walk.rs": WALK,
        "tests/quick.rs": ("use my_crate::ext::Itertools;\nuse my_crate::walk::Walk;\n\n"
                           "struct Iter {\n    n: u8,\n}\n\n"
                           "impl Iterator for Iter {\n    type Item = u8;\n"
                           "    fn next(&mut self) -> Option<u8> {\n        None\n    }\n}\n\n"
                           "fn mix(a: Iter, b: Iter) -> u8 {\n    let n = 0;\n"
                           "    a.interleave(b)\n}\n"),
    })
    table = scores(tmp_path, "tests/quick.rs", "let n = 0;")
    assert score(table, "src/ext.rs", "fn interleave<J>(self") > \
        2 * score(table, "src/walk.rs", "pub fn interleave(&mut self")


def test_a_field_of_a_generic_type_has_the_methods_of_its_bounds(tmp_path):
    """`impl<B: Buf> Decoder<B>` with a field `buf: B`: `self.buf.get_u8()` calls
    Buf's method (the bound typed plain variables only: `input: I`)."""
    write(tmp_path, {
        "Cargo.toml": CARGO,
        "src/lib.rs": "pub mod buf;\npub mod reader;\npub mod decode;\n",
        "src/buf.rs": BUF,
        "src/reader.rs": READER,
        "src/decode.rs": ("use crate::buf::Buf;\nuse crate::reader::Reader;\n\n"
                          "pub struct Decoder<B> {\n    buf: B,\n}\n\n"
                          "impl<B: Buf> Decoder<B> {\n    pub fn first(&mut self) -> u8 {\n"
                          "        let n = 0;\n        self.buf.get_u8()\n    }\n}\n"),
    })
    table = scores(tmp_path, "src/decode.rs", "let n = 0;")
    # a typed member's score (85 and up), not that of any method of an imported trait
    assert score(table, "src/buf.rs", "fn get_u8(&mut self)") >= 100 * ranking.TYPED_MEMBER
