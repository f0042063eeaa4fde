"""The code actions flashls offers: titles, LSP kinds and what each asks of the model.

Data only. Listing an action never calls the model; these entries are all a listing
needs. An intent with `edits=True` ends in an edit replacing the selection.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Intent:
    id: str
    title: str
    kind: str  # LSP CodeActionKind (hierarchical, dot-separated)
    instruction: str  # what the model is asked to do ("" for a user instruction)
    edits: bool = True


REWRITE = Intent(
    "rewrite", "flashls: Rewrite…", "refactor.rewrite.flashls", "")
SIMPLIFY = Intent(
    "simplify", "flashls: Simplify", "refactor.rewrite.flashls.simplify",
    "Simplify this code: make it shorter and clearer without changing its behaviour. "
    "Keep the names of anything that may be used outside the selection.")
DOCSTRING = Intent(
    "docstring", "flashls: Add doc comment", "refactor.rewrite.flashls.docstring",
    "Add {doc} to every function, method, class or type in the selection that lacks "
    "one: say briefly what it does, its parameters and its result. Do not change any "
    "code; keep existing comments.")
FIX = Intent(
    "fix", "flashls: Fix this code", "quickfix.flashls.fix",
    "Fix this code so the problems reported above go away, changing as little as "
    "possible and keeping its behaviour otherwise.")
EXPLAIN = Intent(
    "explain", "flashls: Explain", "refactor.flashls.explain",
    "Explain what this code does, for a developer reading it: its purpose, how it "
    "works, and anything surprising or risky. Be concise (at most about 200 words). "
    "Answer in Markdown.", edits=False)
EXPLAIN_COMMENT = Intent(
    "explainComment", "flashls: Explain as comment", "refactor.flashls.explain.comment",
    EXPLAIN.instruction, edits=False)

INTENTS: dict[str, Intent] = {i.id: i for i in
                              (REWRITE, SIMPLIFY, DOCSTRING, FIX, EXPLAIN, EXPLAIN_COMMENT)}
KINDS: tuple[str, ...] = tuple(i.kind for i in INTENTS.values())
# the intents whose edit is computed on `codeAction/resolve` (REWRITE needs the
# user's instruction first, so it carries a command instead)
RESOLVABLE = ("simplify", "docstring", "fix", "explainComment")


def docstring_title(body_docstrings: bool) -> str:
    return "flashls: Add docstring" if body_docstrings else DOCSTRING.title


def instruction_for(intent: Intent, *, body_docstrings: bool = False,
                    custom: str = "") -> str:
    """The instruction sent to the model: the user's own, or the intent's standard one."""
    if intent.id == "rewrite":
        return custom.strip()
    if intent.id == "docstring":
        doc = ("a docstring (the first statement of the body)" if body_docstrings
               else "a doc comment in the language's conventional style, right above it")
        return intent.instruction.format(doc=doc)
    return intent.instruction


def kind_matches(kind: str, only: list[str] | None) -> bool:
    """Whether `kind` is requested by a client's `context.only` filter (hierarchical)."""
    if not only:
        return True
    return any(o == "" or kind == o or kind.startswith(o + ".") for o in only)
