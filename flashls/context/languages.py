"""Which tree-sitter grammar serves which document, loaded lazily from official wheels.

Per-language knowledge (comment syntax, block openers, signature and import queries)
is data here and in `queries/<name>/*.scm`, never conditionals spread over the code.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tree_sitter import Language, Parser

QUERY_DIR = Path(__file__).parent / "queries"


@dataclass(frozen=True)
class LanguageSpec:
    name: str  # our name, also the queries/ folder
    module: str  # the grammar wheel's module
    function: str = "language"  # its entry point
    language_ids: tuple[str, ...] = ()  # LSP languageId values
    extensions: tuple[str, ...] = ()
    line_comment: str = "//"
    block_openers: tuple[str, ...] = ("{",)  # a line ending in one opens a block
    indent_blocks: bool = False  # blocks end by indentation (Python)
    extra: dict = field(default_factory=dict)

    @property
    def grammar(self) -> Language:
        return _load(self.module, self.function)

    def parser(self) -> Parser:
        return Parser(self.grammar)

    def query_source(self, kind: str) -> str | None:
        path = QUERY_DIR / self.name / f"{kind}.scm"
        return path.read_text(encoding="utf-8") if path.exists() else None


@cache
def _load(module: str, function: str) -> Language:
    return Language(getattr(importlib.import_module(module), function)())


LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec("python", "tree_sitter_python", language_ids=("python",),
                 extensions=(".py", ".pyi"), line_comment="#", block_openers=(":",),
                 indent_blocks=True),
    LanguageSpec("javascript", "tree_sitter_javascript",
                 language_ids=("javascript", "javascriptreact"),
                 extensions=(".js", ".mjs", ".cjs", ".jsx")),
    LanguageSpec("typescript", "tree_sitter_typescript", "language_typescript",
                 language_ids=("typescript",), extensions=(".ts", ".mts", ".cts")),
    LanguageSpec("tsx", "tree_sitter_typescript", "language_tsx",
                 language_ids=("typescriptreact",), extensions=(".tsx",)),
    LanguageSpec("go", "tree_sitter_go", language_ids=("go",), extensions=(".go",)),
    LanguageSpec("rust", "tree_sitter_rust", language_ids=("rust",), extensions=(".rs",)),
    LanguageSpec("java", "tree_sitter_java", language_ids=("java",), extensions=(".java",)),
    LanguageSpec("c", "tree_sitter_c", language_ids=("c",), extensions=(".c", ".h")),
    LanguageSpec("cpp", "tree_sitter_cpp", language_ids=("cpp", "cuda-cpp"),
                 extensions=(".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".ipp")),
)

_BY_ID = {lid: spec for spec in LANGUAGES for lid in spec.language_ids}
_BY_EXT = {ext: spec for spec in LANGUAGES for ext in spec.extensions}


def language_for(language_id: str = "", path: str = "") -> LanguageSpec | None:
    """The spec for an LSP languageId, falling back to the file extension."""
    if language_id in _BY_ID:
        return _BY_ID[language_id]
    suffix = Path(path).suffix.lower()
    return _BY_EXT.get(suffix)
