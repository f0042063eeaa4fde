"""Java and C/C++ (session 6): C/C++ one-line brief forms (`brief_c.py`) and the
repeats pass for Java and C/C++ (`evidence_javacpp.py`)."""

from __future__ import annotations

from pathlib import Path

from flashls.context import ranking
from flashls.context.analysis import analyze
from flashls.context.languages import language_for
from flashls.context.neighbors import neighbor_files
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE
from tests.files import write

TRAITS = (
    "#pragma once\n"
    "namespace cereal\n{\n"
    "  namespace detail\n  {\n"
    "    template <class T, class A>\n"
    "    struct is_specialized : std::integral_constant<bool,\n"
    "      is_member_serialize<T, A>::value ||\n"
    "      is_member_load_save<T, A>::value ||\n"
    "      is_member_load_save_minimal<T, A>::value> {};\n"
    "    #define CEREAL_MAKE_TRAIT(name, test) \\\n"
    "      template <class T> struct name : std::integral_constant<bool, test> {}\n"
    "  } // namespace detail\n"
    "} // namespace cereal\n")


def _item(text: str, name: str, path: str = "x.hpp"):
    spec = language_for("", path)
    a = analyze(spec, text, ("javacpp-s6", path, text))
    return next(it for it in a.items if it.name == name)


def test_cpp_namespace_brief_form_is_its_naming_line_alone():
    ns = _item(TRAITS, "detail")
    assert ns.brief[0] == ("  namespace detail",)
    assert ns.brief[1] == ()  # no `{` line, no `} // namespace detail`
    assert "  } // namespace detail" in ns.tail or len(ns.lines) > 1  # the full form keeps it


def test_cpp_struct_brief_form_is_its_naming_line():
    # session 9: the one-line `template <...>` head is left out too (`brief_c.py`)
    st = _item(TRAITS, "is_specialized")
    assert st.brief[0] == ("    struct is_specialized : std::integral_constant<bool,",)
    assert any("is_member_load_save<T, A>" in line for line in st.lines)  # full form
    assert "    template <class T, class A>" in st.lines


def test_cpp_macro_brief_form_leaves_out_continuation_lines():
    text = ("#define CEREAL_MAKE_TRAIT(name, test) \\\n"
            "  template <class T> struct name : std::integral_constant<bool, test> {}\n"
            "int after;\n")
    macro = _item(text, "CEREAL_MAKE_TRAIT")
    assert macro.brief[0] == ("#define CEREAL_MAKE_TRAIT(name, test) \\",)


def test_java_brief_forms_are_not_shortened_like_cpp():
    text = ("package p;\n\npublic final class Holder\n"
            "        extends Base implements Comparable<Holder> {\n}\n")
    holder = _item(text, "Holder", "p/Holder.java")
    assert len(holder.brief[0]) == 2


def _neighbor_scores(tmp_path: Path, tree: dict[str, str], user_path: str, cursor: int
                     ) -> dict[str, list[float]]:
    write(tmp_path, tree)
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    path = tmp_path / user_path
    text = path.read_text()
    spec = language_for("", str(path))
    a = analyze(spec, text, ("javacpp-s6-rank", str(path), text))
    files = neighbor_files(spec, str(path), a, ws, {})
    cands, _ = ranking.rank(a, str(path), cursor, (cursor, cursor), files, spec.resolver)
    out: dict[str, list[float]] = {}
    for c in cands:
        if c.file >= 0:
            out.setdefault(files[c.file].analysis.items[c.item].name, []).append(c.score)
    return out


def test_cpp_overloads_after_the_best_one_count_less(tmp_path):
    core = ("#pragma once\nclass value {\n public:\n"
            + "".join(f"  value(T{i} v);\n" for i in range(6)) + "};\n")
    user = ("#include \"core.h\"\ninline int f(value v) {\n"
            "  return v.value(1);\n}\n")
    scores = _neighbor_scores(tmp_path, {"core.h": core, "user.h": user}, "user.h", 2)
    ranked = sorted(scores["value"], reverse=True)
    # the class and six constructors: each further entry of the name is halved
    assert len(ranked) == 7
    assert ranked[2] <= ranked[1] * 0.5 + 1e-9


def test_java_overloads_after_the_best_one_count_less(tmp_path):
    lst = ("package p;\n\npublic class ContextList {\n"
           "    public void remove(String path) {\n    }\n"
           "    public void remove(Object ctx) {\n    }\n"
           "    public int size() {\n        return 0;\n    }\n}\n")
    user = ("package p;\n\nclass Server {\n    void stop(ContextList list) {\n"
            "        list.remove(\"/\");\n        int n = list.size();\n    }\n}\n")
    scores = _neighbor_scores(tmp_path, {"p/ContextList.java": lst, "p/Server.java": user},
                              "p/Server.java", 5)
    first, second = sorted(scores["remove"], reverse=True)
    assert second <= first * 0.5 + 1e-9
    assert scores["size"][0] > second  # the next name before the repeat


def test_java_unused_members_of_the_types_next_to_the_cursor_may_be_next(tmp_path):
    from flashls.context.evidence_javacpp import CURSOR_TYPE_MEMBER
    config = ("package p;\n\nclass ServerConfig {\n"
              + "".join(f"    static long getLimit{i}() {{\n        return {i};\n    }}\n"
                        for i in range(4)) + "}\n")
    conn = ("package p;\n\nclass Connection {\n"
            + "".join(f"    void step{i}() {{\n    }}\n" for i in range(6)) + "}\n")
    body = "".join(f"        c.step{i}();\n" for i in range(6))
    user = ("package p;\n\nclass Server {\n"
            "    static final long A = ServerConfig.getLimit0();\n"
            "    static final long B = ServerConfig.getLimit1();\n"
            "\n"
            "    void run(Connection c) {\n" + body + "    }\n}\n")
    scores = _neighbor_scores(tmp_path, {"p/ServerConfig.java": config,
                                         "p/Connection.java": conn, "p/Server.java": user},
                              "p/Server.java", 5)
    # the blank line below two `ServerConfig.getLimitN()` fields: the getters not
    # used yet are likely next, more than a member of a type used elsewhere
    assert scores["getLimit2"][0] >= CURSOR_TYPE_MEMBER
    assert scores["getLimit3"][0] >= CURSOR_TYPE_MEMBER
