"""Python rule of session 10: attributes typed by `__init__` assignments.

* an attribute a neighbor's `__init__` assigns types `x.attr` (`init_attributes`);
* so does one the current file's own `__init__` assigns.

Each test reads the scores `ranking.rank` gives and fails with its rule off."""

import pytest

from flashls.context import evidence_members, ranking
from flashls.context.analysis import analyze
from flashls.context.init_attributes import init_attributes
from flashls.context.languages import language_for
from tests.files import sent_context

def _scores(tmp_path, monkeypatch, files: dict, text: str) -> dict[str, float]:
    """Best score per entry name of the neighbor files, for a request at the end."""
    seen: dict[str, float] = {}
    real = ranking.rank

    def spy(analysis, path, cursor_line, window, nfiles, resolver, typing_line=-1):
        cands, ev = real(analysis, path, cursor_line, window, nfiles, resolver, typing_line)
        for c in cands:
            if c.file >= 0:
                f = nfiles[c.file]
                name = f.analysis.items[c.item].name
                for key in (name, f"{f.source}:{name}"):
                    seen[key] = max(seen.get(key, 0.0), c.score)
        return cands, ev

    monkeypatch.setattr(ranking, "rank", spy)
    sent_context(tmp_path, files, "pkg/parser.py", text, budget=2048)
    return seen


MODELS = ("class Request:\n"
          "    def __init__(self, method: str, url, ctx: 'Context' = None) -> None:\n"
          "        self.method = method\n"
          "        self.url = URL(url)\n"
          "        self.command: 'Command' = None\n"
          "        self.ctx = ctx\n"
          "        self.count += 1\n")


def test_init_assignments_type_the_attributes():
    a = analyze(language_for("", "models.py"), MODELS, ("t", "models.py"))
    assert init_attributes(a) == {"url": frozenset({"URL"}), "command": frozenset({"Command"}),
                                  "ctx": frozenset({"Context"})}


URLS = ("class URL:\n" + "".join(f"    def member_{k}(self, a, b, c):\n        pass\n\n"
                                 for k in range(20)) +
        "    @property\n    def password(self) -> str:\n        pass\n\n\n"
        "def quote(text):\n    pass\n")
OTHER = "".join(f"class Thing{k}:\n    def password(self, x, y, z, w):\n        pass\n\n\n"
                for k in range(6))


@pytest.mark.parametrize("rule", [True, False])
def test_an_attribute_set_in_a_neighbors_init_types_its_receiver(tmp_path, monkeypatch, rule):
    # `request.url.password`: Request's `__init__` does `self.url = URL(url)`
    monkeypatch.setattr(evidence_members, "INIT_ASSIGNED", rule)
    text = ("from .models import Request\nfrom .urls import quote\nfrom .things import *\n\n\n"
            "def check(request: Request):\n    secret = request.url.password\n"
            "    return secret\n\n\ndef other(request):\n    x = ")
    files = {"pkg/__init__.py": "", "pkg/models.py": MODELS, "pkg/urls.py": URLS,
             "pkg/things.py": OTHER}
    s = _scores(tmp_path, monkeypatch, files, text)
    url_password = s["pkg/urls.py:password"]
    assert (url_password > max(s["pkg/things.py:password"], 50)) == rule



SYMBOLS = ("class Symbols:\n    def load(self, name):\n        pass\n\n"
           "    def declare_parameter(self, name_of_the_parameter):\n        pass\n")


@pytest.mark.parametrize("rule", [True, False])
def test_an_attribute_set_in_the_files_own_init_types_its_receiver(tmp_path, monkeypatch, rule):
    # `self.names = table` with `table: "Symbols"` in this file's Frame:
    # `frame.names.` may call any of Symbols' methods, `declare_parameter` too
    monkeypatch.setattr(evidence_members, "INIT_HERE", rule)
    text = ("from .ids import Symbols\n\n\nclass Frame:\n"
            "    def __init__(self, table: 'Symbols'):\n        self.names = table\n\n\n" +
            "".join(f"def filler_{k}(a):\n    return a\n\n\n" for k in range(200)) +
            "def visit(frame):\n    frame.names.load('x')\n    ref = frame.names.")
    files = {"pkg/__init__.py": "", "pkg/ids.py": SYMBOLS}
    s = _scores(tmp_path, monkeypatch, files, text)
    assert (s["declare_parameter"] > 30) == rule
