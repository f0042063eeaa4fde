"""Session 11 speed work in the shared passes: shortcuts that must give what the plain
code gave.

C/C++'s brief form finds the line naming an entry by a substring search (a pattern
compiled per name overflowed `re`'s cache); `receiver_classes` reads each analysis's
`__init__` table once per call, not once per qualifier; `outline.build_items` renders
a definition once per text (a Java or C++ class is one node whose members were all
rendered again when one line of it changed)."""

from __future__ import annotations

import random
import re
from types import SimpleNamespace

from cachetools import LRUCache
from hypothesis import given, settings, strategies as st

from flashls.context import analysis, brief_c, evidence_members, outline
from flashls.context.analysis import analyze
from flashls.context.languages import language_for


def _regex_naming_line(name, head):
    # main's `_naming_line` (d21782a)
    if not name:
        return None
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    return next((i for i, line in enumerate(head) if word.search(line)), None)


_CHARS = st.sampled_from(list("ab_$1 .:(){}<>*&~") + ["é", "ß", "٣", "名", "\u00b2", "\t"])


@settings(max_examples=3000, deadline=None)
@given(st.text(_CHARS, max_size=4), st.lists(st.text(_CHARS, max_size=14), max_size=4))
def test_naming_line_equals_the_whole_word_pattern(name, head):
    assert brief_c._naming_line(name, head) == _regex_naming_line(name, head)


def test_naming_line_cases_and_no_pattern_compiled(monkeypatch):
    cases = [("Foo", ["template <class T>", "struct Foo : Bar<T> {"], 1),
             ("aa", ["aaa aa_ $aa", "x aa"], 1),  # overlapping, then a whole word
             ("aa", ["aaa", "aa"], 1),
             ("operator()", ["bool operator()(int) const"], 0),
             ("x", ["é x", "éx"], 0),
             ("x", ["éx", "x2"], None),
             ("", ["anything"], None)]
    compiled = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda *a, **k: compiled.append(a) or real(*a, **k))
    for name, head, want in cases:
        assert brief_c._naming_line(name, head) == want, (name, head)
    assert not compiled  # main compiled one pattern per name asked


def _py(path: str, text: str):
    spec = language_for("", path)
    return analyze(spec, text, ("s11", path, text))


def test_receiver_classes_reads_each_init_table_once(monkeypatch):
    env = ("class Environment:\n    def __init__(self, loader):\n"
           "        self.loader = Loader(loader)\n        self.cache = Cache()\n"
           "    def get(self):\n        pass\n\n\n"
           "class Loader:\n    def load(self):\n        pass\n\n\n"
           "class Cache:\n    def hit(self):\n        pass\n")
    files = [SimpleNamespace(analysis=_py("/s11/env.py", env))]
    current = _py("/s11/main.py", "class App:\n    def __init__(self):\n"
                  "        self.store = Cache()\n")
    ev = SimpleNamespace(receivers={})
    calls = []
    real = evidence_members.init_attributes
    monkeypatch.setattr(evidence_members, "init_attributes",
                        lambda a: calls.append(a) or real(a))
    got = evidence_members.receiver_classes({"loader", "cache", "store", "other"}, ev,
                                            files, by_name=False, current=current)
    assert got == {"loader": frozenset({"Loader"}), "cache": frozenset({"Cache"}),
                   "store": frozenset({"Cache"})}
    assert len(calls) == 2  # one per analysis; main asked once per qualifier (8)


_JAVA = """package p;

/** A holder. */
public class Holder<T> extends Base implements Runnable {
    private final int size;
    @Override
    public void run() {
        int x = size + 1;
        call(x);
    }

    /** Gets. */
    public T get(int index,
                 boolean strict) throws IllegalStateException {
        if (strict) {
            throw new IllegalStateException();
        }
        return null;
    }

    static final String[] NAMES = {
        "a", "b", "c", "d", "e",
        "f", "g", "h", "i", "j",
        "k", "l",
    };

    interface Inner {
        void go();
    }
}
"""

_CPP = """#include <vector>
namespace ns {
template <typename T>
struct Box : Base<T,
                  int> {
    T value;
    T get() const
    {
        return value;
    }
};
#define TWICE(x) \\
    ((x) * 2)
int api_key = 12345;
static const char *password = "hunter2";
}  // namespace ns
"""

_PYTHON = '''import os


class Shape:
    """A shape."""

    def __init__(self, size):
        self.size = size

    @property
    def area(self) -> float:
        """The area."""
        return self.size * self.size


def free(a,
         b):
    # a comment opening the body
    return a + b
'''


def _items(path: str, text: str, *, memo: bool):
    """The items of `text` extracted afresh (no node spliced from an earlier version),
    every definition rendered through the render memo or (memo=False) without it."""
    analysis.clear()
    if not memo:
        outline._RENDERED.clear()
    a = analyze(language_for("", path), text, ("s11-items", path, text, memo))
    return a.items


def _mutations(text: str, rng: random.Random, n: int):
    lines = text.split("\n")
    out = [text]
    for _ in range(n):
        lines = list(lines)
        k = rng.randrange(len(lines))
        op = rng.randrange(4)
        if op == 0:
            lines.insert(k, rng.choice(["", "    int z = 0;", "    // note", "}", "    x = 1"]))
        elif op == 1 and len(lines) > 3:
            del lines[k]
        elif op == 2:
            lines[k] = lines[k] + rng.choice([" ", ";", " // c", "(", "{"])
        else:  # the file ends inside a definition (this version only)
            out.append("\n".join(lines[:rng.randrange(1, len(lines) + 1)]))
            continue
        out.append("\n".join(lines))
    return out


def test_rendered_items_equal_a_fresh_rendering_through_edits():
    rng = random.Random(11)
    for path, text in (("/s11/Holder.java", _JAVA), ("/s11/box.hpp", _CPP),
                       ("/s11/shape.py", _PYTHON)):
        for version in _mutations(text, rng, 150):
            warm = _items(path, version, memo=True)
            cold = _items(path, version, memo=False)
            assert warm == cold, (path, version)


def _long_body(indent: str, doc_above: bool) -> str:
    # a body longer than RENDER_ROWS whose first code row sits below two blank rows
    # (`_body_indent` reads it), and a doc comment above or not
    return ("// the box\n" if doc_above else "") + \
        "int f(int a)\n{\n\n\n" + indent + "a += 1;\n" + \
        "".join(f"    a += {k};\n" for k in range(8)) + "    return a;\n}\n"


def test_rendered_items_follow_each_row_they_are_read_from():
    # versions that differ only in a row the rendering reads far from the header:
    # the first code row of a long body, the closing line, a doc comment above
    versions = [_long_body("        ", False), _long_body("  ", False),
                _long_body("        ", True), _long_body("        ", False).replace(
                    "    return a;\n}\n", "    return a;\n};\n")]
    for version in versions + versions[::-1]:
        warm = _items("/s11/long.c", version, memo=True)
        cold = _items("/s11/long.c", version, memo=False)
        assert warm == cold, version


def test_an_unchanged_member_is_not_rendered_again(monkeypatch):
    calls = []
    real = outline._render
    monkeypatch.setattr(outline, "_render", lambda *a: calls.append(a[1].name) or real(*a))
    outline._RENDERED.clear()
    text = _JAVA.replace("private final int size;", "private final int size, fresh;")
    _items("/s11/Holder.java", text, memo=True)  # a class node no test extracted yet
    assert "get" in calls
    calls.clear()
    edited = text.replace("call(x);", "call(x + 2);")
    _items("/s11/Holder.java", edited, memo=True)
    # the class node was extracted again; only `run`, whose lines changed, and the
    # class around it are rendered again
    assert "run" in calls and "get" not in calls and "Inner" not in calls


def test_the_render_memo_keeps_its_bound(monkeypatch):
    monkeypatch.setattr(outline, "_RENDERED", LRUCache(maxsize=5))
    _items("/s11/Holder.java", _JAVA, memo=True)
    assert len(outline._RENDERED) <= 5
