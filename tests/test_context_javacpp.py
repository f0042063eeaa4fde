"""Java and C/C++: the real-code benchmark's tasks on tiny trees, and the resolution,
evidence and ranking rules of `evidence_java.py` / `evidence_c.py`."""

from __future__ import annotations

from pathlib import Path

from benchmarks.real_context import find_tasks
from benchmarks.real_context_sources import Project
from flashls.context import ranking
from flashls.context.analysis import analyze
from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.evidence import gather
from flashls.context.evidence_c import extra_estimate_margin
from flashls.context.evidence_java import declared_receivers
from flashls.context.imports import resolve_imports
from flashls.context.languages import language_for
from flashls.context.neighbors import MAX_NEIGHBOR_FILES, neighbor_files
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE
from tests.files import write


def _analysis(path: Path):
    text = path.read_text()
    spec = language_for("", str(path))
    return analyze(spec, text, ("javacpp-test", str(path), text))


def _tasks(lang: str, root: Path) -> set[tuple[str, int, str, str]]:
    project = Project(lang, "tiny", "1", "dev")
    return {(t.path.name, t.line, t.name, t.kind) for t in find_tasks(project, root)}


JAVA_TREE = {
    "com/acme/core/Registry.java": (
        "package com.acme.core;\n\n"
        "public final class Registry {\n"
        "    public static final int MAX_ENTRIES = 64;\n"
        "    public void register(String key) {\n    }\n"
        "}\n"),
    "com/acme/core/Lookup.java": (
        "package com.acme.core;\n\n"
        "class Lookup {\n"
        "    Registry registry = new Registry();\n"
        "    void fill() {\n"
        "        registry.register(\"a\");\n"
        "        int n = Registry.MAX_ENTRIES;\n"
        "    }\n"
        "}\n"),
    "com/acme/app/Main.java": (
        "package com.acme.app;\n\n"
        "import com.acme.core.Registry;\n\n"
        "class Main {\n"
        "    void run() {\n"
        "        Registry r = new Registry();\n"
        "        Lookup missing = null;\n"
        "    }\n"
        "}\n"),
}


def test_java_tasks_cover_same_package_imports_members_and_constants(tmp_path):
    write(tmp_path, JAVA_TREE)
    tasks = _tasks("java", tmp_path)
    # same package, no import: the class, its method on a typed field, its constant
    assert ("Lookup.java", 3, "Registry", "class") in tasks
    assert ("Lookup.java", 5, "register", "method") in tasks
    assert ("Lookup.java", 6, "MAX_ENTRIES", "constant") in tasks
    # another package: reached through the single-type import
    assert ("Main.java", 6, "Registry", "class") in tasks
    # `Lookup` is package-private in com.acme.core and Main does not import it
    assert not any(t[0] == "Main.java" and t[2] == "Lookup" for t in tasks)


CPP_TREE = {
    "lib/core.h": (
        "#pragma once\n"
        "namespace lib {\n"
        "int to_unsigned(int value);\n"
        "struct Buffer {\n"
        "  void push_back(int value);\n"
        "};\n"
        "}  // namespace lib\n"),
    "lib/format.h": (
        "#pragma once\n"
        "#include \"core.h\"\n"
        "namespace lib {\n"
        "inline int widen(int x) {\n"
        "  Buffer buf;\n"
        "  buf.push_back(x);\n"
        "  return to_unsigned(x);\n"
        "}\n"
        "}  // namespace lib\n"),
    "lib/sinks/sink.h": (
        "#pragma once\n"
        "#include <lib/core.h>\n"
        "#include <vector>\n"
        "inline int sink(int y) { return lib::to_unsigned(y); }\n"),
}


def test_cpp_tasks_treat_namespace_functions_as_functions_and_follow_angle_includes(tmp_path):
    write(tmp_path, CPP_TREE)
    tasks = _tasks("cpp", tmp_path)
    assert ("format.h", 6, "to_unsigned", "function") in tasks  # not a "method" of lib
    assert ("format.h", 4, "Buffer", "class") in tasks
    assert ("format.h", 5, "push_back", "method") in tasks
    assert ("sink.h", 3, "to_unsigned", "function") in tasks  # `<lib/core.h>`
    # a namespace is no definition of its own
    assert not any(t[2] == "lib" for t in tasks)


def test_c_resolution_finds_angle_includes_from_an_ancestor_include_root(tmp_path):
    write(tmp_path, {f"third_party/inc/{k}": v for k, v in CPP_TREE.items()})
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    sink = tmp_path / "third_party/inc/lib/sinks/sink.h"
    spec = language_for("", str(sink))
    got = resolve_imports(spec, str(sink), _analysis(sink), ws)
    # `<lib/core.h>` from the ancestor `third_party/inc`; `<vector>` is not there
    assert [ws.relative(p) for p in got] == ["third_party/inc/lib/core.h"]


def test_java_neighbors_are_the_used_types_of_a_large_package(tmp_path):
    files = {f"p/A{i:02d}.java": f"package p;\nclass A{i:02d} {{\n    void m{i}() {{}}\n}}\n"
             for i in range(MAX_NEIGHBOR_FILES + 20)}
    files["p/Zeta.java"] = "package p;\nclass Zeta {\n    static int zed() { return 1; }\n}\n"
    files["p/Main.java"] = ("package p;\nclass Main {\n    int f() {\n"
                            "        return Zeta.zed() + new A03().hashCode();\n    }\n}\n")
    write(tmp_path, files)
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    main = tmp_path / "p/Main.java"
    a = _analysis(main)
    got = [Path(f.path).name for f in neighbor_files(a.spec, str(main), a, ws, {})]
    # in directory order Zeta.java would come after the first MAX_NEIGHBOR_FILES files
    assert sorted(got) == ["A03.java", "Zeta.java"]


def test_java_declarations_type_their_receivers():
    assert declared_receivers("        final ReentrantLock lock = this.lock;") == \
        (("lock", "ReentrantLock"),)
    assert declared_receivers("    Sink<? super T> downstream;") == (("downstream", "Sink"),)
    assert ("b", "Builder") in declared_receivers("  void f(Node.Builder b, int x) {")
    # a static access is a member of the type it names
    assert declared_receivers("    int n = Code.HTTP_BAD_REQUEST;") == (("Code", "Code"),)
    assert declared_receivers("        return value;") == ()
    text = ("package p;\nclass Q {\n    private final ReentrantLock lock = null;\n"
            "    void f() {\n        lock.unlock();\n    }\n}\n")
    spec = language_for("java")
    a = analyze(spec, text, ("javacpp-recv", text))
    ev = gather(a, 4, {"unlock", "ReentrantLock"}, "java")
    assert ev.receivers.get("lock") == frozenset({"ReentrantLock"})


def _cpp_rank(tmp_path: Path, user: str, cursor_line: int):
    write(tmp_path, {"lib/core.h": CPP_TREE["lib/core.h"] + "".join(
        f"namespace lib {{\nint filler{i}(int a, int b);\n}}\n" for i in range(30)),
        "lib/user.h": user})
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    path = tmp_path / "lib/user.h"
    a = _analysis(path)
    files = neighbor_files(a.spec, str(path), a, ws, {})
    cands, ev = ranking.rank(a, str(path), cursor_line, (cursor_line, cursor_line), files,
                             a.spec.resolver)
    scores = {files[c.file].analysis.items[c.item].name: c.score for c in cands if c.file >= 0}
    return scores, ev


def test_a_namespace_function_used_in_an_including_file_scores_as_merged(tmp_path):
    user = ("#include \"core.h\"\nnamespace lib {\ninline int g(int v) {\n"
            "  return to_unsigned(v);\n}\n}\n")
    scores, _ = _cpp_rank(tmp_path, user, 3)
    # a plain use of an included name (MERGED), not a loose member of `namespace lib`
    assert scores["to_unsigned"] >= 100 * ranking.MERGED * 0.9
    assert scores["to_unsigned"] > 3 * max(v for k, v in scores.items() if k.startswith("filler"))


def test_a_namespace_is_not_the_anchor_of_a_line_at_namespace_level(tmp_path):
    user = ("#include \"core.h\"\nnamespace lib {\n" + "int pad;\n" * 200 +
            "template struct Holder<int>;\n" + "int pad2;\n" * 200 + "}\n")
    _, ev = _cpp_rank(tmp_path, user, 202)
    assert ev.anchor == (202, 202)  # not the namespace's 400 lines


def _macro_header_request(tmp_path: Path, budget: int):
    """A header using 400 long all-caps macros of its neighbor, the cursor mid-file:
    the document and its context at `budget`."""
    macros = "".join(f"#define RAPIDJSON_MACRO_NUMBER_{i} RAPIDJSON_LITTLEENDIAN_{i}\n"
                     for i in range(400))
    user = "#include \"macros.h\"\n" + "".join(
        f"int use{i}() {{ return RAPIDJSON_MACRO_NUMBER_{i}; }}\n" for i in range(400))
    write(tmp_path, {"macros.h": macros, "user.h": user})
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    path = tmp_path / "user.h"
    pdoc = ParsedDocument.open(Document(path.as_uri(), user, "", 1), str(path))
    return pdoc, assemble_context(pdoc, len(user) // 2, budget_tokens=budget, workspace=ws)


def test_cpp_requests_hold_back_the_extra_estimate_margin(tmp_path):
    budget = 2048
    pdoc, ctx = _macro_header_request(tmp_path, budget)
    assert any(p.tier == "neighbors" for p in ctx.parts)
    assert extra_estimate_margin(pdoc.spec, budget) == budget // 25
    assert extra_estimate_margin(language_for("python"), budget) == 0
    assert ctx.tokens <= budget - budget // 20 - budget // 25


def test_cpp_definitions_inside_an_include_guard_and_nested_namespaces_are_found():
    text = ("#ifndef LIB_DEEP_H_\n#define LIB_DEEP_H_\nnamespace lib {\nnamespace detail {\n"
            "template <typename T>\nint deep(T x) {\n  return 1;\n}\n"
            "struct Holder {\n  int method_of_holder(int v);\n};\n"
            "}  // namespace detail\n}  // namespace lib\n#endif\n")
    a = analyze(language_for("", "deep.h"), text, ("javacpp-deep", text))
    names = {it.name for it in a.items}
    assert {"deep", "Holder", "method_of_holder"} <= names


def test_a_cursor_at_namespace_level_gets_a_fresh_selection_not_the_last_one(tmp_path):
    header = "".join(f"int filler_{i}(int a, int b, int c);\n" for i in range(40))
    header += "int first_thing(int v);\nstruct second_thing {\n  int x;\n};\n"
    user = ("#include \"core.h\"\nnamespace lib {\ninline int f() {\n"
            "  return first_thing(1);\n}\n" + "int pad;\n" * 300 +
            "template struct Holder<second_thing>;\n\n" + "int pad2;\n" * 5 + "}\n")
    write(tmp_path, {"core.h": header, "user.h": user})
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    path = tmp_path / "user.h"
    a = _analysis(path)
    files = neighbor_files(a.spec, str(path), a, ws, {})
    ranking.forget()

    def picked(cursor_line: int) -> set[str]:
        sel = ranking.select_stable("javacpp-doc", a, str(path), cursor_line,
                                    (cursor_line - 1, cursor_line + 1), files,
                                    a.spec.resolver, "user.h", 28)  # one entry fits
        return {files[0].analysis.items[i].name for i in sel.neighbors.selected[0]}

    assert picked(3) == {"first_thing"}
    at_namespace_level = 306  # the blank line after `template struct Holder<...>;`
    assert user.split("\n")[at_namespace_level] == ""
    assert "second_thing" in picked(at_namespace_level)  # not frozen to f's selection


def test_java_names_used_next_to_the_cursor_come_before_those_used_far_in_the_anchor():
    from flashls.context.evidence_locality import LOCALITY_POINTS, with_locality
    text = ("package p;\nclass Q {\n    void f() {\n        alpha();\n"
            + "        int x = 0;\n" * 100 + "        beta();\n\n    }\n}\n")
    a = analyze(language_for("java"), text, ("javacpp-locality", text))
    cursor = 106
    from flashls.context.outline import Item
    beta = Item("beta", "method", 2, 0, 0, ("void beta() {",), (), -1, 5)
    far = Item("alpha", "method", 2, 0, 0, ("void alpha() {",), (), -1, 5)

    class _File:
        class analysis:
            items = (beta, far)

    scored = with_locality([ranking.Candidate(90.0, 0, 0), ranking.Candidate(90.0, 0, 1)],
                           a, cursor, [_File], "java")
    assert scored[0].score > scored[1].score > 90.0
    assert scored[0].score <= 90.0 + LOCALITY_POINTS
    cands = [ranking.Candidate(90.0, 0, 0)]
    assert with_locality(list(cands), a, cursor, [_File], "python") == cands


def test_cpp_estimates_count_the_tokens_of_long_all_caps_macro_names(tmp_path):
    from flashls.context.evidence_c import macro_excess
    from flashls.context.neighbors import part_overhead, prefix_tokens
    from flashls.context.tokens import estimate_tokens
    spec = language_for("", "x.h")
    assert macro_excess(spec, "#define RAPIDJSON_LITTLEENDIANNESS 1\n") > 0
    assert macro_excess(spec, "int value = compute(x);\n") == 0
    assert macro_excess(language_for("python"), "RAPIDJSON_LITTLEENDIAN = 1\n") == 0
    _, ctx = _macro_header_request(tmp_path, 2048)
    neighbor = next(p for p in ctx.parts if p.tier == "neighbors")
    plain = estimate_tokens(neighbor.text) + part_overhead(neighbor.source, neighbor.tier) + \
        prefix_tokens(neighbor.text)
    assert neighbor.tokens == plain + macro_excess(spec, neighbor.text)
    window = estimate_tokens(ctx.prefix) + estimate_tokens(ctx.suffix)
    assert ctx.tokens == sum(p.tokens for p in ctx.parts) + window + \
        macro_excess(spec, ctx.prefix + ctx.suffix)


JAVA_UNIT = (
    "package p;\n\npublic enum Unit {\n    DAYS;\n"
    "    private Unit(String name, long seconds) {\n    }\n"
    "    private static long secondsOf(Unit u) {\n        return 1;\n    }\n"
    "    @Override\n    @SuppressWarnings(\"unchecked\")\n"
    "    public String secondsLabel() {\n        return \"s\";\n    }\n"
    "    public long seconds() {\n        return 1;\n    }\n}\n")


def test_java_brief_entries_leave_out_annotation_lines():
    a = analyze(language_for("java"), JAVA_UNIT, ("javacpp-brief", JAVA_UNIT))
    label = next(it for it in a.items if it.name == "secondsLabel")
    assert label.brief[0] == ("    public String secondsLabel() {",)
    assert "    @Override" in label.lines  # the full form (code actions) keeps them
    # an annotation type is a declaration, not an annotation line
    text = "package p;\n\n@Retention(RUNTIME)\npublic @interface Marker {\n}\n"
    marker = next(it for it in analyze(language_for("java"), text, ("javacpp-ann", text)).items
                  if it.name == "Marker")
    assert marker.brief[0][-1].strip().startswith("public @interface Marker")


def test_java_private_members_of_a_neighbor_rank_below_its_public_ones(tmp_path):
    user = ("package p;\n\nclass User {\n    long f(Unit u) {\n"
            "        long a = u.seconds() + Unit.secondsOf(u);\n"
            "        return a + u.seconds();\n    }\n}\n")
    write(tmp_path, {"p/Unit.java": JAVA_UNIT, "p/User.java": user})
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    path = tmp_path / "p/User.java"
    a = _analysis(path)
    files = neighbor_files(a.spec, str(path), a, ws, {})
    cands, _ = ranking.rank(a, str(path), 5, (5, 5), files, a.spec.resolver)
    scores = {files[c.file].analysis.items[c.item].name: c.score for c in cands if c.file >= 0}
    # both are used next to the cursor; the private one cannot be called from here
    assert scores["seconds"] > 0
    assert scores["secondsOf"] < scores["seconds"] / 5


def test_java_a_type_imported_and_used_nowhere_else_ranks_as_likely_next(tmp_path):
    from flashls.context import evidence, evidence_java
    assert evidence_java.FAR == evidence.FAR
    files = {f"lib/fmt/T{i:02d}.java": f"package lib.fmt;\npublic class T{i:02d} {{\n"
             f"    public void m{i}() {{}}\n}}\n" for i in range(8)}
    files["lib/fmt/Builder.java"] = ("package lib.fmt;\npublic final class Builder {\n"
                                     "    public Builder append(String s) { return this; }\n}\n")
    imports = "".join(f"import lib.fmt.T{i:02d};\n" for i in range(8))
    uses = "".join(f"        new T{i:02d}().m{i}();\n" for i in range(8))
    user = ("package app;\n\n" + imports + "import lib.fmt.Builder;\n\nclass Era {\n"
            "    void f() {\n" + uses + "\n    }\n}\n")
    write(tmp_path, {**files, "app/Era.java": user})
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    path = tmp_path / "app/Era.java"
    a = _analysis(path)
    cursor = len(user.split("\n")) - 4  # the empty line at the end of f()
    files_ = neighbor_files(a.spec, str(path), a, ws, {})
    cands, _ = ranking.rank(a, str(path), cursor, (cursor, cursor), files_, a.spec.resolver)
    scores = {files_[c.file].analysis.items[c.item].name: c.score for c in cands if c.file >= 0}
    # imported for the line being written: it scores as an unused named import, not
    # as the member access `fmt.Builder` its import line reads as
    assert scores["Builder"] >= evidence_java.UNUSED_IMPORT_SCORE
    assert scores["append"] < evidence_java.UNUSED_IMPORT_SCORE
