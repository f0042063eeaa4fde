"""Entry points for the completion pipeline: clean the model's text, then parse-validate it.

`suggest` has the same signature as `postprocess.clean` (a drop-in `Cleaner`);
`candidates` serves Invoked requests, which cycle through several distinct suggestions.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from flashls.context.syntax import ParsedDocument

from .cursor import cursor_context
from .multiline import Shape
from .postprocess import Cleaned, clean, finish, normalise_newlines
from .validate import shorten_until_valid


def suggest(raw: str, pdoc: ParsedDocument, offset: int, shape: Shape) -> Cleaned | None:
    """`clean`, and for multi-line shapes `shorten_until_valid`."""
    cleaned = clean(raw, pdoc, offset, shape)
    if cleaned is None or not shape.multiline:
        return cleaned
    return shorten_until_valid(pdoc, offset, cleaned)


def first_line_variant(pdoc: ParsedDocument, offset: int, cleaned: Cleaned) -> Cleaned | None:
    """A multi-line suggestion cut after its first non-blank line (re-balanced, validated):
    the short alternative an Invoked request offers next to the long one."""
    lines = normalise_newlines(cleaned.text).split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(filled) < 2:
        return None
    ctx = cursor_context(pdoc, offset)
    head = lines[filled[0]].rstrip()
    openers = ctx.spec.block_openers if ctx.spec else ("{",)
    if head.endswith(openers):
        return None  # its short form would be an empty block
    short = finish("\n".join(lines[: filled[0] + 1]), ctx)
    if short is None:
        return None
    return shorten_until_valid(pdoc, offset, short)


def distinct(pdoc: ParsedDocument, offset: int,
             items: Iterable[Cleaned | None]) -> list[Cleaned]:
    """Drop empty ones and any that would leave the same document as an earlier one."""
    text = pdoc.doc.text
    seen: set[str] = set()
    out: list[Cleaned] = []
    for item in items:
        if item is None:
            continue
        result = text[:offset] + item.text + text[item.replace_end:]
        if result not in seen:
            seen.add(result)
            out.append(item)
    return out


def candidates(raws: Sequence[str], pdoc: ParsedDocument, offset: int,
               shape: Shape) -> list[Cleaned]:
    """Every sample cleaned and validated, then (multi-line shape) the first one's short form;
    duplicates removed, model order kept."""
    long = [suggest(raw, pdoc, offset, shape) for raw in raws]
    short = [first_line_variant(pdoc, offset, long[0])] if shape.multiline and long and long[0] \
        else []
    return distinct(pdoc, offset, [*long, *short])
