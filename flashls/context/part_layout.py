"""The order of a prompt's context parts while typing: what was sent stays in place.

DeepSeek's prefix cache hits only up to the first byte that differs from an earlier
request, and everything after it (the cursor window included, about 1,000 tokens)
misses. So a document's consecutive prompts lay out the parts the last prompt had
(neighbor signatures and the same-file outline) in that prompt's order and with the
text it sent, and put whatever arrives later after all of them:

* a neighbor file whose first entry is added while typing (a name just typed) goes
  after the kept parts, the outline included (it used to go before the outline);
* entries added to a part already sent follow as a second part of the same file
  (`part_addenda`), when the extra label fits;
* while the syntax tree has an error and the selection is carried over from the last
  anchor (`rank_memo.select_stable`), the outline keeps the text it was last sent
  with: a half-typed line (`[` or a brace still open, `enum ` alone on a line) lets
  the parser lose a class or move a closing brace for one keystroke, and the outline
  rendered from that parse differs from the file outside the window, which did not
  change. The outline follows the parse again once it is clean (or when the kept text
  does not fit the budget any more).

Recent code stays last. With no earlier prompt the parts are as given (a fresh
document, and so every task of `benchmarks.real_context`, is unaffected). Pure: the
memory is passed in and returned (`rank_memo.stable_order` keeps it per document), so
the layout is a function of the selection history alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol, Sequence

from .part_addenda import added_lines

STABLE_TIERS = ("neighbors", "outline")


class PartLike(Protocol):
    tier: str
    source: str
    text: str
    tokens: int


MakePart = Callable[[str, str, str], PartLike]  # (tier, source, text) -> part


@dataclass(frozen=True)
class Layout:
    """What a document's last prompt sent: its stable parts' keys (tier, source, n: 0
    the part, 1 its addendum) in prompt order, and the text kept in place per
    (tier, source)."""

    order: tuple = ()
    sent: dict = field(default_factory=dict)


def lay_out(parts: Sequence[PartLike], last: Layout | None, make_part: MakePart | None,
            room: int, keep_outline: bool = False, strict_room: int | None = None
            ) -> tuple[list, Layout]:
    """`parts` (neighbors by path, the outline, recent code) laid out after `last`
    (see the module docstring), and the layout to remember. `room`: tokens the
    addenda's extra labels may take; `strict_room`: what keeping an outline's last
    text may add (within the estimate's margin; `room` when None). `keep_outline`:
    the parse has an error and the selection was carried over."""
    if last is None:
        return list(parts), Layout()
    if strict_room is None:
        strict_room = room
    place = {k: i for i, k in enumerate(last.order)}
    keyed: list[tuple[tuple, PartLike]] = []
    sent: dict = {}
    stable = [p for p in parts if p.tier in STABLE_TIERS]
    if keep_outline and make_part is not None and not any(p.tier == "outline" for p in stable):
        stable += _lost_outline(last, place)
    for p in stable:
        base = last.sent.get((p.tier, p.source))
        if p.tier == "outline" and keep_outline and make_part is not None and base \
                and base != p.text:
            kept = make_part(p.tier, p.source, base)
            if kept.tokens - p.tokens <= min(room, strict_room):
                room -= max(0, kept.tokens - p.tokens)
                strict_room -= max(0, kept.tokens - p.tokens)
                keyed.append(((p.tier, p.source, 0), kept))
                sent[(p.tier, p.source)] = base
                continue
        if isinstance(p, _Placeholder):
            continue  # the lost outline's last text does not fit: no outline
        extra = added_lines(base, p.text) if make_part is not None else None
        if extra:
            head, tail = make_part(p.tier, p.source, base), make_part(p.tier, p.source, extra)
            cost = head.tokens + tail.tokens - p.tokens
            if cost <= room:
                room -= cost
                strict_room -= cost
                keyed += [((p.tier, p.source, 0), head), ((p.tier, p.source, 1), tail)]
                sent[(p.tier, p.source)] = base
                continue
        keyed.append(((p.tier, p.source, 0), p))
        sent[(p.tier, p.source)] = p.text
    known = sorted((kp for kp in keyed if kp[0] in place), key=lambda kp: place[kp[0]])
    fresh = [kp for kp in keyed if kp[0] not in place]
    ordered = known + sorted(fresh, key=lambda kp: kp[0][2])  # new parts, then additions
    out = [p for _, p in ordered] + [p for p in parts if p.tier not in STABLE_TIERS]
    return out, Layout(tuple(k for k, _ in ordered), sent)


class _Placeholder:
    """An outline part the current parse lost entirely (its text is the last one sent,
    put back by `lay_out` when it fits)."""

    def __init__(self, source: str):
        self.tier, self.source, self.text, self.tokens = "outline", source, "", 0


def _lost_outline(last: Layout, place: dict) -> list:
    return [_Placeholder(source) for (tier, source, n) in place
            if tier == "outline" and n == 0 and last.sent.get((tier, source))]
