"""One place that assembles a CompletionEngine from its parts (server, eval, benchmarks)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping, Sequence

from ..context.assemble import (AssembledContext, assemble_context, prepare_document,
                                render_breakdown)
from ..context.analysis import forget_document
from ..context.recent import RecentEdits
from ..context.syntax import ParsedDocument
from ..context.workspace import Workspace, WorkspaceBoundary
from ..model.types import CompletionModel
from ..settings import Settings
from .multiline import decide_shape
from .quality import candidates, suggest
from .service import CompletionEngine, EngineEvents


class WorkspaceContext:
    """The context provider the engine calls: the tiered context engine, with the
    workspace boundary rebuilt whenever the folders or `exclude` change."""

    def __init__(self, settings: Callable[[], Settings],
                 documents: Mapping[str, ParsedDocument], roots: Callable[[], Sequence[Path]]):
        self.settings = settings
        self.documents = documents
        self.roots = roots
        self.recent = RecentEdits()
        self.boundary = WorkspaceBoundary(roots, lambda: settings().exclude)

    def workspace(self) -> Workspace | None:
        return self.boundary.get()

    def __call__(self, pdoc: ParsedDocument, offset: int, budget_tokens: int) -> AssembledContext:
        return assemble_context(pdoc, offset, budget_tokens=budget_tokens,
                                workspace=self.workspace(), open_docs=self.documents,
                                recent=self.recent)

    def note_edit(self, uri: str, line: int) -> None:
        self.recent.note_edit(uri, line)

    @staticmethod
    def prepare(pdoc: ParsedDocument) -> None:
        prepare_document(pdoc)

    def forget(self, uri: str) -> None:
        """The document closed: its edits and its analyzed versions go."""
        self.recent.forget(uri)
        forget_document(uri)

    @staticmethod
    def render(ctx: AssembledContext) -> str:
        return render_breakdown(ctx)


def build_engine(model: CompletionModel, *, settings: Callable[[], Settings],
                 documents: Mapping[str, ParsedDocument], roots: Callable[[], Sequence[Path]],
                 path_of: Callable[[str], str] = lambda uri: uri,
                 events: EngineEvents | None = None) -> CompletionEngine:
    return CompletionEngine(model, settings=settings, documents=documents,
                            context=WorkspaceContext(settings, documents, roots),
                            shaper=decide_shape, cleaner=suggest, variants=candidates,
                            path_of=path_of,
                            events=events)
