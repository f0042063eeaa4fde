"""Java (session 10): a type the file calls as `Type.member` names its class exactly;
its unused static members are likely next, its instance members are not."""

from __future__ import annotations

from pathlib import Path

from flashls.context import ranking
from flashls.context import evidence_java
from flashls.context.evidence_java import MEASURED_STATIC_MEMBER, static_members
from flashls.context.neighbors import neighbor_files
from tests.test_context_javacpp_s7 import _open

HELPER = ("package p;\n\nfinal class Support {\n"
          "    static String stream(Object s, boolean parallel) {\n        return null;\n    }\n"
          "    static String longStream(Object s, boolean parallel) {\n        return null;\n    }\n"
          "    String describe() {\n        return null;\n    }\n}\n")
CALLER = ("package p;\n\nclass Pipeline {\n"
          "    String all(Object s) {\n        return Support.stream(s, false);\n    }\n\n"
          + "".join(f"    int size{k}() {{\n        return {k};\n    }}\n\n" for k in range(3))
          + "    String count(Object s) {\n        return null;\n    }\n}\n")
CURSOR = 20  # the body of `count`
TREE = {"p/Support.java": HELPER, "p/Pipeline.java": CALLER,
        "p/Other.java": "package p;\n\nclass Other {\n}\n",
        "p/More.java": "package p;\n\nclass More {\n}\n"}


def test_java_static_members_are_the_static_ones_and_an_interfaces_fields(tmp_path):
    tree = {"p/Codes.java": "package p;\n\npublic interface Codes {\n    int OK = 200;\n"
                            "    void send();\n}\n", **TREE}
    ws, path, spec, a = _open(tmp_path, tree, "p/Support.java")
    names = {a.items[k].name for k in static_members(a.items)}
    assert names == {"stream", "longStream"}  # not `describe`
    _, _, _, codes = _open(tmp_path, tree, "p/Codes.java")
    assert {codes.items[k].name for k in static_members(codes.items)} == {"OK"}


def test_java_an_unused_static_member_of_a_static_qualifier_scores_as_named(tmp_path,
                                                                          monkeypatch):
    # java.util.stream's Stream.java: `StreamSupport.stream(..)` 80 lines up, the line
    # being written is `return StreamSupport.longStream(buffer.spliterator(), false);`
    monkeypatch.setattr(evidence_java, "STATIC_MEMBER", MEASURED_STATIC_MEMBER)  # off by default
    ws, path, spec, a = _open(tmp_path, TREE, "p/Pipeline.java")
    files = neighbor_files(spec, str(path), a, ws, {})
    assert a.lines[CURSOR].strip() == "return null;"
    cands, _ = ranking.rank(a, str(path), CURSOR, (CURSOR, CURSOR), files, spec.resolver)
    score = {files[c.file].analysis.items[c.item].name: c.score for c in cands
             if c.file >= 0 and Path(files[c.file].path).name == "Support.java"}
    assert score["longStream"] >= 100 * MEASURED_STATIC_MEMBER * 0.8  # `Support.` 15 lines up
    assert score["describe"] < score["longStream"] - 15  # an instance method: no `Support.` call
