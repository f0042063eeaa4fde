"""When a window at the top of the file outgrows what the budget hold keeps, the
suffix gives way before the stable parts do (`suffix_hold`, `rank_memo.held_share`)."""

from __future__ import annotations

from pathlib import Path

from flashls.context import suffix_hold
from flashls.context.budget import window_cap
from flashls.context.tokens import estimate_tokens
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE
from tests.typing_replay import stable_head, type_at_top

BUDGET = 2048


def _fixture(tmp_path: Path):
    """A function at the top of the file that uses many helpers of one module (the
    stable tier fills its budget) and runs on past the suffix budget below the cursor."""
    helpers = "".join(f"def helper_{i}(first_argument, second_argument, third_one):\n"
                      f"    return first_argument + {i}\n\n\n" for i in range(60))
    (tmp_path / "helpers.py").write_text(helpers)
    uses = "".join(f"    value = helpers.helper_{i}(value, {i}, {i})\n" for i in range(0, 60, 2))
    rest = "".join(f"    value = value * {i} + {i}\n" for i in range(40))
    head = "import helpers\n\n\ndef work(value):\n" + uses
    tail = "".join(f"\n\ndef other_{i}(a, b):\n    return a * b + {i}\n" for i in range(40))
    text = head + rest + "    return value\n" + tail
    path = tmp_path / "main.py"
    path.write_text(text)
    return Workspace([str(tmp_path)], DEFAULT_EXCLUDE), path, text, len(head)


def _replay(tmp_path: Path):
    ws, path, text, at = _fixture(tmp_path)
    typed = "".join(f"    value = value + other_{i}(value, {i})\n" for i in range(16))
    ctxs = type_at_top(ws, path, text, at, typed, BUDGET)
    return [stable_head(c) for c in ctxs], [c.suffix for c in ctxs], [c.tokens for c in ctxs]


def _first_change(heads) -> int:
    return next((k for k in range(1, len(heads)) if heads[k] != heads[0]), len(heads))


def test_the_suffix_gives_way_before_the_stable_parts(tmp_path, monkeypatch):
    """Typing into a function at the top of the file: the window grows past what the
    hold keeps. Without the suffix giving way, kept entries leave the prompt at that
    keystroke; with it, the stable parts stay as they were until the suffix is at
    its floor (the probe's selection, which left them out, is not remembered: a
    remembered one would change the next prompt all the same)."""
    heads, suffixes, totals = _replay(tmp_path)
    monkeypatch.setattr("flashls.context.assemble.suffix_cap_for", lambda *a: None)
    unheld, full, _ = _replay(tmp_path)
    step = _first_change(unheld)
    assert step < len(unheld), "the fixture outgrows the hold"
    assert _first_change(heads) > step, "the suffix gave way first"
    assert all(h == heads[0] for h in heads[:step + 1])
    assert sum(a != b for a, b in zip(heads, heads[1:])) <= \
        sum(a != b for a, b in zip(unheld, unheld[1:]))
    assert max(totals) <= BUDGET
    shortened = [k for k, (s, f) in enumerate(zip(suffixes, full)) if s != f]
    assert shortened, "the suffix was shortened"
    floor = window_cap(BUDGET) // suffix_hold.FLOOR_DIVISOR
    for k in shortened:
        assert full[k].startswith(suffixes[k]), "a shorter suffix is the same text, cut"
        assert estimate_tokens(suffixes[k]) >= floor
