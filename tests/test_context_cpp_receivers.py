"""C/C++ receivers (`context/receivers_c.py`): `obj.f()`, `ptr->f()`, `this->f()` reach
the class the declaration of `obj` names, through aliases and bases."""

from __future__ import annotations

from flashls.context.analysis import analyze
from flashls.context.languages import language_for
from flashls.context.receivers_c import declared, this_classes, type_links
from tests.test_context_javacpp_s7 import _scores  # neighbor entries' best scores


def test_declarations_name_the_variable_and_its_type():
    assert declared("  BigInteger delta(0);") == (("delta", "BigInteger"),)
    assert declared("void f(const ValueType& v, detail::buffer<T>& buf) {") == \
        (("v", "ValueType"), ("buf", "buffer"))
    assert declared("  xml_node<Ch> *node = first;") == (("node", "xml_node"),)
    assert declared("  auto buf = memory_buffer();") == (("buf", "memory_buffer"),)
    # template arguments end at their `>`: two parameters, not one
    assert declared("  bool solve(const Base<R> &b, Base<D> &dest) const") == \
        (("b", "Base"), ("dest", "Base"))
    # statements that are no declarations, and comments
    for line in ("  return x;", "  if (a < b) c = d;", "  x = foo(bar);",
                 "  throw format_error(msg);", "  // BigInteger delta(0);"):
        assert declared(line) == (), line


def test_aliases_and_bases_link_a_type_to_the_classes_with_its_members(tmp_path):
    header = ("template <typename T> class buffer {\n public:\n  void try_resize(int n);\n};\n"
              "template <typename T>\nclass memory_buffer final : public detail::buffer<T> {\n"
              "  void grow(int n);\n};\n"
              "using char_buffer = memory_buffer<char>;\n"
              "typedef memory_buffer<wchar_t> wide_buffer;\n")
    spec = language_for("", "x.h")
    a = analyze(spec, header, ("cpp-links", header))
    aliases, bases, names = type_links(a.items)
    assert aliases["char_buffer"] == {"memory_buffer"}
    assert aliases["wide_buffer"] == {"memory_buffer"}
    assert bases["memory_buffer"] == {"buffer"}
    assert {"buffer", "memory_buffer", "char_buffer", "wide_buffer"} <= names


def test_this_is_the_enclosing_class_or_the_qualifier_of_an_out_of_class_definition():
    text = ("class Writer {\n  void put(int c) {\n    this->grow(c);\n  }\n};\n"
            "template <typename T>\nvoid memory_buffer<T>::grow(int n) {\n  this->x(n);\n}\n")
    spec = language_for("", "w.h")
    a = analyze(spec, text, ("cpp-this", text))
    assert this_classes(a, 2) == ["Writer"]
    assert this_classes(a, 7) == ["memory_buffer"]


BIG_INTEGER = ("#pragma once\nclass BigInteger {\n public:\n"
               "  BigInteger(int v);\n"
               "  int Compare(const BigInteger& rhs) const;\n"
               "  bool IsZero() const;\n"
               "  BigInteger& MultiplyPow5(unsigned e);\n};\n"
               + "".join(f"inline int helper{i}(int x) {{ return x + {i}; }}\n" for i in range(8)))


def test_a_method_called_on_a_variable_declared_with_its_class_outranks_plain_fill(tmp_path):
    # rapidjson's strtod.h: `BigInteger delta(..)` two lines above the cursor, and
    # `delta.Compare(hS)` next; nothing else in the file names `Compare`
    user = ('#include "biginteger.h"\n\n'
            "inline int check(int d, int h) {\n"
            "  BigInteger delta(d);\n"
            "  int k = helper0(h) + helper1(d);\n"
            "  \n"
            "}\n")
    scores = _scores(tmp_path, {"biginteger.h": BIG_INTEGER, "strtod.h": user}, "strtod.h", 5)
    assert scores["Compare"] >= 70
    assert scores["Compare"] > scores["helper5"] + 30


def test_this_reaches_the_members_of_a_base_class_in_another_header(tmp_path):
    # fmt's `basic_memory_buffer::reserve` calls `this->try_reserve(n)`, a member of
    # its base `detail::buffer<T>` declared in core.h
    core = ("#pragma once\nnamespace detail {\ntemplate <typename T> class buffer {\n public:\n"
            "  void try_reserve(int n);\n  void try_resize(int n);\n};\n}\n"
            + "".join(f"inline int util{i}(int x) {{ return x; }}\n" for i in range(8)))
    user = ('#include "core.h"\n\n'
            "template <typename T>\n"
            "class memory_buffer final : public detail::buffer<T> {\n"
            " public:\n"
            "  void expand(int n) {\n"
            "    \n"
            "  }\n"
            "};\n")
    scores = _scores(tmp_path, {"core.h": core, "format.h": user}, "format.h", 6)
    assert scores["try_reserve"] > scores["util3"] + 30
