"""Which tree-sitter grammar serves which document, loaded lazily from official wheels.

Per-language knowledge (comment syntax, block openers, signature and import queries)
is data here and in `queries/<name>/*.scm`, never conditionals spread over the code.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

from tree_sitter import Language, Parser

QUERY_DIR = Path(__file__).parent / "queries"


@dataclass(frozen=True)
class LanguageSpec:
    name: str  # our name, also the queries/ folder unless `queries` names another
    module: str  # the grammar wheel's module
    function: str = "language"  # its entry point
    language_ids: tuple[str, ...] = ()  # LSP languageId values
    extensions: tuple[str, ...] = ()
    line_comment: str = "//"
    block_openers: tuple[str, ...] = ("{",)  # a line ending in one opens a block
    indent_blocks: bool = False  # blocks end by indentation (Python)
    # suggestion post-processing (flashls/completion): string delimiters, longest first
    quotes: tuple[str, ...] = ('"', "'")
    block_comment: tuple[str, str] | None = ("/*", "*/")
    continuation_keywords: tuple[str, ...] = ("case", "default")  # at block indent, same block
    tab_indent: bool = False  # the language's convention when the file shows none (gofmt)
    top_level_stops: tuple[str, ...] = ()  # a line starting so leaves any block
    # context assembly (flashls/context): how imports resolve to files (imports.py),
    # line prefixes of attributes attached to the definition below (Rust `#[...]`),
    # and whether a body's first string statement is its docstring
    resolver: str = ""
    attribute_prefixes: tuple[str, ...] = ()
    body_docstrings: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def grammar(self) -> Language:
        return _load(self.module, self.function)

    def parser(self) -> Parser:
        return Parser(self.grammar)

    def query_source(self, kind: str) -> str | None:
        path = QUERY_DIR / (self.extra.get("queries") or self.name) / f"{kind}.scm"
        return path.read_text(encoding="utf-8") if path.exists() else None


@cache
def _load(module: str, function: str) -> Language:
    return Language(getattr(importlib.import_module(module), function)())


LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec("python", "tree_sitter_python", language_ids=("python",),
                 extensions=(".py", ".pyi"), line_comment="#", block_openers=(":",),
                 indent_blocks=True, quotes=('"""', "'''", '"', "'"), block_comment=None,
                 continuation_keywords=("elif", "else", "except", "finally"),
                 top_level_stops=("def ", "class ", "async def ", "@", "if __name__"),
                 resolver="python", body_docstrings=True),
    LanguageSpec("javascript", "tree_sitter_javascript",
                 language_ids=("javascript", "javascriptreact"),
                 extensions=(".js", ".mjs", ".cjs", ".jsx"), quotes=('"', "'", "`"),
                 top_level_stops=("function ", "class ", "export ", "import "), resolver="js"),
    LanguageSpec("typescript", "tree_sitter_typescript", "language_typescript",
                 language_ids=("typescript",), extensions=(".ts", ".mts", ".cts"),
                 quotes=('"', "'", "`"),
                 top_level_stops=("function ", "class ", "export ", "import ", "interface "),
                 resolver="js"),
    LanguageSpec("tsx", "tree_sitter_typescript", "language_tsx",
                 language_ids=("typescriptreact",), extensions=(".tsx",),
                 extra={"queries": "typescript"},  # TSX's grammar extends TypeScript's
                 quotes=('"', "'", "`"),
                 top_level_stops=("function ", "class ", "export ", "import ", "interface "),
                 resolver="js"),
    LanguageSpec("go", "tree_sitter_go", language_ids=("go",), extensions=(".go",),
                 quotes=('"', "'", "`"), top_level_stops=("func ", "type ", "import "),
                 tab_indent=True, resolver="go"),
    LanguageSpec("rust", "tree_sitter_rust", language_ids=("rust",), extensions=(".rs",),
                 quotes=('"',),  # ' is also a lifetime
                 top_level_stops=("fn ", "pub ", "impl ", "struct ", "enum ", "mod ", "use "),
                 resolver="rust", attribute_prefixes=("#[",)),
    LanguageSpec("java", "tree_sitter_java", language_ids=("java",), extensions=(".java",),
                 resolver="java"),
    LanguageSpec("c", "tree_sitter_c", language_ids=("c",), extensions=(".c",),
                 top_level_stops=("#include", "#define"), resolver="c"),
    LanguageSpec("cpp", "tree_sitter_cpp", language_ids=("cpp", "cuda-cpp"),
                 # `.h` is C++'s as in VS Code (C++ headers use it as often as `.hpp`, and
                 # tree-sitter-cpp parses C headers); `.inl` / `.tpp`: template bodies
                 extensions=(".cc", ".cpp", ".cxx", ".c++", ".h", ".hpp", ".hh", ".hxx",
                             ".h++", ".ipp", ".inl", ".tpp", ".txx"),
                 top_level_stops=("#include", "#define", "namespace ", "template"),
                 continuation_keywords=("case", "default", "public", "private", "protected"),
                 resolver="c"),
)

_BY_ID = {lid: spec for spec in LANGUAGES for lid in spec.language_ids}
_BY_EXT = {ext: spec for spec in LANGUAGES for ext in spec.extensions}


def language_for(language_id: str = "", path: str = "") -> LanguageSpec | None:
    """The spec for an LSP languageId, falling back to the file extension."""
    if language_id in _BY_ID:
        return _BY_ID[language_id]
    return _by_path(path)


@lru_cache(maxsize=4096)
def _by_path(path: str) -> LanguageSpec | None:
    return _BY_EXT.get(Path(path).suffix.lower())
