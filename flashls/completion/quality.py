"""One call for the completion pipeline: clean the model's text, then parse-validate it."""

from __future__ import annotations

from flashls.context.syntax import ParsedDocument

from .multiline import Shape
from .postprocess import Cleaned, clean
from .validate import shorten_until_valid


def suggest(raw: str, pdoc: ParsedDocument, offset: int, shape: Shape) -> Cleaned | None:
    """`clean`, and for multi-line shapes `shorten_until_valid`; same signature as `clean`."""
    cleaned = clean(raw, pdoc, offset, shape)
    if cleaned is None or not shape.multiline:
        return cleaned
    return shorten_until_valid(pdoc, offset, cleaned)
