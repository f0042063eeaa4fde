"""C/C++ (session 9): brief forms without a one-line `template <...>` head
(`brief_c.py`); the full form keeps it."""

from __future__ import annotations

from tests.test_context_javacpp_brief import _item  # one analysed item by name

HEADER = ("#pragma once\n"
          "namespace fmt {\n"
          "template <typename Char, typename InputIt, typename OutputIt>\n"
          "auto copy_str(InputIt begin, InputIt end, OutputIt out) -> OutputIt {\n"
          "  return out;\n"
          "}\n"
          "template <typename OutputIt, typename T>\n"
          "class iterator_buffer final : public buffer<T> {\n"
          "  OutputIt out_;\n"
          "};\n"
          "template <typename T,\n"
          "          typename U>\n"
          "auto pick(T t, U u) -> T {\n"
          "  return t;\n"
          "}\n"
          "}  // namespace fmt\n")


def test_cpp_brief_form_leaves_out_a_one_line_template_head():
    brief = _item(HEADER, "copy_str").brief[0]
    assert brief == ("auto copy_str(InputIt begin, InputIt end, OutputIt out) -> OutputIt {",)
    full = _item(HEADER, "copy_str").lines
    assert "template <typename Char, typename InputIt, typename OutputIt>" in full


def test_cpp_class_brief_form_leaves_out_its_template_head():
    assert _item(HEADER, "iterator_buffer").brief[0][0] == \
        "class iterator_buffer final : public buffer<T> {"


def test_cpp_a_template_head_over_lines_is_kept_whole():
    brief = _item(HEADER, "pick").brief[0]
    assert brief[:2] == ("template <typename T,", "          typename U>")
