"""Python rules of session 11.

* a used module's unused class sharing a base with one used near the cursor
  (`evidence_kin`), and an unused entry between two used ones (`BETWEEN`);
* a typed receiver's member whose name is used only plainly scores as an unused
  member (`evidence_members.PLAIN_UNUSED`);
* a file whose imported names are used nowhere yet is read beyond the 24-file room
  (`import_order.by_use_room`).

Each test runs with its rule on and off and fails with it off."""

from pathlib import Path

import pytest

from flashls.context import evidence_kin, evidence_members, import_order
from flashls.context.analysis import analyze
from flashls.context.languages import language_for
from flashls.context.neighbors import neighbor_files
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE
from tests.files import write
from tests.test_init_attributes import _scores

# a module of many node classes: `Neg`, `Pos` and `Not` derive from `UnaryExpr`
NODES = ("class Node:\n    pass\n\n\nclass Expr(Node):\n    pass\n\n\n"
         "class UnaryExpr(Expr):\n    pass\n\n\n" +
         "".join(f"class Stmt{k}(Node):\n    fields = ('a', 'b')\n\n\n" for k in range(40)) +
         "class Neg(UnaryExpr):\n    operator = '-'\n\n\n"
         "class Pos(UnaryExpr):\n    operator = '+'\n\n\n"
         "class Not(UnaryExpr):\n    operator = 'not'\n")


@pytest.mark.parametrize("rule", [True, False])
def test_an_unused_class_akin_to_one_used_near_scores_above_the_module(tmp_path, monkeypatch,
                                                                        rule):
    # `nodes.Neg(..)` typed right above `nodes.Pos(..)`: Neg is Pos's kin
    monkeypatch.setattr(evidence_kin, "RESOLVERS", frozenset({"python"} if rule else ()))
    text = ("from . import nodes\n\n\n"
            "def first(parser):\n    return nodes.Stmt0(parser)\n\n\n"
            "def parse_unary(parser, token):\n    if token == 'sub':\n        node = ")
    text += "\n    elif token == 'add':\n        node = nodes.Pos(parser)\n    return node\n"
    files = {"pkg/__init__.py": "", "pkg/nodes.py": NODES}
    s = _scores(tmp_path, monkeypatch, files, text)
    assert (s["Neg"] > s["Stmt7"] + 10) == rule
    assert s["Stmt7"] < 60  # the module's other names keep the module's score


DEFAULTS = "".join(f"SETTING_{k} = {k}\n" for k in range(40)) + \
    "TRIM_BLOCKS = False\nLSTRIP_BLOCKS = False\nNEWLINE_SEQUENCE = '\\n'\n"


@pytest.mark.parametrize("rule", [True, False])
def test_an_unused_entry_between_two_used_ones_is_kin(tmp_path, monkeypatch, rule):
    monkeypatch.setattr(evidence_kin, "BETWEEN", rule)
    text = ("from . import defaults\n\n\n"
            "def make(options):\n    return Env(\n        defaults.TRIM_BLOCKS,\n        ")
    text += "\n        defaults.NEWLINE_SEQUENCE,\n    )\n"
    files = {"pkg/__init__.py": "", "pkg/defaults.py": DEFAULTS}
    s = _scores(tmp_path, monkeypatch, files, text)
    assert (s["LSTRIP_BLOCKS"] > s["SETTING_3"] + 10) == rule


URLS = ("class URL:\n" + "".join(f"    def member_{k}(self, a, b, c):\n        pass\n\n"
                                 for k in range(20)) +
        "    @property\n    def password(self) -> str:\n        pass\n")
MODELS = ("class Request:\n    def __init__(self, url) -> None:\n"
          "        self.url = URL(url)\n")


@pytest.mark.parametrize("rule", [True, False])
def test_a_member_named_like_a_local_is_still_a_typed_receivers_member(tmp_path, monkeypatch,
                                                                       rule):
    # `password = request.url.password`: the local `password` used below is no use
    # of `URL.password`, which is as unused as URL's other members
    monkeypatch.setattr(evidence_members, "PLAIN_UNUSED", rule)
    text = ("from .models import Request\nfrom .urls import URL\n\n\n"
            "def auth(request: Request):\n    if request.url.member_1(1, 2, 3):\n"
            "        return None\n    password = ")
    text += "\n    return build(password, password)\n"
    files = {"pkg/__init__.py": "", "pkg/models.py": MODELS, "pkg/urls.py": URLS}
    s = _scores(tmp_path, monkeypatch, files, text)
    assert (s["password"] > 20) == rule


@pytest.mark.parametrize("rule", [True, False])
def test_a_file_imported_and_not_used_yet_is_read_beyond_the_room(tmp_path, monkeypatch,
                                                                  rule):
    # 30 modules each used twice and `screen` imported and used nowhere yet: the
    # 24 most used were read and `screen.py` never
    monkeypatch.setattr(import_order, "UNUSED_FIRST", frozenset({"python"} if rule else ()))
    files = {f"pkg/m{k}.py": f"def f{k}():\n    pass\n" for k in range(30)}
    files["pkg/screen.py"] = "class Screen:\n    pass\n"
    files["pkg/__init__.py"] = ""
    text = "".join(f"from .m{k} import f{k}\n" for k in range(30)) + \
        "from .screen import Screen\n\n\n" + \
        "".join(f"def g{k}():\n    f{k}()\n    f{k}()\n\n\n" for k in range(30))
    files["pkg/main.py"] = text
    write(tmp_path, files)
    path = str(tmp_path / "pkg/main.py")
    spec = language_for("", path)
    got = [Path(f.path).name for f in neighbor_files(
        spec, path, analyze(spec, text, ("room", path)),
        Workspace([str(tmp_path)], DEFAULT_EXCLUDE), {})]
    assert ("screen.py" in got) == rule
    assert len([g for g in got if g.startswith("m")]) == 24  # the used files keep their room
