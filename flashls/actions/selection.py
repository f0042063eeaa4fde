"""The selected text as the model sees it, and the model's answer fitted back in place.

The model gets the selection with its common indentation removed (so a method deep in
a class reads like top-level code and the answer's indentation is predictable); the
answer is re-indented to the document's indentation, the first line continues where
the selection starts, and the selection's trailing line break (plus any indentation
after it) and line-ending style are kept. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TRAILER = re.compile(r"\n[ \t]*\Z")
_LEADING_BLANK = re.compile(r"\A(?:[ \t]*\n)+")


def _normalize(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _leading_ws(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def common_indent(lines: list[str]) -> str:
    """The longest whitespace prefix shared by every non-blank line."""
    indents = [_leading_ws(line) for line in lines if line.strip()]
    if not indents:
        return ""
    prefix = indents[0]
    for ind in indents[1:]:
        while not ind.startswith(prefix):
            prefix = prefix[:-1]
    return prefix


def _dedent(line: str, indent: str) -> str:
    if not line.strip():
        return ""
    return line[len(indent):] if line.startswith(indent) else line.lstrip(" \t")


@dataclass(frozen=True)
class Selection:
    """A selection in one document; `body` is what the model is shown."""

    original: str  # exactly the selected text, as in the document
    body: str  # "\n" line breaks, common indentation removed, trailer removed
    indent: str  # indentation removed from `body` (re-applied to the answer)
    lead: str  # text of the first line before the selection
    inline: bool  # the selection starts after code on its line
    head: str  # blank lines the selection starts with, kept verbatim
    trailer: str  # line break (+ indentation) the selection ends with, kept verbatim
    newline: str  # the document's line break: "\n", "\r\n" or "\r"

    @property
    def first_line_lead(self) -> str:
        return "" if self.head else self.lead


def detect_newline(text: str) -> str:
    match = re.search(r"\r\n|\r|\n", text)
    return match.group() if match else "\n"


def prepare(text: str, start: int, end: int) -> Selection:
    """Describe `text[start:end]` for a rewrite."""
    original = text[start:end]
    newline = detect_newline(text)
    line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    lead = _normalize(text[line_start:start])
    inline = bool(lead.strip())
    sel = _normalize(original)
    head = ""
    if not inline:
        match = _LEADING_BLANK.match(sel)
        if match and match.end() < len(sel):
            head, sel = match.group(), sel[match.end():]
    trailer_match = _TRAILER.search(sel)
    trailer = trailer_match.group() if trailer_match and trailer_match.start() > 0 else ""
    core = sel[: len(sel) - len(trailer)] if trailer else sel
    lines = core.split("\n")
    first_lead = "" if head else lead
    if inline:
        line_indent = _leading_ws(lead)
        indent = common_indent([line_indent + "x"] + lines[1:])
        body_lines = [lines[0]] + [_dedent(line, indent) for line in lines[1:]]
    else:
        virtual = [first_lead + lines[0]] + lines[1:]
        indent = common_indent(virtual)
        body_lines = [_dedent(line, indent) for line in virtual]
    return Selection(original, "\n".join(body_lines).rstrip(), indent, lead, inline,
                     head, trailer, newline)


def fit(answer: str, sel: Selection) -> str:
    """The model's code answer as the exact replacement text for the selection."""
    lines = _normalize(answer).strip("\n").rstrip().split("\n")
    if not sel.inline:
        rest = common_indent(lines)
        lines = [_dedent(line, rest) for line in lines]
    out: list[str] = []
    for index, line in enumerate(lines):
        if index == 0:
            if sel.inline:
                out.append(line.lstrip(" \t"))
                continue
            full = sel.indent + line if line.strip() else ""
            lead = sel.first_line_lead
            out.append(full[len(lead):] if full.startswith(lead) else line.lstrip(" \t"))
            continue
        out.append(sel.indent + line if line.strip() else "")
    text = sel.head + "\n".join(out) + sel.trailer
    return text.replace("\n", sel.newline) if sel.newline != "\n" else text


def same_code(a: str, b: str) -> bool:
    """Equal up to line endings and trailing whitespace (the model changed nothing)."""
    def norm(s: str) -> list[str]:
        return [line.rstrip() for line in _normalize(s).strip().split("\n")]
    return norm(a) == norm(b)
