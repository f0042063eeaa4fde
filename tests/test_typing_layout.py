"""Typing a body with a bracket or brace still open: the prompt's head (everything
before the window) stays byte-identical while the parse has an error, entries come in
only for names typed, and the layout depends on the history alone (a fresh process
typing the same keystrokes sends the same prompts)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from flashls.context import assemble, ranking, rank_memo
from flashls.context.assemble import Workspace, assemble_context
from flashls.context.document import Document
from flashls.context.local_parse import has_error
from flashls.context.syntax import ParsedDocument
from flashls.settings import DEFAULT_EXCLUDE

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "workspaces"
METHODS = "".join(f"""
    method{k}(input: number): number {{
        const values = [input, {k}];
        return values[0] + this.total;
    }}
""" for k in range(24))
BODY = """        const picked = [this.total, input];
        if (picked.length > 1) {
            this.total = picked[0] + input;
        }
        return this.total;
"""
TEXT = f"""import {{ Task }} from "../models/task";

export class Ledger {{
    total = 0;
{METHODS}
    target(input: number): number {{
{BODY}    }}
{METHODS.replace('method', 'after')}
}}
"""


def type_body(root: Path) -> list[tuple[str, bool]]:
    """(the prompt's head, whether the parse has an error) after each keystroke of
    BODY typed back into `target` (a class of 49 methods, 600-token budget)."""
    shutil.copytree(FIXTURES / "ts_tasks", root, dirs_exist_ok=True)
    path = root / "src" / "ledger.ts"
    path.write_text(TEXT)
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    start = TEXT.index(BODY)
    ranking.forget()
    pdoc = ParsedDocument.open(Document(path.as_uri(), TEXT[:start] + TEXT[start + len(BODY):],
                                        "typescript", 1), str(path))
    cursor, out = start, []
    for ch in BODY:
        line, col = pdoc.doc.position_at(cursor)
        pdoc.apply_change((line, col), (line, col), ch)
        cursor += 1
        ctx = assemble_context(pdoc, cursor, budget_tokens=600, workspace=ws)
        head = "".join(f"--- {p.tier} {p.source} ---\n{p.text}" for p in ctx.parts)
        out.append((head, has_error(pdoc)))
    ranking.forget()
    return out


def _changes_while_broken(steps) -> int:
    return sum(1 for (a, _), (b, broken) in zip(steps, steps[1:]) if a != b and broken)


def test_the_head_stays_while_the_parse_has_an_error(tmp_path, monkeypatch):
    steps = type_body(tmp_path / "a")
    assert sum(broken for _, broken in steps) > len(steps) // 2, "the scenario breaks the parse"
    assert _changes_while_broken(steps) == 0
    # without the rule (the parse taken as clean), the `[` just typed loses the methods
    # after `target` and the outline changes while the error lasts
    monkeypatch.setattr(assemble, "has_error", lambda pdoc: False)
    assert _changes_while_broken(type_body(tmp_path / "b")) > 0


def test_the_same_keystrokes_give_the_same_prompts_in_a_fresh_process(tmp_path):
    """The layout is a function of the selection history: two processes with other
    hash seeds typing the same keystrokes send byte-identical heads, as this one does."""
    here = hashlib.sha256("".join(h for h, _ in type_body(tmp_path / "here")).encode()).hexdigest()
    script = ("import hashlib, sys; from pathlib import Path; "
              "from tests.test_typing_layout import type_body; "
              "print(hashlib.sha256(''.join(h for h, _ in type_body(Path(sys.argv[1])))"
              ".encode()).hexdigest())")
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        got = subprocess.run([sys.executable, "-c", script, str(tmp_path / f"p{seed}")],
                             cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        assert got.stdout.strip() == here, got.stderr[-2000:]


def test_typed_names_are_the_names_on_rows_that_changed():
    """An anchor whose end the parser moved over rows that were there before (a raw
    string opened) gains their names; only the rows typed since count, and the row
    typed at its end last time (its names were not read then)."""
    old = [f"row{i} = keep{i}" for i in range(30)]
    new = old[:8] + ["typed = helper_typed(value)"] + old[8:]
    kept = rank_memo.Kept(frozenset(), frozenset(), 5, 10, {}, 0, (), old, 7)
    grown = rank_memo.Anchor(("function", 5, ("row5 = keep5",)), 5, 20)
    ids = rank_memo.anchor_identifiers(new, grown, -1)
    got = rank_memo.typed_names(ids - rank_memo.anchor_identifiers(old, rank_memo.Anchor(
        grown.key, 5, 10), -1), kept, grown, new, -1)
    assert got == {"typed", "helper_typed", "value"}, "rows 11-20 were there before"
    kept_typing = rank_memo.Kept(frozenset(), frozenset(), 5, 10, {}, 0, (), old, 7)
    assert "keep7" in rank_memo.typed_names(frozenset({"keep7", "keep15"}), kept_typing,
                                            grown, new, -1)
    assert "keep15" not in rank_memo.typed_names(frozenset({"keep7", "keep15"}), kept_typing,
                                                 grown, new, -1)
    assert rank_memo.typed_names(frozenset({"x"}), rank_memo.Kept(
        frozenset(), frozenset(), 5, 10, {}, 0), grown, new, -1) == {"x"}, \
        "no lines remembered: every new name counts"


def test_outline_entries_the_parse_lost_stay_remembered():
    """`_vanished`: kept outline keys the current items do not have at all (a `[` still
    open lost the rest of the class) are remembered with the selection, so the entries
    are taken again once the parse has them back; neighbor keys are not (their
    files do not change with this document's parse)."""
    from flashls.context.outline import Item
    item = Item("alpha", "function", 1, 3, 5, ("def alpha():",), (), -1, 4)
    here = ("", "alpha", "function", ("def alpha():",))
    lost = ("", "beta", "function", ("def beta():",))
    other = ("b.py", "gamma", "function", ("def gamma():",))
    kept = rank_memo.Kept(frozenset({here, lost, other}), frozenset(), 0, 9, {}, 1)
    assert rank_memo._vanished(kept, (item,)) == {lost}
