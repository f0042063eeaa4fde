"""Golden suggestion cases: loader and the "nothing duplicated after accepting" checks.

Format: see fixtures/golden/README.md. `load_golden_cases()` is also used to run the
cases through the whole server pipeline against the fake model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flashls.completion.scan import Lexicon, scan
from flashls.context.document import Document, Encoding
from flashls.context.languages import language_for
from flashls.context.syntax import ParsedDocument

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "golden"
CURSOR = "█"
TAB = "⇥"
END = "¶"
NONE = "<none>"

# fixture folder -> (LSP languageId, file extension)
LANGUAGES = {
    "python": ("python", ".py"),
    "javascript": ("javascript", ".js"),
    "typescript": ("typescript", ".ts"),
    "go": ("go", ".go"),
    "rust": ("rust", ".rs"),
    "java": ("java", ".java"),
    "c": ("c", ".c"),
    "cpp": ("cpp", ".cpp"),
    "plaintext": ("plaintext", ".txt"),
}
HEADERS = {"language", "multiline", "eol", "raw-eol", "expect-shape", "tags", "max-tokens",
           "allow-errors"}
SECTIONS = {"document", "raw", "expected", "replaces"}


class GoldenFormatError(ValueError):
    pass


@dataclass(frozen=True)
class GoldenCase:
    name: str  # <language>/<file stem>
    path: Path
    description: str
    language: str  # fixture folder name
    language_id: str
    uri: str
    setting: str  # completion.multiline
    max_tokens: int
    document: str  # without the cursor marker
    offset: int  # cursor, a str offset into `document`
    raw: str  # what the model answered
    expected: str | None  # text inserted at the cursor; None: no suggestion
    replaces: str  # document text after the cursor the suggestion replaces
    expect_multiline: bool | None
    tags: tuple[str, ...]
    allow_errors: bool

    @property
    def replace_end(self) -> int:
        return self.offset + len(self.replaces)

    def position(self, encoding: Encoding = "utf-16") -> tuple[int, int]:
        """The cursor as an LSP (line, character)."""
        return self.doc(encoding).position_at(self.offset)

    def doc(self, encoding: Encoding = "utf-16") -> Document:
        return Document(self.uri, self.document, self.language_id, 1, encoding)

    def pdoc(self) -> ParsedDocument:
        return ParsedDocument.open(self.doc())

    def accepted(self) -> str:
        """The document after the expected suggestion is accepted."""
        if self.expected is None:
            return self.document
        return self.document[:self.offset] + self.expected + self.document[self.replace_end:]


def _split(text: str, path: Path) -> tuple[str, dict[str, str], dict[str, str]]:
    description: list[str] = []
    headers: dict[str, str] = {}
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.split("\n"):
        if line.startswith("--- "):
            name = line[4:].strip()
            if name not in SECTIONS or name in sections:
                raise GoldenFormatError(f"{path}: unknown or repeated section {name!r}")
            current = sections[name] = []
        elif current is not None:
            current.append(line)
        elif line.startswith("#"):
            description.append(line.lstrip("# ").rstrip())
        elif ":" in line:
            key, value = line.split(":", 1)
            if key.strip() not in HEADERS:
                raise GoldenFormatError(f"{path}: unknown header {key.strip()!r}")
            headers[key.strip()] = value.strip()
        elif line.strip():
            raise GoldenFormatError(f"{path}: unexpected line before sections: {line!r}")
    bodies = {}
    for name, lines in sections.items():
        body = "\n".join(lines).rstrip("\n")  # blank lines between sections are layout
        if body.endswith(END):
            body = body[: -len(END)]  # explicit end: keeps trailing newlines / spaces
        bodies[name] = body.replace(TAB, "\t")
    return " ".join(description), headers, bodies


def parse_case(path: Path, language: str) -> GoldenCase:
    description, headers, body = _split(path.read_text(encoding="utf-8"), path)
    for required in ("document", "raw", "expected"):
        if required not in body:
            raise GoldenFormatError(f"{path}: missing section {required!r}")
    language = headers.get("language", language)
    if language not in LANGUAGES:
        raise GoldenFormatError(f"{path}: unknown language {language!r}")
    language_id, ext = LANGUAGES[language]
    document = body["document"].rstrip("\n") + "\n"
    if document.count(CURSOR) != 1:
        raise GoldenFormatError(f"{path}: the document needs exactly one {CURSOR}")
    raw, expected = body["raw"], body["expected"]
    crlf = headers.get("eol") == "crlf"
    if crlf:
        document = document.replace("\n", "\r\n")
        expected = expected.replace("\n", "\r\n")
        if headers.get("raw-eol", "crlf") == "crlf":
            raw = raw.replace("\n", "\r\n")
    offset = document.index(CURSOR)
    document = document.replace(CURSOR, "")
    replaces = body.get("replaces", "")
    if not document[offset:].startswith(replaces):
        raise GoldenFormatError(f"{path}: 'replaces' {replaces!r} does not follow the cursor")
    shape = headers.get("expect-shape")
    if shape not in (None, "single", "multi"):
        raise GoldenFormatError(f"{path}: expect-shape is single or multi")
    return GoldenCase(
        name=f"{path.parent.name}/{path.stem}", path=path, description=description,
        language=language, language_id=language_id, uri=f"file:///golden/{path.stem}{ext}",
        setting=headers.get("multiline", "auto"), max_tokens=int(headers.get("max-tokens", 64)),
        document=document, offset=offset, raw=raw,
        expected=None if expected.strip() == NONE else expected, replaces=replaces,
        expect_multiline=None if shape is None else shape == "multi",
        tags=tuple(t.strip() for t in headers.get("tags", "").split(",") if t.strip()),
        allow_errors=headers.get("allow-errors") == "true")


def load_golden_cases(root: Path = GOLDEN_DIR) -> list[GoldenCase]:
    cases = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        for path in sorted(folder.glob("*.txt")):
            cases.append(parse_case(path, folder.name))
    return cases


# -- "nothing duplicated" checks ------------------------------------------------------------
def duplicated_line_pairs(text: str) -> int:
    """Adjacent identical non-blank lines (same indentation)."""
    lines = [line.rstrip() for line in text.splitlines()]
    return sum(1 for a, b in zip(lines, lines[1:]) if a.strip() and a == b)


def bracket_trouble(text: str, language_id: str) -> int:
    """Closers that close nothing + brackets never closed + lines ending inside a quote."""
    lex = Lexicon.for_spec(language_for(language_id))
    states = scan(text, lex)
    final = states[-1]
    broken_lines = sum(1 for i, ch in enumerate(text) if ch == "\n" and states[i].quote
                       and len(states[i].quote) == 1 and states[i].quote != "`")
    return final.closed_outside + len(final.stack) + broken_lines


def duplication_problems(case: GoldenCase, after: str) -> list[str]:
    """What accepting made worse than the document before: duplicated lines or closers."""
    problems = []
    before = case.document
    if duplicated_line_pairs(after) > duplicated_line_pairs(before):
        problems.append("duplicated line")
    if bracket_trouble(after, case.language_id) > bracket_trouble(before, case.language_id):
        problems.append("duplicated or unbalanced closing characters")
    return problems
