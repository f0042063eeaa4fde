"""Incremental context assembly must be byte-identical to assembly from scratch.

A document is edited a few hundred times (typing bursts with newlines, deletions,
edits of def/class lines, multi-byte characters, several edits between two requests)
and assembled after each step through its incremental tree and every cache. The oracle
is the same text assembled after `analysis.clear()` from a fresh `ParsedDocument`.
The whole incremental run happens first (the oracle's `clear()` would otherwise reset
the state the incremental path depends on), then each step is replayed from scratch.
"""

from __future__ import annotations

import random
import zlib
import shutil
from pathlib import Path

import pytest

from benchmarks.context_bench import _big_module
from flashls.context import analysis, outline, ranking
from flashls.context.assemble import _current_analysis, assemble_context, render_breakdown
from flashls.context.document import Document
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces"

SNIPPETS = ["x", "\n", "\n    ", "    ", "é", "中文", "😀", "(", ")", ":", "{", "}", "'",
            '"""', "# note\n", "def f_new(a):\n    pass\n", "class K:\n", "\n\n",
            "    def m(self, é):\n        return 1\n", "// c\n", "fn z() {}\n",
            "import os\n", "from .models import Order\n", "@decorator\n"]
TYPED = ("total = self.price_book.order_total(order) + pricing.round_money(x)\n"
         "        if total > 10:\n            return 'é中😀'\n")


def _edits(rng: random.Random, text: str):
    """One step: a list of (start offset, end offset, new text) and a cursor."""
    mode = rng.random()
    n = len(text)
    if mode < 0.25:  # delete a span
        a = rng.randrange(n + 1)
        b = min(n, a + rng.choice([1, 1, 2, 5, 40, 200]))
        return [(a, b, "")], a
    if mode < 0.45:  # edit a def/class line: its name, its colon, its parameters
        starts = [i for i in range(n) if (i == 0 or text[i - 1] == "\n") and
                  text.startswith(("def ", "class ", "    def ", "fn ", "func ", "pub fn",
                                   "export ", "struct ", "impl "), i)]
        if starts:
            s = rng.choice(starts)
            e = text.find("\n", s)
            e = n if e == -1 else e
            line = text[s:e]
            choice = rng.random()
            if choice < 0.3 and ":" in line:
                at = s + line.rindex(":")
                return [(at, at + 1, "")], at
            if choice < 0.6 and "(" in line:
                at = s + line.index("(")
                new = rng.choice(["_v2", "é", "x", ""])
                return [(at, at, new)], at + len(new)
            at = s + rng.randrange(len(line) + 1)
            new = rng.choice(SNIPPETS)
            return [(at, at, new)], at + len(new)
    if mode < 0.65:  # several small edits before one request
        out = []
        for _ in range(rng.randint(2, 4)):
            a = rng.randrange(n + 1)
            new = rng.choice(SNIPPETS)
            out.append((a, a, new))
            text = text[:a] + new + text[a:]
            n = len(text)
        return out, out[-1][0] + len(out[-1][2])
    a = rng.randrange(n + 1)
    if rng.random() < 0.3:  # replace a span
        b = min(n, a + rng.randint(1, 30))
        new = rng.choice(SNIPPETS)
        return [(a, b, new)], a + len(new)
    new = rng.choice(SNIPPETS)
    return [(a, a, new)], a + len(new)


def _apply(pdoc: ParsedDocument, a: int, b: int, new: str) -> None:
    doc = pdoc.doc
    pdoc.apply_change(doc.position_at(a), doc.position_at(b), new)


def _facts(a):
    if a is None:
        return None
    if a.ident_counts is not None:  # kept incrementally: must match the nodes' identifiers
        assert a.ident_counts == analysis._ident_counts(a.usages)
    return (a.items, a.imports, a.package, a.top_starts, a.import_lines, tuple(a.lines))


def _check_state(uri: str) -> None:
    """The incrementally kept state equals what a full pass computes from its nodes."""
    state = analysis._STATES.get(uri)
    if state is None:
        return
    a = state.analysis
    recs = analysis._materialize(state)  # the nodes after the last edit shift lazily
    full = analysis._assemble(a.spec, state.lines, list(recs))
    assert _facts(a) == _facts(full)
    assert a.usages == full.usages
    assert state.at == analysis._positions(state.recs)
    assert state.levels == outline._levels(tuple(list(a.items)))  # a new tuple: no memo
    assert state.total == sum(it.tokens for it in a.items)
    assert state.packaged == any(r.chunk.package is not None for r in state.recs)
    hit = outline._LEVELS.get(id(a.items))
    assert hit is None or hit[1] == state.levels


def _run(ws: Workspace | None, path: Path, text: str, steps: int, seed: int,
         budgets=(2048,)) -> None:
    rng = random.Random(seed)
    analysis.clear()
    ranking.forget()  # the stable selection depends on the history: both runs start empty
    uri = path.as_uri()
    pdoc = ParsedDocument.open(Document(uri, text, "", 1), str(path))
    recorded = []
    typing_at = None  # (offset) while a typing burst goes on
    burst = 0
    for step in range(steps):
        budget = budgets[step % len(budgets)]
        if typing_at is None and rng.random() < 0.35:
            typing_at = rng.randrange(len(pdoc.doc.text) + 1)
            burst = rng.randint(10, 60)
            k = rng.randrange(len(TYPED))
        if typing_at is not None:
            ch = TYPED[k % len(TYPED)]
            k += 1
            _apply(pdoc, typing_at, typing_at, ch)
            typing_at += len(ch)
            cursor = typing_at
            burst -= 1
            if burst <= 0:
                typing_at = None
        else:
            edits, cursor = _edits(rng, pdoc.doc.text)
            for a, b, new in edits:
                _apply(pdoc, a, b, new)
        if rng.random() < 0.15:
            cursor = rng.randrange(len(pdoc.doc.text) + 1)
        cursor = min(cursor, len(pdoc.doc.text))
        pdoc.doc.version += 1
        got = assemble_context(pdoc, cursor, budget_tokens=budget, workspace=ws)
        _check_state(uri)
        recorded.append((pdoc.doc.text, pdoc.doc.version, cursor, budget, got,
                         _facts(_current_analysis(pdoc))))
    ranking.forget()  # ...and the fresh run replays the same history from the start
    for step, (text_, version, cursor, budget, got, facts) in enumerate(recorded):
        analysis.clear()
        fresh = ParsedDocument.open(Document(uri, text_, "", version), str(path))
        want = assemble_context(fresh, cursor, budget_tokens=budget, workspace=ws)
        assert facts == _facts(_current_analysis(fresh)), f"step {step}"
        if got != want:
            assert render_breakdown(got) == render_breakdown(want), f"step {step}"
            assert got == want, f"step {step}"


CASES = [("py_inventory", "inventory/models.py", 90),
         ("py_inventory", "inventory/services.py", 60),
         ("ts_tasks", "src/store/taskStore.ts", 50),
         ("rust_ledger", "src/ledger/mod.rs", 40),
         ("go_shortener", "internal/store/store.go", 40),
         ("java_library", "src/main/java/com/acme/library/service/LoanService.java", 30),
         ("c_geometry", "cpp/shapes.hpp", 30)]


@pytest.mark.parametrize("workspace,rel,steps", CASES)
def test_incremental_assembly_equals_a_fresh_one(workspace, rel, steps):
    root = FIXTURES / workspace
    path = root / rel
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    _run(ws, path, path.read_text(), steps, seed=zlib.crc32(rel.encode()) % 1000 + 7, budgets=(2048, 512))


def test_incremental_assembly_equals_a_fresh_one_without_workspace():
    path = FIXTURES / "py_inventory/inventory/pricing.py"
    _run(None, path, path.read_text(), 40, seed=3, budgets=(2048, 300))


def test_incremental_assembly_on_a_large_file(tmp_path):
    root = tmp_path / "py_inventory"
    shutil.copytree(FIXTURES / "py_inventory", root)
    path = root / "inventory" / "big_module.py"
    text = _big_module(1000)
    assert text.count("\n") >= 1000
    path.write_text(text)
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    _run(ws, path, text, 180, seed=11, budgets=(2048, 2048, 1024))


def test_incremental_assembly_with_tiny_memos(monkeypatch):
    """Evictions everywhere (per-node memos past their byte budget) change nothing."""
    monkeypatch.setattr(analysis, "MEMO_BYTES", 4096)
    root = FIXTURES / "py_inventory"
    path = root / "inventory/models.py"
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    _run(ws, path, path.read_text(), 60, seed=5)


@pytest.mark.parametrize("rel", ["rust_ledger/src/ledger/mod.rs",
                                 "go_shortener/internal/store/store.go"])
def test_go_rust_evidence_memos_evicting_change_nothing(monkeypatch, rel):
    """The Go / Rust evidence memos (file facts, node qualifiers, file order) hold
    results, not state: evicting them on every request gives the same assembly."""
    from cachetools import LRUCache
    from flashls.context import evidence_go, evidence_lang, evidence_rust
    monkeypatch.setattr(evidence_go.file_facts, "cache", LRUCache(maxsize=1))
    monkeypatch.setattr(evidence_rust.file_facts, "cache", LRUCache(maxsize=1))
    monkeypatch.setattr(evidence_lang, "NODE_MEMO_SIZE", 1)
    monkeypatch.setattr(evidence_lang, "NAMES_MEMO_SIZE", 1)
    name, _, inner = rel.partition("/")
    root = FIXTURES / name
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    path = root / inner
    _run(ws, path, path.read_text(), 40, seed=17)


def _estimate_one_scan(text: str) -> int:
    """The token estimate as one scan of the whole text (the original formulation)."""
    import math
    from flashls.context import tokens as t
    if not text:
        return 0
    words = t._WORD.findall(text)
    long_extra = sum(len(w) - 6 for w in words if len(w) > 6)
    punct = t._PUNCT.findall(text)
    total = (t._W_NEWLINE * text.count("\n")
             + t._W_SPACE_RUN * len(t._SPACE_RUN.findall(text))
             + t._W_WORD * len(words) + t._W_LONG_WORD_CHAR * long_extra
             + t._W_PUNCT_RUN * len(punct) + t._W_PUNCT_CHAR * sum(map(len, punct)))
    digits = t._DIGITS.findall(text)
    if digits:
        total += t._W_DIGIT_GROUP * sum((len(d) + 2) // 3 for d in digits)
    if not text.isascii() or t._CTRL.search(text):
        total += t._W_NON_ASCII_CHAR * len(t._NON_ASCII.findall(text))
    caps = t._CAPS.findall(text)
    if caps:
        total += t._W_CAPS_CHAR * sum(map(len, caps)) + t._W_CAPS_HUMP * len(caps)
    mid_tabs = len(t._MID_TAB.findall(text))
    space_digits = len(t._SPACE_DIGIT.findall(text))
    if mid_tabs or space_digits:
        total += t._W_MID_TAB_RUN * mid_tabs + t._W_SPACE_DIGIT * space_digits
    return max(1, math.ceil(total - 1e-9))


def test_line_by_line_token_estimate_equals_one_scan():
    from flashls.context.tokens import estimate_tokens
    rng = random.Random(2)
    texts = [p.read_text() for p in sorted(FIXTURES.rglob("*")) if p.is_file()]
    alphabet = "aZ9_ (){}\n\t\r\x01é中😀'\"#:.,;ABCdefGHIjklMNop0123456789    "
    for _ in range(1500):
        text = rng.choice(texts)
        a = rng.randrange(len(text) + 1)
        sample = text[a:a + rng.choice([10, 100, 600, 3000, 20000])]
        if rng.random() < 0.3:
            sample = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 2000)))
        assert estimate_tokens(sample) == _estimate_one_scan(sample), sample[:80]


def test_enclosing_scopes_with_body_patterns_only_equal_all_patterns(monkeypatch):
    from flashls.context import symbols
    from flashls.context.languages import language_for
    rng = random.Random(4)
    for path in sorted(FIXTURES.rglob("*")):
        spec = language_for("", str(path))
        if not path.is_file() or spec is None:
            continue
        text = path.read_text()
        source = text.encode()
        tree = spec.parser().parse(source)
        lines = symbols.split_lines(text)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line.encode()) + 1)
        for _ in range(40):
            row = rng.randrange(len(lines))
            byte = starts[row] + rng.randrange(len(lines[row].encode()) + 1)
            got = symbols.enclosing_scopes(spec, tree, source, byte, row, lines)
            with monkeypatch.context() as m:
                m.setattr(symbols, "_with_body", symbols.compiled)
                want = symbols.enclosing_scopes(spec, tree, source, byte, row, lines)
            assert got == want, (path, row)


def _far_replay(path: Path, text: str, resolver: str, seed: int, steps: int, monkeypatch):
    """`gather` through the far-node memo equals `gather` with the memo emptied, after
    every step of random typing, newlines, deletions and cursor jumps in a long file."""
    from flashls.context import evidence
    computed = []
    real = evidence._compute_far
    monkeypatch.setattr(evidence, "_compute_far",
                        lambda *a: computed.append(1) or real(*a))
    evidence.forget_far()
    analysis.clear()
    hits: list[int] = []
    rng = random.Random(seed)
    pdoc = ParsedDocument.open(Document(path.as_uri() + "?far", text, "", 1), str(path))
    cursor = len(text) // 2
    for step in range(steps):
        doc_text = pdoc.doc.text
        roll = rng.random()
        if roll < 0.08:
            cursor = rng.randrange(len(doc_text) + 1)
        elif roll < 0.16 and cursor > 0:
            start = max(0, cursor - rng.randint(1, 12))
            _apply(pdoc, start, cursor, "")
            cursor = start
        else:
            new = rng.choice(TYPED + "\n\n.(")
            _apply(pdoc, cursor, cursor, new)
            cursor += len(new)
        pdoc.doc.version += 1
        a = _current_analysis(pdoc)
        line = pdoc.doc.text.count("\n", 0, cursor)
        names = {it.name for it in a.items if it.name} | set(TYPED.split())
        typing_line = line if rng.random() < 0.5 else -1
        hits_before = len(computed)
        got = evidence.gather(a, line, names, resolver, typing_line)
        memo_hit = len(computed) == hits_before
        evidence.forget_far()
        evidence._NODE_ATTRS.clear()
        want = evidence.gather(a, line, names, resolver, typing_line)
        assert got == want, f"step {step}"
        if memo_hit:
            hits.append(step)
        # the cached state after the oracle is the oracle's: put the memo back in play
        evidence.gather(a, line, names, resolver, typing_line)
    return hits


@pytest.mark.parametrize("name,resolver", [("py", "python"), ("go", "go")])
def test_far_node_memo_equals_a_fresh_gather(tmp_path, monkeypatch, name, resolver):
    if name == "py":
        path = tmp_path / "big_module.py"
        text = _big_module(2000)
    else:
        path = tmp_path / "store.go"
        base = (FIXTURES / "go_shortener/internal/store/store.go").read_text()
        head, _, body = base.partition("\nfunc ")
        text = head + "".join(f"\nfunc {body}".replace("Store", f"Store{k}")
                              for k in range(24))
    assert text.count("\n") > 1000
    path.write_text(text)
    hits = _far_replay(path, text, resolver, seed=17, steps=150, monkeypatch=monkeypatch)
    assert len(hits) > 75  # most keystrokes reuse the far part (the memo is in play)


def _memory():
    """What the documents remember, but the last version's demand (summed afresh)."""
    from collections import OrderedDict
    from flashls.context import rank_memo
    return {k: (OrderedDict(d.anchors), d.layout, d.carried, d.freed, d.stable_used, d.lends)
            for k, d in rank_memo._DOCS.items()}


def _restore(saved) -> None:
    from collections import OrderedDict
    from flashls.context import rank_memo
    rank_memo._DOCS.clear()
    for k, (anchors, layout, carried, freed, stable_used, lends) in saved.items():
        rank_memo._DOCS[k] = rank_memo._Doc(OrderedDict(anchors), layout=layout,
                                            carried=carried, freed=freed,
                                            stable_used=stable_used, lends=lends)


def _stable_replay(ws: Workspace, path: Path, text: str, seed: int, steps: int, monkeypatch):
    """The stable selection answered without ranking (a keystroke that brings no new
    identifier into the anchor) equals ranking then choosing from the same remembered
    state, and leaves the same state, after every step of random typing, newlines,
    deletions, cursor jumps and budget changes. Returns the steps the fast path took."""
    from flashls.context import rank_memo
    ranked = []
    real_rank = ranking.rank
    monkeypatch.setattr(ranking, "rank", lambda *a, **k: ranked.append(1) or real_rank(*a, **k))
    from flashls.context import assemble
    chosen = []  # the selections themselves: their demand is not in the context
    real_select = assemble.select_stable
    monkeypatch.setattr(assemble, "select_stable",
                        lambda *a, **k: chosen.append(real_select(*a, **k)) or chosen[-1])
    ranking.forget()
    analysis.clear()
    rng = random.Random(seed)
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "", 1), str(path))
    cursor = text.index("\n", len(text) // 2)  # typing at the end of a line, mostly
    budget = 2048
    fast: list[int] = []
    for step in range(steps):
        doc_text = pdoc.doc.text
        roll = rng.random()
        if roll < 0.06:
            cursor = rng.randrange(len(doc_text) + 1)
            if rng.random() < 0.7:
                cursor = max(0, doc_text.find("\n", cursor)) if "\n" in doc_text[cursor:] else cursor
        elif roll < 0.14 and cursor > 0:
            start = max(0, cursor - rng.randint(1, 12))
            _apply(pdoc, start, cursor, "")
            cursor = start
        else:
            new = rng.choice(TYPED + "\n\n.(")
            _apply(pdoc, cursor, cursor, new)
            cursor += len(new)
        pdoc.doc.version += 1
        if rng.random() < 0.1:
            budget = rng.choice((2048, 1500, 900))
        saved = _memory()
        before = len(ranked)
        monkeypatch.setattr(rank_memo, "FAST", True)
        first = len(chosen)
        got = assemble_context(pdoc, cursor, budget_tokens=budget, workspace=ws)
        second = len(chosen)  # (the stable tier's budget held, then given up: two)
        if len(ranked) == before:
            fast.append(step)
        after_fast = _memory()
        _restore(saved)  # (without the last version's demand: summed afresh)
        ranking._COSTS.clear()
        monkeypatch.setattr(rank_memo, "FAST", False)
        want = assemble_context(pdoc, cursor, budget_tokens=budget, workspace=ws)
        if got != want:
            assert render_breakdown(got) == render_breakdown(want), f"step {step}"
        assert got == want, f"step {step}"
        assert after_fast == _memory(), f"step {step}: the remembered selection differs"
        assert chosen[first:second] == chosen[second:], f"step {step}: the selections differ"
    return fast


@pytest.mark.parametrize("name", ["py", "go"])
def test_stable_selection_without_ranking_equals_ranking(tmp_path, monkeypatch, name):
    if name == "py":
        root = tmp_path / "py_inventory"
        shutil.copytree(FIXTURES / "py_inventory", root)
        path = root / "inventory" / "big_module.py"
        text = _big_module(1500)
    else:
        root = tmp_path / "go_shortener"
        shutil.copytree(FIXTURES / "go_shortener", root)
        path = root / "internal" / "store" / "store.go"
        base = path.read_text()
        head, _, body = base.partition("\nfunc ")
        text = head + "".join(f"\nfunc {body}".replace("Store", f"Store{k}") for k in range(12))
    path.write_text(text)
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    fast = _stable_replay(ws, path, text, seed=23, steps=150, monkeypatch=monkeypatch)
    assert len(fast) > 60  # most keystrokes bring no new identifier: the fast path is in play
