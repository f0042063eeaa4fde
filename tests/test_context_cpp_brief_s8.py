"""C/C++ (session 8): brief forms without a namespace's or an Allman function's `{`
(`brief_c.py`), and entries the grammar names by a keyword (`evidence_c.keyword_names`)."""

from __future__ import annotations

from flashls.context.analysis import analyze
from flashls.context.evidence_c import keyword_names
from flashls.context.languages import language_for
from flashls.context.ranking import Candidate
from tests.test_context_javacpp_brief import _item  # one analysed item by name

POOL = ("#pragma once\n"
        "namespace rapidxml {\n"
        "    template<class Ch = char>\n"
        "    class memory_pool\n    {\n"
        "    public:\n"
        "        void clear()\n        {\n            reset();\n        }\n"
        "        Ch *allocate_string(const Ch *source = 0, int size = 0)\n        {\n"
        "            return 0;\n        }\n"
        "    };\n"
        "}\n")


def test_cpp_namespace_brief_form_leaves_out_its_brace():
    assert _item(POOL, "rapidxml").brief[0] == ("namespace rapidxml",)


def test_cpp_allman_function_brief_form_leaves_out_the_lone_brace_line():
    assert _item(POOL, "clear").brief[0] == ("        void clear()",)
    assert _item(POOL, "allocate_string").brief[0] == \
        ("        Ch *allocate_string(const Ch *source = 0, int size = 0)",)
    assert "        {" in _item(POOL, "clear").lines  # the full form keeps it


def test_cpp_an_entry_named_by_a_keyword_ranks_at_a_tenth():
    # fmt's `#define FMT_STRING_IMPL(s, base, explicit)` is read as an entry named
    # `struct`, and every overload is named `operator`: the keyword is "used" on many
    # lines of any C++ file, so such an entry ranked among the first
    text = ("#pragma once\nstruct point {\n  int x;\n};\n"
            "inline bool operator==(point a, point b) { return a.x == b.x; }\n"
            "void use_me(int v);\n")
    a = analyze(language_for("", "h.h"), text, ("cpp-kw", text))
    index = {it.name: k for k, it in enumerate(a.items)}
    cands = [Candidate(90.0, -1, index["operator"]), Candidate(90.0, -1, index["use_me"])]
    scores = {a.items[c.item].name: c.score for c in keyword_names(cands, a, [])}
    assert scores == {"operator": 9.0, "use_me": 90.0}
    java = "class A {\n    void operator() {\n    }\n}\n"
    ja = analyze(language_for("", "A.java"), java, ("java-kw", java))
    kept = [Candidate(90.0, -1, k) for k in range(len(ja.items))]
    assert keyword_names(kept, ja, []) == kept  # C/C++ only

