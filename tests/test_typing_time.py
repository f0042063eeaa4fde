"""`benchmarks.typing_time` types a removed body back into both engines' documents:
they must end with the real file's text, and requests fall where the typist pauses."""

from __future__ import annotations

import random

from benchmarks.typing_time import typed_back
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument

ORIGINAL = "def f(x):\n    total = 0\n    for y in x:\n        total += y\n    return total\n\n\nprint(f([1]))\n"
BODY = "    total = 0\n    for y in x:\n        total += y\n    return total\n"


def _document(text: str) -> ParsedDocument:
    return ParsedDocument.open(Document("file:///w/m.py", text, "python", 1), "/w/m.py")


def test_typing_back_restores_the_file_in_every_document():
    start = ORIGINAL.index(BODY)
    blanked = ORIGINAL[:start] + ORIGINAL[start + len(BODY):]
    documents = (_document(blanked), _document(blanked))
    cursors = list(typed_back(BODY, start, documents, random.Random(7), 300.0))
    assert [d.doc.text for d in documents] == [ORIGINAL, ORIGINAL]
    assert cursors[-1] == start + len(BODY), "the last keystroke always asks"
    assert cursors == sorted(set(cursors))
    assert all(start < c <= start + len(BODY) for c in cursors)


def test_a_longer_pause_asks_less_often():
    start = ORIGINAL.index(BODY)
    blanked = ORIGINAL[:start] + ORIGINAL[start + len(BODY):]
    every = list(typed_back(BODY, start, (_document(blanked),), random.Random(7), 0.0))
    rare = list(typed_back(BODY, start, (_document(blanked),), random.Random(7), 300.0))
    assert len(every) == len(BODY), "no pause needed: a request after each keystroke"
    assert 0 < len(rare) < len(every)
