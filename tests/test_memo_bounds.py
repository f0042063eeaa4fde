"""Every memo of the context engine stays within a bound, counted in entries (and, for
the per-version memos, in the items those entries hold), whatever a session does.

`memo_census` finds the memos by walking every flashls module's globals, so a memo
added later is checked too: one that grows over a workload of fresh documents, in
every language, without declaring a bound fails here. Before `memo.IdentityMemo`,
the per-version memos were bounded by entries only: 32 versions of a 15,000-line
file's key index (`rank_memo._FILE_KEYS`) were ~30 MB, and the soak with a big file
opened every 8 steps grew until each such memo was full of its versions."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchmarks.bigfiles import synthetic_python
from flashls.context import analysis, memo_census, ranking, syntax
from flashls.context.assemble import assemble_context
from flashls.context.background import preparation_steps
from flashls.context.document import Document
from flashls.context.memo import IdentityMemo
from flashls.context.syntax import ParsedDocument
WORKSPACES = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces"
LANGUAGES = {".py": "python", ".ts": "typescript", ".go": "go", ".rs": "rust",
             ".java": "java", ".c": "c", ".h": "c"}


@pytest.fixture(autouse=True)
def _clean():
    analysis.clear()
    ranking.forget()
    yield
    analysis.clear()
    ranking.forget()


def _type_in(pdoc: ParsedDocument, rng: random.Random, keys: int) -> None:
    """Open a line somewhere and type into it, assembling a context per keystroke."""
    lines = pdoc.doc.text.split("\n")
    at = rng.randrange(len(lines))
    col = len(lines[at])
    pdoc.apply_change((at, col), (at, col), "\n    ")
    line, col = at + 1, 4
    for ch in f"value_{rng.randrange(10_000)} = total"[:keys]:
        pdoc.apply_change((line, col), (line, col), ch)
        pdoc.doc.version += 1
        col += 1
        snap = pdoc.snapshot()
        assemble_context(snap, snap.doc.offset_at(line, col), budget_tokens=2048)


def _round(files: list, rng: random.Random, tag: int) -> None:
    """Every fixture file opened under a fresh URI (so with fresh versions and keys),
    a line typed into it, closed."""
    for path in files:
        text = path.read_text(encoding="utf-8") + f"\n# round {tag}\n"
        uri = (path.parent / f"r{tag}_{path.name}").as_uri()
        pdoc = ParsedDocument.open(Document(uri, text, LANGUAGES[path.suffix], 1), str(path))
        _type_in(pdoc, rng, 6)


def test_no_module_memo_grows_without_a_declared_bound():
    files = sorted(p for p in WORKSPACES.rglob("*") if p.suffix in LANGUAGES)
    assert len(files) > 20
    rng = random.Random(5)
    _round(files, rng, 0)  # one-off entries: grammars, queries, first lines seen
    warm = {m.name: m.entries for m in memo_census.census()}
    for tag in (1, 2, 3):
        _round(files, rng, tag)
    after = memo_census.census()
    over = [m for m in after if m.bound is not None and m.entries > m.bound]
    assert not over, f"memos over their bound: {over}"
    growing = [f"{m.name}: {warm.get(m.name, 0)} -> {m.entries}" for m in after
               if m.bound is None and m.entries > warm.get(m.name, 0)]
    assert not growing, ("module-level containers that grew with fresh documents and "
                         f"declare no bound (memo_census.PLAIN_BOUNDS): {growing}")


def test_per_version_memos_keep_a_few_versions_of_a_big_file():
    """Typing in a 1,200-function file makes a new items version per keystroke: each
    per-version memo keeps what its weight allows, not one version per entry."""
    uri = "file:///w/big.py"
    pdoc = ParsedDocument.open(Document(uri, synthetic_python(1200), "python", 1), uri)
    pdoc.background = True
    for _ in preparation_steps(pdoc):
        pass
    rng = random.Random(9)
    for _ in range(6):
        _type_in(pdoc, rng, 12)
    identity = {m.name: m for m in memo_census.census()}
    assert "flashls.context.rank_memo._FILE_KEYS" in identity
    for module_name, attr in (("ranking", "_ENTRY_COSTS"), ("rank_memo", "_FILE_KEYS"),
                              ("moved_items", "_STARTS"), ("item_keys", "_COUNTS")):
        module = __import__(f"flashls.context.{module_name}", fromlist=[attr])
        memo = getattr(module, attr)
        assert isinstance(memo, IdentityMemo)
        assert memo.weight <= memo.max_weight or len(memo) == 1, (attr, memo.weight)


def test_identity_memo_bounds_entries_and_weight():
    memo = IdentityMemo(8, max_weight=100)
    small = [tuple(range(3)) for _ in range(50)]
    for t in small:
        memo.put(t, len(t))
    assert len(memo) == 8 and memo.get(small[-1]) == 3 and memo.get(small[0]) is None
    big = tuple(range(60))
    bigger = tuple(range(70))
    memo.put(big, "big")
    memo.put(bigger, "bigger")  # 61 + 71 > 100: the older big one goes
    assert memo.get(bigger) == "bigger" and memo.get(big) is None
    assert memo.weight <= 100
    huge = tuple(range(500))
    memo.put(huge, "huge")  # heavier than the bound alone: kept, everything else goes
    assert len(memo) == 1 and memo.get(huge) == "huge"
    twin = tuple(range(500))  # equal, not the same object: never its value
    assert memo.get(twin) is None
    memo.put(huge, "again", extra="other")  # (obj, extra) is the key
    assert memo.get(huge, "other") == "again"


def test_a_big_document_leaves_memos_within_bounds_after_it_closes(monkeypatch):
    """The region-parse path (documents over REGION_MIN_BYTES) too."""
    monkeypatch.setattr(syntax, "REGION_MIN_BYTES", 0)
    rng = random.Random(2)
    for k in range(3):
        uri = f"file:///w/big_{k}.py"
        pdoc = ParsedDocument.open(Document(uri, synthetic_python(600), "python", 1), uri)
        pdoc.background = True
        for _ in preparation_steps(pdoc):
            pass
        _type_in(pdoc, rng, 10)
    over = [m for m in memo_census.census() if m.bound is not None and m.entries > m.bound]
    assert not over


def test_a_closed_document_leaves_no_analysis_state():
    """didClose forgets the document's analyzed versions: a closed 2 MB file's state
    (its bytes, lines, node records and analysis: ~40 MB for lib.dom.d.ts) stayed
    until 16 other documents were analyzed. A reopened one is prepared afresh."""
    from flashls.completion.factory import WorkspaceContext
    uri = "file:///w/closed.py"
    pdoc = ParsedDocument.open(Document(uri, synthetic_python(300), "python", 1), uri)
    pdoc.background = True
    for _ in preparation_steps(pdoc):
        pass
    _type_in(pdoc, random.Random(1), 4)
    assert analysis.has_state(uri)
    context = WorkspaceContext(lambda: None, {}, lambda: [])
    context.forget(uri)
    assert not analysis.has_state(uri)
    assert not [k for k in analysis._CURRENT if k[1][0] == uri]
