"""`part_layout.lay_out`: a prompt's stable parts keep the order and the text the last
prompt had, and what arrives later goes after all of them, so the bytes before it stay
as DeepSeek's prefix cache saw them."""

from __future__ import annotations

from dataclasses import dataclass

from flashls.context.part_layout import Layout, lay_out


@dataclass(frozen=True)
class Part:
    tier: str
    source: str
    text: str
    tokens: int


def part(tier: str, source: str, text: str) -> Part:
    return Part(tier, source, text, 2 + len(text.splitlines()))


def prompt(parts) -> str:
    return "".join(f"--- {p.tier} {p.source} ---\n{p.text}" for p in parts)


def replay(steps, room=100, strict=100):
    """Lay out each step's parts after the last; (outputs, last layout)."""
    last, out = Layout(), []
    for parts, broken in steps:
        laid, last = lay_out(parts, last, part, room, broken, strict)
        out.append(laid)
    return out, last


A = part("neighbors", "a.go", "func A()\n")
B = part("neighbors", "b.go", "func B()\n")
OUTLINE = part("outline", "main.go", "type T struct {\n\tfunc (t T) M() {\n}\n")
RECENT = part("recent", "x.go", "x := 1\n")


def test_no_history_leaves_the_parts_as_given():
    parts = [A, B, OUTLINE, RECENT]
    laid, layout = lay_out(parts, None, part, 100)
    assert laid == parts and layout == Layout()


def test_a_new_neighbor_file_goes_after_the_kept_outline():
    c = part("neighbors", "c.go", "func C()\n")
    (first, second, third), _ = replay([([A, OUTLINE, RECENT], False),
                                        ([A, c, OUTLINE, RECENT], False),
                                        ([A, c, OUTLINE], False)])
    assert second == [A, OUTLINE, c, RECENT]
    assert prompt(second).startswith(prompt(first[:2])), "the kept head is unchanged"
    assert third == [A, OUTLINE, c], "and the next prompt keeps that order"


def test_entries_added_to_the_outline_follow_the_kept_parts():
    grown = part("outline", "main.go", "const K = 1\n" + OUTLINE.text)
    (first, second), _ = replay([([A, OUTLINE], False), ([A, grown, B], False)])
    assert [(p.tier, p.text) for p in second] == [
        ("neighbors", A.text), ("outline", OUTLINE.text), ("neighbors", B.text),
        ("outline", "const K = 1\n")]


def test_a_broken_parse_keeps_the_outline_it_sent():
    """A brace still open moves the class's closing line (or loses the class) for a
    keystroke: while the parse has an error, the outline's last text is sent."""
    moved = part("outline", "main.go", "type T struct {\n\tfunc (t T) M() {\n\t}\n")
    (_, kept, clean), _ = replay([([A, OUTLINE], False), ([A, moved], True),
                                  ([A, moved], False)])
    assert kept == [A, OUTLINE]
    assert clean == [A, moved], "a clean parse: the outline follows it"


def test_a_broken_parse_puts_back_an_outline_it_lost_whole():
    (_, kept), _ = replay([([A, OUTLINE, RECENT], False), ([A, RECENT], True)])
    assert kept == [A, OUTLINE, RECENT]


def test_the_kept_outline_must_fit():
    small = part("outline", "main.go", "type T struct {\n")
    last = lay_out([A, OUTLINE], Layout(), part, 100)[1]
    assert lay_out([A, small], last, part, 100, True, strict_room=1)[0] == [A, small], \
        "the kept text costs 2 tokens more than the new one: 1 left is not enough"
    assert lay_out([A, small], last, part, 100, True, strict_room=2)[0] == [A, OUTLINE]
    lost = lay_out([A], last, part, 100, True, strict_room=3)[0]
    assert lost == [A], "a lost outline that does not fit stays out (no empty part)"


def test_the_layout_is_a_function_of_the_history():
    """The same parts in the same order give the same prompts, whatever came before
    the history started (nothing but `Layout` is remembered)."""
    c = part("neighbors", "c.go", "func C()\n")
    grown = part("outline", "main.go", OUTLINE.text + "func F()\n")
    steps = [([A, B, OUTLINE], False), ([A, c, OUTLINE], False), ([A, c, grown], True),
             ([c, grown, RECENT], False), ([A, B, c, grown], False)]
    once, last_once = replay(steps)
    twice, last_twice = replay(steps)
    assert once == twice and last_once == last_twice
