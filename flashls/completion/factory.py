"""One place that assembles a CompletionEngine from its parts (server, eval, benchmarks)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping, Sequence

from ..context.syntax import ParsedDocument
from ..model.types import CompletionModel
from ..settings import Settings
from .service import CompletionEngine, EngineEvents


def build_engine(model: CompletionModel, *, settings: Callable[[], Settings],
                 documents: Mapping[str, ParsedDocument], roots: Callable[[], Sequence[Path]],
                 path_of: Callable[[str], str] = lambda uri: uri,
                 events: EngineEvents | None = None) -> CompletionEngine:
    return CompletionEngine(model, settings=settings, documents=documents,
                            path_of=path_of, events=events)
