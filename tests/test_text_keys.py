"""The suggestion cache's keys come from the document's pieces (`completion.text_keys`):
they must equal the digests of the whole texts before and after the cursor after any
edits, and a keystroke must hash the piece it edited, not the file."""

from __future__ import annotations

import random

import pytest

from flashls.completion import text_keys
from flashls.completion.cache import suffix_key, text_key
from flashls.completion.text_keys import KeyIndex, plain_keys
from flashls.context import document
from flashls.context.document import Document


@pytest.fixture
def small_pieces(monkeypatch):
    monkeypatch.setattr(document, "CHUNK_CHARS", 16)  # many pieces on a short text


def _random_edit(doc: Document, rng: random.Random) -> None:
    text = doc.text
    s = rng.randrange(len(text) + 1)
    e = min(len(text), s + rng.choice((0, 0, 1, 5, 40)))
    new = rng.choice(("", "x", "\n", "\n    ", "é€", "def f():\n    pass\n", "y" * 70))
    doc.apply_change(doc.position_at(s), doc.position_at(e), new)


def test_keys_equal_the_whole_texts_digests_after_random_edits(small_pieces):
    rng = random.Random(9)
    doc = Document("file:///a.py", "".join(f"line {i} é\n" for i in range(60)), "python")
    index = KeyIndex()
    for _ in range(300):
        if rng.random() < 0.7:
            _random_edit(doc, rng)
        if rng.random() < 0.05:
            doc.replace_all(doc.text[: len(doc.text) // 2])
        text = doc.text
        offset = rng.randrange(len(text) + 1)
        keys = index.keys(doc, offset)
        assert keys.before == text_key(text[:offset])
        assert keys.after == suffix_key(text[offset:])
        assert keys.before_state.hexdigest() == keys.before
        plain = plain_keys(text[:offset], text[offset:])
        assert (plain.before, plain.after) == (keys.before, keys.after)


def test_empty_document_and_its_ends(small_pieces):
    index = KeyIndex()
    doc = Document("file:///e.py", "", "python")
    keys = index.keys(doc, 0)
    assert (keys.before, keys.after) == (text_key(""), suffix_key(""))
    doc.apply_change((0, 0), (0, 0), "abc" * 20)
    for offset in (0, 60):
        keys = index.keys(doc, offset)
        assert (keys.before, keys.after) == (text_key(doc.text[:offset]),
                                             suffix_key(doc.text[offset:]))


def test_a_keystroke_hashes_the_edited_piece_only(small_pieces, monkeypatch):
    doc = Document("file:///b.py", "".join(f"value_{i} = {i}\n" for i in range(400)), "python")
    index = KeyIndex()
    middle = doc.offset_at(200, 5)
    index.keys(doc, middle)  # the first request hashes everything once
    hashed: list[int] = []
    real = text_keys._encoded
    monkeypatch.setattr(text_keys, "_encoded", lambda s: (hashed.append(len(s)), real(s))[1])
    for step in range(20):
        doc.apply_change((200, 5 + step), (200, 5 + step), "x")
        keys = index.keys(doc, doc.offset_at(200, 6 + step))
        assert keys.before == text_key(doc.text[:doc.offset_at(200, 6 + step)])
    # the edited piece (up to two pieces' worth) per keystroke, not the 6,000 characters
    assert max(hashed) <= 2 * document.CHUNK_CHARS + 1
    assert sum(hashed) <= 20 * 2 * (2 * document.CHUNK_CHARS + 1)


def test_documents_are_kept_by_uri_and_bounded():
    index = KeyIndex(kept=2)
    docs = [Document(f"file:///{i}.py", f"text {i}\n", "python") for i in range(3)]
    for doc in docs:
        index.keys(doc, 2)
    assert list(index._chains) == ["file:///1.py", "file:///2.py"]
    index.forget("file:///2.py")
    assert list(index._chains) == ["file:///1.py"]
