"""Java (session 11): equal scores at the cut are broken by the words an entry shares
with the identifiers next to the cursor, even in a family too big for a bonus."""

from __future__ import annotations

from flashls.context import family_ties
from tests.test_context_javacpp_s7 import _scores

# LogManager: ten `get*Property` methods (too many for the family bonus: MAX_FAMILY 8)
# after unrelated ones, every one a member of the type the cursor's neighbor line uses
PROPS = ["Int", "Long", "Boolean", "Level", "Filter", "Formatter", "String", "Char",
         "Double", "Float"]
MANAGER = ("package p;\n\npublic class Manager {\n"
           "    public void updateConfiguration() {\n    }\n"
           "    public void reset() {\n    }\n"
           + "".join(f"    public int get{k}Property(String name, int d) {{\n"
                     f"        return d;\n    }}\n" for k in PROPS)
           + "}\n")
HANDLER = ("package p;\n\nclass Handler {\n    int size;\n    int level;\n\n"
           "    Handler(Manager manager) {\n"
           "        String cname = \"h\";\n"
           "        level = 0;\n"  # the line being written: manager.getLevelProperty(..)
           "        size = manager.getIntProperty(cname + \".size\", 4);\n"
           "    }\n}\n")
TREE = {"p/Manager.java": MANAGER, "p/Handler.java": HANDLER}
CURSOR = 8


def test_java_ties_go_to_the_names_sharing_words_with_the_cursors_neighbors(tmp_path):
    score = _scores(tmp_path, TREE, "p/Handler.java", CURSOR)
    assert score["getLevelProperty"] > score["updateConfiguration"]
    assert score["getLevelProperty"] > score["reset"]
    assert score["getLevelProperty"] - score["reset"] < family_ties.TIE_POINTS  # a tie-break


def test_java_tie_break_off_leaves_the_tie(tmp_path, monkeypatch):
    monkeypatch.setattr(family_ties, "TIE_POINTS", 0.0)
    score = _scores(tmp_path, TREE, "p/Handler.java", CURSOR)
    assert score["getLevelProperty"] == score["updateConfiguration"]
