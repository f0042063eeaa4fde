"""C/C++ (session 10): what the directory's other files use (`siblings_c`) and the
unused members of a namespace the file qualifies names with (`namespace_c`)."""

from __future__ import annotations

from pathlib import Path

from flashls.context import ranking
from flashls.context.neighbors import neighbor_files
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE
from tests.files import write
from tests.test_context_javacpp_s7 import _open, _scores as s7_scores

HEADER = ("#pragma once\n\n"
          + "".join(f"inline int helper{i}(int x) {{ return x + {i}; }}\n" for i in range(12))
          + "inline int trim(int x) { return x; }\n")


def _scores(tmp_path: Path, tree: dict[str, str], user_path: str, cursor: int
            ) -> tuple[dict[str, float], list]:
    """(s7's best score per neighbor name, the neighbor files read)."""
    ranking.forget()
    scores = s7_scores(tmp_path, tree, user_path, cursor)
    ws, path, spec, a = _open(tmp_path, {}, user_path)
    return scores, neighbor_files(spec, str(path), a, ws, {})


def _user(name: str, calls: str) -> str:
    return (f'#include "util.h"\n\nint {name}(int v) {{\n    v = helper0(v);\n'
            f"{calls}    \n    return v;\n}}\n")


def test_cpp_a_name_the_directory_files_use_beats_the_fill(tmp_path):
    # CLI11's `detail::trim(..)`: used by the other files of the directory, by the
    # current file nowhere yet; its namesakes in the header have no such evidence
    tree = {"src/util.h": HEADER,
            "src/a.cpp": _user("a", "    v = trim(v);\n    v = helper1(v);\n"),
            "src/b.cpp": _user("b", "    v = trim(v) + helper2(v);\n"),
            "src/c.cpp": _user("c", "    v = trim(v);\n"),
            "src/main.cpp": _user("run", "")}
    scores, files = _scores(tmp_path, tree, "src/main.cpp", 4)
    assert len(files[0].siblings) == 4  # util.h too: its own names do not count
    assert scores["trim"] > scores["helper5"] + 5


def test_cpp_an_excluded_sibling_is_not_read(tmp_path):
    tree = {"src/util.h": HEADER,
            "src/a.cpp": _user("a", "    v = trim(v);\n"),
            "src/b.cpp": _user("b", "    v = trim(v);\n"),
            "src/main.cpp": _user("run", ""),
            ".gitignore": "src/a.cpp\nsrc/b.cpp\n"}
    _, files = _scores(tmp_path, tree, "src/main.cpp", 4)
    assert files and [Path(p).name for p, _ in files[0].siblings] == ["util.h"]


def test_cpp_unused_members_of_a_small_qualified_namespace_are_lifted(tmp_path):
    # cereal's `base64::decode(..)` in the file: `base64::encode` is likely next
    header = ("#pragma once\n\nnamespace base64 {\n"
              "inline int encode(int x) { return x; }\n"
              "inline int decode(int x) { return x; }\n}\n"
              + "".join(f"inline int other{i}(int x) {{ return x; }}\n" for i in range(4)))
    user = ('#include "b64.h"\n\nint f(int v) {\n    \n    return base64::decode(v);\n}\n')
    scores, _ = _scores(tmp_path, {"b64.h": header, "user.cpp": user}, "user.cpp", 3)
    assert scores["encode"] > scores["other0"] + 20


def test_cpp_server_requests_read_few_new_siblings_each(tmp_path):
    from flashls.context import siblings_c
    tree = {f"d/f{i}.cpp": f"int f{i}() {{ return {i}; }}\n" for i in range(10)}
    write(tmp_path, tree)
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    me = str(tmp_path / "d" / "f0.cpp")
    assert len(siblings_c.sibling_idents(me, ws, max_reads=4)) == 4
    assert len(siblings_c.sibling_idents(me, ws, max_reads=4)) == 8
    assert len(siblings_c.sibling_idents(me, ws)) == 9
