"""A small workspace on disk for the context tests: relative path -> text."""

from __future__ import annotations

from pathlib import Path


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def sent_context(root: Path, files: dict[str, str], current: str, text: str,
                 budget: int) -> str:
    """Write the workspace and `current`, and return the text of the context a
    request at the end of `current` would send (a fresh ranking)."""
    from flashls.context import ranking
    from flashls.context.assemble import assemble_context
    from flashls.context.document import Document
    from flashls.context.syntax import ParsedDocument
    from flashls.context.workspace import Workspace
    from flashls.settings import DEFAULT_EXCLUDE

    write(root, files)
    path = root / current
    path.write_text(text)
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
    workspace = Workspace([str(root)], DEFAULT_EXCLUDE)
    ranking.forget()
    ctx = assemble_context(pdoc, len(text), budget_tokens=budget, workspace=workspace)
    return "".join(p.text for p in ctx.parts)
