"""C/C++ (session 11): near-ties cheapest first (`ties_c`), statement macros at
namespace level (`macro_lines_c`), receivers held by smart pointers and range-for
declarations (`receivers_c`)."""

from __future__ import annotations

from pathlib import Path

from flashls.context import ranking, ties_c
from flashls.context.neighbors import neighbor_files
from flashls.context.receivers_c import _alias_target, declared
from tests.test_context_javacpp_s7 import _open, _scores


def _ranked(tmp_path: Path, tree: dict[str, str], user_path: str, cursor: int):
    ranking.forget()
    ws, path, spec, a = _open(tmp_path, tree, user_path)
    files = neighbor_files(spec, str(path), a, ws, {})
    cands, _ = ranking.rank(a, str(path), cursor, (cursor, cursor), files, spec.resolver)
    return [(files[c.file].analysis.items[c.item].name, c.score) for c in cands if c.file >= 0]


def test_cpp_near_tied_entries_go_cheapest_first(tmp_path):
    # both used in the anchor, alike in evidence: the long signature used to come
    # first by entry order and take the room of the short one at the cut
    header = ("#pragma once\n\n"
              "inline int long_one(int a, int b, int c, int d, int e, int f, int g,\n"
              "                    int h, int i, int j, int k, int l, int m) {\n"
              "    return a;\n}\n"
              "inline int short_one(int a) { return a; }\n")
    user = ('#include "h.h"\n\nint f(int v) {\n    v = long_one(v, v, v, v, v, v, v, v, v, v, v, v, v);\n'
            "    v = short_one(v);\n    \n    return v;\n}\n")
    ranked = _ranked(tmp_path, {"h.h": header, "user.cpp": user}, "user.cpp", 5)
    names = [n for n, _ in ranked]
    scores = dict(ranked)
    assert abs(scores["long_one"] - scores["short_one"]) < ties_c.TIE_WIDTH
    assert names.index("short_one") < names.index("long_one")


def test_cpp_tie_bands_keep_their_order():
    from flashls.context.ranking import Candidate

    cands = [Candidate(50.9, -1, 0), Candidate(50.1, -1, 1), Candidate(49.9, -1, 2)]
    costs = {0: 30, 1: 5, 2: 1}

    import flashls.context.ties_c as t
    saved = t.entry_cost
    t.entry_cost = lambda item: costs[item]
    try:
        out = t.order(cands, [0, 1, 2], [])
    finally:
        t.entry_cost = saved
    assert [c.item for c in out] == [1, 0, 2]  # 50.x cheapest first, then 49.x


MACROS = ("#pragma once\n\n#define NS_BEGIN(name) namespace name {\n#define NS_END(name) }\n"
          + "".join(f"inline int used{i}(int x) {{ return x + {i}; }}\n" for i in range(12)))


def _macro_user() -> str:
    body = "".join(f"    v = used{i}(v);\n" for i in range(12))
    return ('#include "m.h"\n\nNS_BEGIN(outer)\n\nint f(int v) {\n' + body + "    return v;\n}\n"
            + "\nint h(int v) {\n" + "    v = v * 3 + 1;\n" * 400 + "    return v;\n}\n"
            + "\n\nint g(int v) {\n    return used0(v);\n}\n\nNS_END(outer)\n")


def _macro_scores(tmp_path: Path, row: int, on: bool, monkeypatch) -> dict[str, float]:
    from flashls.context import macro_lines_c
    monkeypatch.setattr(macro_lines_c, "MACRO_LINE", 0.6 if on else 0.0)
    return _scores(tmp_path, {"m.h": MACROS, "user.cpp": _macro_user()}, "user.cpp", row)


def _between_functions() -> int:
    lines = _macro_user().split("\n")
    return lines.index("int g(int v) {") - 2


def test_cpp_a_statement_macro_the_file_writes_scores_at_namespace_level(tmp_path, monkeypatch):
    # pybind11's `PYBIND11_NAMESPACE_BEGIN(detail)`: used as a line of its own at the
    # top of the file, hundreds of lines from a cursor between two functions
    row = _between_functions()
    off = _macro_scores(tmp_path, row, False, monkeypatch)
    on = _macro_scores(tmp_path, row, True, monkeypatch)
    assert off["NS_BEGIN"] < 100 * 0.6 * 0.8 - 1
    assert on["NS_BEGIN"] >= 100 * 0.6 * 0.8 - 1e-6
    assert on["used5"] == off["used5"]


def test_cpp_statement_macros_are_not_lifted_inside_a_function(tmp_path, monkeypatch):
    row = _macro_user().split("\n").index("    v = used6(v);")
    assert _macro_scores(tmp_path, row, True, monkeypatch) == \
        _macro_scores(tmp_path, row, False, monkeypatch)


def test_cpp_receivers_held_by_smart_pointers_and_range_for():
    assert declared("    for(const App *subcom : subcommands) {") == (("subcom", "App"),)
    assert declared("  std::unique_ptr<Foo> p(new Foo);") == (("p", "Foo"),)
    assert declared("  std::shared_ptr<const ns::Bar<int>> q = x;") == (("q", "Bar"),)
    assert declared("  int a = b ? c : d;") == ()
    assert _alias_target("Option_p", "using Option_p = std::unique_ptr<Option>;") == "Option"
    assert _alias_target("X", "using X = Y<Z>;") == "Y"
