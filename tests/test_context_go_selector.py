"""Go: a name used only after a selector (`x.Upgrade(..)`) is a method or a field, not
the package function of the same name (`flashls/context/evidence.py`'s `NameUse.plain`,
read by `flashls/context/evidence_go.py`).

In a Go package, a function of the package is called plainly (`Upgrade(w, r)`), and a
function of another package through its import name (`websocket.Upgrade`). A call on a
value whose type the file does not tell (`cstUpgrader` is a package variable of another
file) reaches a method; the deprecated package function of the same name outranked it
and, as a better entry of the same name in the same file, halved its score."""

from __future__ import annotations

import pytest

from flashls.context.assemble import _current_analysis
from flashls.context.document import Document
from flashls.context.evidence import forget_far, gather
from flashls.context.syntax import ParsedDocument
from tests.files import write
from tests.test_context_go_rust import GO_MOD, score, scores

SERVER = ("package shop\n\n// Upgrader upgrades a connection.\ntype Upgrader struct{ size int }\n\n"
          "// Upgrade upgrades the connection.\n"
          "func (u *Upgrader) Upgrade(w int, r int) (int, error) { return w + r, nil }\n\n"
          "// Upgrade is deprecated: use Upgrader.Upgrade.\n"
          "func Upgrade(w int, r int) (int, error) { return w, nil }\n")
VARS = "package shop\n\nvar cstUpgrader = Upgrader{size: 1}\n"


@pytest.mark.parametrize("call, winner, loser", [
    # only after a selector: the method of a package variable's type
    ("cstUpgrader.Upgrade(w, r)", "func (u *Upgrader) Upgrade(", "func Upgrade("),
    # called plainly: the package function
    ("Upgrade(w, r)", "func Upgrade(", "func (u *Upgrader) Upgrade("),
])
def test_go_selector_or_plain_use_decides_between_method_and_function(tmp_path, call,
                                                                      winner, loser):
    write(tmp_path, {
        "go.mod": GO_MOD, "server.go": SERVER, "vars.go": VARS,
        "use.go": "package shop\n\nfunc handler(w int, r int) {\n"
                  f"\tws, err := {call}\n\t_ = ws\n\t_ = err\n}}\n",
    })
    table = scores(tmp_path, "use.go", "\t_ = ws")
    assert score(table, "server.go", winner) > score(table, "server.go", loser)


def test_plain_flag_tells_plain_from_selector_uses(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD, "server.go": SERVER,
        "use.go": "package shop\n\nfunc a(u *Upgrader) {\n\tu.Upgrade(1, 2)\n\tu.size = 3\n}\n\n"
                  "func b() {\n\tUpgrade(1, 2)\n}\n\n"
                  "func (u *Upgrader) size2() int {\n\treturn u.size\n}\n",
    })
    path = tmp_path / "use.go"
    text = path.read_text()
    analysis = _current_analysis(ParsedDocument.open(Document(path.as_uri(), text, "", 1),
                                                     str(path)))
    ev = gather(analysis, 3, {"Upgrade", "size", "size2"}, "go")
    assert ev.uses["Upgrade"].plain is True  # `Upgrade(1, 2)` in b
    assert ev.uses["size"].plain is False  # only `u.size`
    assert ev.uses["size"].attribute
    py = gather(analysis, 3, {"Upgrade"}, "python")
    assert py.uses["Upgrade"].plain is None  # measured for Go only


def test_go_function_named_only_in_a_message_yields_to_the_typed_method(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD, "server.go": SERVER,
        "use.go": "package shop\n\nfunc handler(t int) {\n"
                  "\tupgrader := Upgrader{size: 2}\n\tlog(\"Upgrade failed\")\n"
                  "\tws := 1\n\t_ = ws\n}\n\nfunc log(s string) {}\n",
    })
    table = scores(tmp_path, "use.go", "\tws := 1")
    assert score(table, "server.go", "func (u *Upgrader) Upgrade(") > \
        score(table, "server.go", "func Upgrade(")


def test_plain_flag_of_a_far_node_holds_after_an_enter_above_it():
    """Far nodes' part is memoized by their offsets from the anchor: an Enter inside
    the anchor moves the nodes below, and their lines must be read where they are."""
    filler = "".join(f"func pad{k}() int {{\n\treturn {k}\n}}\n\n" for k in range(100))
    text = ("package shop\n\nfunc a(u *Upgrader) {\n\tu.Upgrade(1, 2)\n}\n\n" + filler +
            "func far() {\n\tx := 1\n\tUpgrade(x, 2)\n}\n")
    uri = "file:///w/use.go"
    pdoc = ParsedDocument.open(Document(uri, text, "go", 1), uri)
    forget_far()
    first = gather(_current_analysis(pdoc), 3, {"Upgrade"}, "go")
    assert first.uses["Upgrade"].plain is True
    line = pdoc.doc.line_text(3)
    pdoc.apply_change((3, len(line)), (3, len(line)), "\n\t")
    pdoc.doc.version += 1
    again = gather(_current_analysis(pdoc.snapshot()), 4, {"Upgrade"}, "go")
    assert again.uses["Upgrade"].plain is True
