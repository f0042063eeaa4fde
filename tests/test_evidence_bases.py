"""Python rules of session 9 (`evidence_bases.py`, `ranking.UNUSED_MODULE`): each
test builds a small workspace whose needed signature
is in the request only with that rule (the assertions fail with it removed)."""

import pytest

from flashls.context import evidence_bases, ranking
from flashls.context.evidence_bases import class_bases
from flashls.context.outline import Item
from tests.files import sent_context as _sent

FILLER = "".join(f"def filler_function_{k}(first_argument, second_argument, third_one):\n"
                 "    pass\n\n" for k in range(60))

# twelve node classes, each with a `visit` method: namesakes of the base's `visit`
NODES = "".join(f"class Node{k}:\n    def visit(self, other_thing_{k}, more_things_{k}, "
                f"and_even_more_{k}, last_one_{k}):\n        pass\n\n" for k in range(12))
VISITOR = ("class NodeVisitor:\n"
           "    def visit(self, node, *args, **kwargs):\n        pass\n\n"
           "    def generic_visit(self, node, *args, **kwargs):\n        pass\n")


def _class(line: str) -> Item:
    return Item("X", "class", 1, 0, 0, (line,), (), -1, 1)


@pytest.mark.parametrize("line, bases", [
    ("class A(B):", ("B",)),
    ("class A(mod.B, C[T], metaclass=Meta):", ("B", "C")),
    ("class A(Generic[T], t.Mapping[str, int]):", ("Mapping",)),
    ("class A:", ()),
])
def test_class_bases_reads_the_header(line, bases):
    assert class_bases(_class(line)) == bases


def _visitor_workspace():
    text = ("from .nodes import " + ", ".join(f"Node{k}" for k in range(12)) +
            "\nfrom .visitor import NodeVisitor\n"
            "from .filler import *\n\n\n"
            "class CodeGenerator(NodeVisitor):\n"
            "    def first(self, node):\n        self.visit(node.body)\n\n"
            "    def second(self, node):\n        ")
    text += "\n        return node\n"  # the cursor inside the class, not past its end
    return {"pkg/__init__.py": "", "pkg/nodes.py": NODES, "pkg/visitor.py": VISITOR,
            "pkg/filler.py": FILLER}, text


def test_self_in_a_subclass_calls_the_imported_bases_method(tmp_path, monkeypatch):
    # `self.visit` is NodeVisitor's: the three node classes' `visit` say nothing
    files, text = _visitor_workspace()
    monkeypatch.setattr(ranking, "_deferring_repeats", _no_deferring)
    sent = _sent_at(tmp_path, files, "pkg/main.py", text, _CURSOR(text), budget=350)
    assert "def visit(self, node, *args, **kwargs):" in sent


def test_without_the_rule_a_namesake_is_sent_instead(tmp_path, monkeypatch):
    files, text = _visitor_workspace()
    monkeypatch.setattr(ranking, "_deferring_repeats", _no_deferring)
    monkeypatch.setattr(evidence_bases, "RESOLVERS", frozenset())
    sent = _sent_at(tmp_path, files, "pkg/main.py", text, _CURSOR(text), budget=350)
    assert "def visit(self, node, *args, **kwargs):" not in sent


def _CURSOR(text: str) -> int:
    return text.rindex("\n        return node")


def _no_deferring(order, files, members):
    """`choose`'s order as ranked: the test is about the scores, not the repeat rule."""
    return iter(order)


def test_a_receiver_declared_with_a_subclass_reaches_the_bases_members(tmp_path):
    # `request: Request` and `Request(HTTPConnection)`: `request.` next may well be
    # the base's `headers`, defined in HTTPConnection only
    requests = ("class HTTPConnection:\n"
                "    def headers(self, include_defaults_too: bool = False) -> dict:\n"
                "        pass\n\n\n"
                "class Request(HTTPConnection):\n"
                "    def body(self) -> bytes:\n        pass\n")
    text = ("from .requests import Request\nfrom .filler import *\n\n\n"
            "def handle(request: Request):\n    accept = ")
    sent = _sent(tmp_path, {"pkg/__init__.py": "", "pkg/requests.py": requests,
                            "pkg/filler.py": FILLER}, "pkg/main.py", text, budget=520)
    assert "def headers(self, include_defaults_too: bool = False) -> dict:" in sent


def test_a_module_imported_and_not_used_yet_brings_its_names(tmp_path):
    # `from . import tracing` used nowhere else: the line being typed is its first use
    tracing = "class TagTracer:\n    def get(self, name_of_the_tracer: str):\n        pass\n"
    text = ("from .filler import *\nfrom . import tracing\n\n\n"
            "class Manager:\n    def __init__(self):\n        self.trace = ")
    sent = _sent(tmp_path, {"pkg/__init__.py": "", "pkg/tracing.py": tracing,
                            "pkg/filler.py": FILLER}, "pkg/main.py", text, budget=500)
    assert "class TagTracer:" in sent


def _sent_at(root, files, current, text, offset, budget):
    from flashls.context.assemble import assemble_context
    from flashls.context.document import Document
    from flashls.context.syntax import ParsedDocument
    from flashls.context.workspace import Workspace
    from flashls.settings import DEFAULT_EXCLUDE
    from tests.files import write

    write(root, files)
    path = root / current
    path.write_text(text)
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
    ranking.forget()
    ctx = assemble_context(pdoc, offset, budget_tokens=budget,
                           workspace=Workspace([str(root)], DEFAULT_EXCLUDE))
    return "".join(p.text for p in ctx.parts)
