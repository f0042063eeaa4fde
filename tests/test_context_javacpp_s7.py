"""Java and C/C++ (session 7): which Java files are read (`evidence_java.order_neighbors`)
and the name-family lift for Java and C/C++ (`evidence_javacpp._family`)."""

from __future__ import annotations

from pathlib import Path

from flashls.context import ranking
from flashls.context.analysis import analyze
from flashls.context.languages import language_for
from flashls.context.evidence_java import MAX_FILES as MAX_NEIGHBOR_FILES  # Java's
from flashls.context.neighbors import neighbor_files
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE
from tests.files import write


def _open(tmp_path: Path, tree: dict[str, str], user_path: str):
    write(tmp_path, tree)
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    path = tmp_path / user_path
    text = path.read_text()
    spec = language_for("", str(path))
    a = analyze(spec, text, ("javacpp-s7", str(path), text))
    return ws, path, spec, a


def _scores(tmp_path: Path, tree: dict[str, str], user_path: str, cursor: int
            ) -> dict[str, float]:
    ws, path, spec, a = _open(tmp_path, tree, user_path)
    files = neighbor_files(spec, str(path), a, ws, {})
    cands, _ = ranking.rank(a, str(path), cursor, (cursor, cursor), files, spec.resolver)
    out: dict[str, float] = {}
    for c in cands:
        if c.file >= 0:
            name = files[c.file].analysis.items[c.item].name
            out[name] = max(out.get(name, 0.0), c.score)
    return out


def test_java_a_much_used_package_type_is_read_before_types_imported_for_one_use(tmp_path):
    # java.time's DateTimeFormatterBuilder imports 22 types of other packages and
    # uses its own package's DateTimeParseContext 31 times: the explicit imports came
    # first and filled the 24 files read, so the package's own types were never read
    n = MAX_NEIGHBOR_FILES + 2
    tree = {f"q/T{i}.java": f"package q;\n\npublic class T{i} {{\n}}\n" for i in range(n)}
    tree["p/ParseContext.java"] = ("package p;\n\nclass ParseContext {\n"
                                   "    void setParsed(long v) {\n    }\n}\n")
    imports = "".join(f"import q.T{i};\n" for i in range(n))
    fields = "".join(f"    T{i} f{i};\n" for i in range(n))
    uses = "".join(f"    int m{i}(ParseContext context) {{\n        return {i};\n    }}\n"
                   for i in range(6))
    tree["p/Builder.java"] = (f"package p;\n\n{imports}\nclass Builder {{\n{fields}{uses}}}\n")
    ws, path, spec, a = _open(tmp_path, tree, "p/Builder.java")
    read = [Path(f.path).name for f in neighbor_files(spec, str(path), a, ws, {})]
    assert len(read) == MAX_NEIGHBOR_FILES
    assert read[0] == "ParseContext.java"


def test_java_an_unused_relative_of_a_name_near_the_cursor_is_lifted(tmp_path):
    # MemoryHandler: `manager.getIntProperty(..)` on the line below the cursor, and
    # LogManager's fifteen other members tie; `getLevelProperty` shares its words
    manager = ("package p;\n\npublic class LogManager {\n"
               "    public int getIntProperty(String name, int d) {\n        return d;\n    }\n"
               "    public Level getLevelProperty(String name, Level d) {\n"
               "        return d;\n    }\n"
               + "".join(f"    public void reset{i}() {{\n    }}\n" for i in range(6))
               + "}\n")
    level = "package p;\n\npublic class Level {\n}\n"
    user = ("package p;\n\nclass MemoryHandler {\n"
            "    void configure(LogManager manager, Level level) {\n"
            "        \n"
            "        int size = manager.getIntProperty(\"size\", 1);\n"
            "    }\n}\n")
    scores = _scores(tmp_path, {"p/LogManager.java": manager, "p/Level.java": level,
                                "p/MemoryHandler.java": user}, "p/MemoryHandler.java", 4)
    assert scores["getLevelProperty"] > scores["reset0"] + 30


def test_cpp_an_unused_relative_of_a_name_near_the_cursor_is_lifted(tmp_path):
    # fmt's os.h: `detail::write_int(..)` above the cursor, `write_bytes` next
    fmt = ("#pragma once\nnamespace fmt {\nnamespace detail {\n"
           "template <typename Out> Out write_int(Out out, int v) { return out; }\n"
           "template <typename Out> Out write_bytes(Out out, const char* s) { return out; }\n"
           + "".join(f"inline void helper{i}() {{}}\n" for i in range(6))
           + "}  // namespace detail\n}  // namespace fmt\n")
    user = ("#pragma once\n#include \"format.h\"\nnamespace fmt {\n"
            "template <typename Out> Out format_error(Out out, int code) {\n"
            "  out = detail::write_int(out, code);\n"
            "  \n"
            "  return out;\n}\n}  // namespace fmt\n")
    scores = _scores(tmp_path, {"fmt/format.h": fmt, "fmt/os.h": user}, "fmt/os.h", 5)
    assert scores["write_bytes"] > scores["helper0"] + 30


GLM_TYPES = ("#pragma once\nnamespace glm\n{\n"
             + "".join(f"\ttypedef detail::int{b} lowp_i{b};\n" for b in (8, 16, 32, 64))
             + "".join(f"\ttypedef detail::uint{b} lowp_u{b};\n" for b in (8, 16, 32, 64))
             + "\ttypedef float highp_float;\n}//namespace glm\n")


def test_cpp_at_namespace_level_the_lines_around_the_cursor_are_near(tmp_path):
    # glm's type_aligned.hpp: a list of macro calls at namespace level, no definition
    # around the cursor; the family of `lowp_u16` on the next line was never looked at
    user = ("#pragma once\n#include \"precision.hpp\"\nnamespace glm\n{\n"
            "\tGLM_ALIGNED_TYPEDEF(lowp_i64, aligned_lowp_i64, 8);\n"
            "\t\n"
            "\tGLM_ALIGNED_TYPEDEF(lowp_u16, aligned_lowp_u16, 2);\n"
            "}//namespace glm\n")
    scores = _scores(tmp_path, {"glm/precision.hpp": GLM_TYPES, "glm/aligned.hpp": user},
                     "glm/aligned.hpp", 5)
    # lowp_u8: a relative of lowp_u16 (and between lowp_i64 and lowp_u16 in its file)
    assert scores["lowp_u8"] > scores["highp_float"] + 30


def test_an_unused_entry_between_two_used_next_to_the_cursor_is_likely(tmp_path):
    from flashls.context.evidence_javacpp import SIBLING_SCORE
    names = ("alpha", "bravo", "charlie", "delta")
    consts = ("#pragma once\nnamespace ids\n{\n"
              + "".join(f"constexpr int {n} = {i};\n" for i, n in enumerate(names))
              + "}\n")
    user = ("#pragma once\n#include \"ids.hpp\"\nint table[] = {\n"
            "  ids::alpha,\n"
            "  \n"
            "  ids::charlie,\n"
            "};\n")
    scores = _scores(tmp_path, {"ids.hpp": consts, "table.hpp": user}, "table.hpp", 4)
    assert scores["bravo"] >= SIBLING_SCORE  # between the two used on either side
    assert scores["delta"] < SIBLING_SCORE


def test_java_members_of_a_big_type_next_to_the_cursor_are_not_all_lifted(tmp_path):
    from flashls.context.evidence_javacpp import CURSOR_TYPE_MEMBER, MAX_CURSOR_TYPE_MEMBERS
    n = MAX_CURSOR_TYPE_MEMBERS + 1
    manager = ("package p;\n\npublic class Manager {\n"
               + "".join(f"    public void op{i}() {{\n    }}\n" for i in range(n)) + "}\n")
    user = ("package p;\n\nclass Handler {\n    void run(Manager m) {\n"
            "        m.op0();\n        \n    }\n}\n")
    scores = _scores(tmp_path, {"p/Manager.java": manager, "p/Handler.java": user},
                     "p/Handler.java", 5)
    assert scores["op7"] < CURSOR_TYPE_MEMBER
