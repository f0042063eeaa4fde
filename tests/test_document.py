"""Document sync: positions in every encoding, line breaks, lenient and strict positions."""

import pytest

from flashls.context.document import Document, PositionError, units


def doc(text: str, encoding: str = "utf-16") -> Document:
    return Document("file:///t.py", text, "python", 1, encoding)


@pytest.mark.parametrize("encoding,column", [("utf-16", 4), ("utf-8", 8), ("utf-32", 3)])
def test_astral_and_cjk_characters_count_in_the_negotiated_encoding(encoding, column):
    d = doc("a😀中b\n", encoding)  # 😀: 2 UTF-16 units, 4 bytes; 中: 1 unit, 3 bytes
    assert d.offset_at(0, column) == 3  # just before "b"
    assert d.position_at(3) == (0, column)


def test_crlf_and_cr_split_lines_but_other_unicode_breaks_do_not():
    d = doc("one\r\ntwo\rthree\u2028still three\x0cx\nfour")
    assert d.line_count == 4
    assert d.line_text(1) == "two"
    assert d.line_text(2) == "three\u2028still three\x0cx"
    assert d.offset_at(3, 0) == d.text.index("four")


def test_positions_past_the_end_clamp_unless_strict():
    d = doc("ab\ncd\n")
    assert d.offset_at(0, 99) == 2
    assert d.offset_at(99, 0) == len(d.text)
    with pytest.raises(PositionError):
        d.offset_at(0, 99, strict=True)
    with pytest.raises(PositionError):
        d.offset_at(-1, 0)


def test_position_inside_a_surrogate_pair_snaps_to_the_character_start():
    d = doc("x😀y")
    assert d.offset_at(0, 2) == 1  # unit 2 is the low surrogate of 😀
    with pytest.raises(PositionError):
        d.offset_at(0, 2, strict=True)


def test_apply_change_reports_tree_sitter_byte_edits():
    d = doc("é = 1\nx = 2\n")
    edit = d.apply_change((1, 0), (1, 1), "ü")
    assert d.text == "é = 1\nü = 2\n"
    assert (edit.start_byte, edit.old_end_byte, edit.new_end_byte) == (7, 8, 9)
    assert edit.start_point == (1, 0) and edit.new_end_point == (1, 2)


def test_change_with_end_before_start_is_rejected_and_changes_nothing():
    d = doc("hello\n")
    with pytest.raises(PositionError):
        d.apply_change((0, 4), (0, 1), "x")
    assert d.text == "hello\n"


def test_units():
    assert units("😀", "utf-16") == 2 and units("😀", "utf-8") == 4 and units("😀", "utf-32") == 1


def test_incremental_line_index_matches_a_full_scan_under_random_edits():
    import random

    from flashls.context.document import line_starts
    rng = random.Random(1)
    alphabet = ["a", "\n", "\r", "\r\n", "é", "😀", " "]
    for _ in range(1500):
        d = doc("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))), "utf-32")
        for _ in range(5):
            s = rng.randint(0, len(d.text))
            e = rng.randint(s, len(d.text))
            new = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4)))
            ps, pe = d.position_at(s), d.position_at(e)  # (inside "\r\n" snaps back)
            expected = d.text[:d.offset_at(*ps)] + new + d.text[d.offset_at(*pe):]
            d.apply_change(ps, pe, new)
            assert d.text == expected
            assert d.starts == line_starts(d.text)


def test_lazily_shifted_line_starts_and_byte_marks_match_a_fresh_document(monkeypatch):
    """Edits leave the line starts after them shifted lazily and keep `byte_at`'s
    checkpoints: positions, points and bytes read between edits (without ever
    materializing the list) equal those of a document opened on the same text."""
    import random

    from flashls.context import document
    from flashls.context.document import Document, line_starts
    monkeypatch.setattr(document, "MARK_CHARS", 8)
    rng = random.Random(7)
    alphabet = ["a", "\n", "\n", "é", "😀", " ", "bc", "\r\n"]
    for _ in range(300):
        d = Document("file:///x", "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80))))
        d.source_bytes
        for _ in range(12):
            s = rng.randint(0, len(d.text))
            e = min(len(d.text), s + rng.choice([0, 0, 1, 3, 20]))
            new = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4)))
            ps, pe = d.position_at(s), d.position_at(e)
            at = d.offset_at(*ps)
            edit = d.apply_change(ps, pe, new)
            fresh = Document("file:///x", d.text)
            assert d.source_bytes == fresh.source_bytes
            assert edit.new_end_byte == fresh.byte_at(at + len(new))
            for off in {0, len(d.text), *(rng.randint(0, len(d.text)) for _ in range(4))}:
                assert d.position_at(off) == fresh.position_at(off)
                assert d.point_at(off) == fresh.point_at(off)
                assert d.byte_at(off) == len(d.text[:off].encode("utf-8", "surrogatepass"))
            line = rng.randint(0, d.line_count - 1)
            assert d.line_count == fresh.line_count
            assert d.line_text(line) == fresh.line_text(line)
            assert d.offset_at(line, 2) == fresh.offset_at(line, 2)
        assert d.starts == line_starts(d.text)


def test_edits_through_text_pieces_equal_the_plain_splice(monkeypatch):
    """An edit rebuilds the text from pieces (`CHUNK_CHARS`): edits within a piece,
    across several, at both ends, pastes longer than two pieces and deletions that
    empty some give exactly the text of the plain splice, and the pieces stay the
    text's (a copy taken before an edit keeps its own)."""
    import random

    from flashls.context import document
    from flashls.context.document import Document
    monkeypatch.setattr(document, "CHUNK_CHARS", 4)
    rng = random.Random(11)
    alphabet = ["a", "\n", "é", "😀", " ", "bc", "\r\n"]
    for _ in range(400):
        d = Document("file:///x", "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))),
                     encoding="utf-32")
        for _ in range(10):
            s = rng.randint(0, len(d.text))
            e = min(len(d.text), s + rng.choice([0, 0, 1, 3, 9, 30]))
            new = "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 2, 12])))
            ps, pe = d.position_at(s), d.position_at(e)
            a, b = d.offset_at(*ps), d.offset_at(*pe)
            expected = d.text[:a] + new + d.text[b:]
            before = d.copy()
            kept = before.text
            d.apply_change(ps, pe, new)
            assert d.text == expected == "".join(d._chunks)
            assert list(d._chunk_starts) == [sum(map(len, d._chunks[:k]))
                                             for k in range(len(d._chunks))]
            assert all(d._chunks) and before.text == kept
