"""The comment prefix the FIM prompt puts before every line of a far-context part is
charged at what DeepSeek's tokenizer makes of it: a line starting with punctuation
(`#define`, `@Override`, `(x)`) loses its merge with the prefix and costs one more."""

from flashls.context.neighbors import lines_prefix_tokens, prefix_tokens


def test_a_line_starting_with_punctuation_pays_two_prefix_tokens():
    assert prefix_tokens("def f(x):\n    return x\n") == 2
    assert prefix_tokens("#define A 1\n@Override\n(x)\n") == 6


def test_closers_and_indented_lines_pay_one():
    assert prefix_tokens("}\n]\n)\n    #define A\n") == 4


def test_the_line_list_form_agrees_with_the_text_form():
    lines = ["#include <x>", "int f();", "}", "<div>", "  @x", "$x"]
    assert lines_prefix_tokens(lines) == prefix_tokens("".join(f"{l}\n" for l in lines))
