"""The caches that make a fresh document's assembly cheaper give what a fresh
computation gives (session 7, keystroke)."""

from __future__ import annotations

import os

import pytest

from flashls.context.timed_cache import TimedCache
from flashls.context.workspace import Workspace


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_timed_cache_reuses_an_entry_for_its_ttl_only():
    clock = Clock()
    cache = TimedCache(maxsize=8, ttl=2.0, timer=clock)
    cache["a"] = 1
    assert cache.get("a") == 1 and cache["a"] == 1 and "a" in cache
    clock.now += 1.99
    assert cache.get("a") == 1
    clock.now += 0.01  # ttl seconds after it was stored
    assert cache.get("a") is None and cache.get("a", "x") == "x" and "a" not in cache
    with pytest.raises(KeyError):
        cache["a"]
    cache["a"] = 2  # stored again: a new lifetime
    clock.now += 1.0
    assert cache["a"] == 2


def test_timed_cache_keeps_a_falsy_value_apart_from_a_miss():
    cache = TimedCache(maxsize=8, ttl=2.0, timer=Clock())
    cache["v"] = None  # a verdict "allowed" is None
    assert "v" in cache and cache.get("v", "") is None and cache.get("w", "") == ""


def test_timed_cache_stays_within_maxsize_dropping_expired_then_oldest():
    clock = Clock()
    cache = TimedCache(maxsize=8, ttl=2.0, timer=clock)
    for k in range(4):
        cache[k] = k
    clock.now += 3.0  # 0..3 expired
    for k in range(4, 12):
        cache[k] = k
    assert len(cache) <= 8
    assert all(cache.get(k) is None for k in range(4))
    assert cache.get(11) == 11  # the newest stays
    for k in range(12, 40):
        cache[k] = k
        assert len(cache) <= 8
    assert cache.get(39) == 39 and cache.get(12) is None  # the oldest went first


def test_read_stamped_equals_read_and_stamp(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "bin.py").write_bytes(b"\0\1\2")
    (tmp_path / "big.py").write_text("y = 2\n" * 100)
    (tmp_path / "d").mkdir()
    (tmp_path / ".env").write_text("SECRET=1\n")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    ws = Workspace([str(tmp_path)], [".env"], max_bytes=300)
    for name in ("a.py", "bin.py", "big.py", "d", ".env", "b.py", "missing.py"):
        path = os.path.join(str(tmp_path), name)
        fresh = Workspace([str(tmp_path)], [".env"], max_bytes=300)
        text, stamp = ws.read_stamped(path)
        assert text == fresh.read(path), name
        if text is not None:
            assert stamp == fresh.stamp(path), name
    outside = tmp_path.parent / "outside.py"
    assert ws.read_stamped(str(outside)) == (None, None)


# -- a long node's attributes, read in chunks remembered by their text ------------------

from pathlib import Path  # noqa: E402
import random  # noqa: E402

from flashls.context import evidence  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces"


def _whole(lines, go):
    """A node's tables read row by row (what `_node_attributes` computed before)."""
    names: dict = {}
    typed: list = []
    evidence.collect_attributes(lines, 0, 0, len(lines), go, names, typed)
    return evidence.attributes_result(names, typed)


def _long_node(rng: random.Random) -> list[str]:
    """Lines of a long class body made of the fixtures' own lines (varied syntax:
    `q.name`, `x: T`, `x := &T{`, blank lines), shuffled."""
    pool = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.suffix in (".py", ".go", ".java", ".ts", ".rs", ".cpp", ".c", ".h"):
            pool += path.read_text().splitlines()
    return [rng.choice(pool) for _ in range(rng.randint(140, 600))]


@pytest.mark.parametrize("go", [False, True, "java"])
def test_chunked_node_attributes_equal_a_whole_reading_after_edits(go):
    rng = random.Random(7 if go else 3)
    lines = _long_node(rng)
    evidence._CHUNKS.clear()
    for step in range(40):
        # each version is a new node (the identifier table an analysis would build)
        got = evidence._node_attributes(lines, 0, len(lines) - 1, object(), go, {})
        assert got == _whole(lines, go), step
        assert list(got[0]) == list(_whole(lines, go)[0])  # the same name order too
        edit = rng.random()
        at = rng.randrange(len(lines))
        if edit < 0.4:
            lines.insert(at, rng.choice(lines))  # Enter / paste: later rows shift
        elif edit < 0.6 and len(lines) > 140:
            del lines[at]
        elif edit < 0.8:
            lines[at] = lines[at] + " x.y = T(z)"
        else:
            lines.insert(at, "")  # a blank line: a new chunk end
    assert evidence._CHUNKS, "long nodes go through the chunk memo"


def test_a_node_in_the_middle_of_a_file_is_chunked_from_its_first_row():
    rng = random.Random(11)
    body = _long_node(rng)
    lines = ["import x"] * 5 + body + ["tail"] * 3
    got = evidence._node_attributes(lines, 5, 5 + len(body) - 1, object(), True, {})
    assert got == _whole(body, True)  # rows relative to the node's first row


def test_chunk_ends_cut_at_blank_lines_within_bounds():
    rows = (["a"] * 20 + [""]) * 3 + ["b"] * 200
    ends = evidence.chunk_ends(rows)
    assert ends[:3] == [21, 42, 63]  # after a blank line, once a chunk has 16 rows
    assert ends[-1] == len(rows)
    sizes = [b - a for a, b in zip([0] + ends, ends)]
    assert max(sizes) <= evidence.CHUNK_MAX_ROWS
    shifted = evidence.chunk_ends(["new"] + rows)
    assert shifted[1:3] == [e + 1 for e in ends[1:3]]  # ends resync after a blank line


# -- entry costs per items tuple ------------------------------------------------------

def test_entry_costs_equal_entry_cost_per_item():
    from flashls.context.analysis import analyze
    from flashls.context.languages import language_for
    from flashls.context.neighbors import entry_cost
    from flashls.context.ranking import entry_costs
    for path in sorted(FIXTURES.rglob("*")):
        spec = language_for("", str(path)) if path.is_file() else None
        if spec is None:
            continue
        a = analyze(spec, path.read_text(), ("test-costs", str(path)))
        assert entry_costs(a.items) == tuple(entry_cost(it) for it in a.items)
        assert entry_costs(a.items) is entry_costs(a.items)  # memoized per items tuple


# -- fill candidates made once per neighbor file version and place ------------------------------

RANK_CASES = [("py_inventory", "inventory/services.py"),
              ("go_shortener", "internal/store/store.go"),
              ("ts_tasks", "src/store/taskStore.ts"),
              ("rust_ledger", "src/ledger/mod.rs")]


@pytest.mark.parametrize("workspace,rel", RANK_CASES)
def test_reused_fill_candidates_equal_fresh_ones(workspace, rel):
    from flashls.context import ranking
    from flashls.context.assemble import _current_analysis
    from flashls.context.document import Document
    from flashls.context.evidence import gather
    from flashls.context.neighbors import neighbor_files
    from flashls.context.syntax import ParsedDocument
    from flashls.settings import DEFAULT_EXCLUDE
    root = FIXTURES / workspace
    path = root / rel
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    pdoc = ParsedDocument.open(Document(path.as_uri(), path.read_text(), "", 1), str(path))
    analysis = _current_analysis(pdoc)
    resolver = analysis.spec.resolver
    files = neighbor_files(analysis.spec, str(path), analysis, ws, {})
    names = set()
    for f in files:
        names.update(it.name for it in f.analysis.items if it.name)

    def candidates(line: int) -> list:
        ev = gather(analysis, line, names, resolver, -1)
        out = []
        for f_index, f in enumerate(files):
            out += ranking._file_candidates(f_index, f, ev, ranking._merged(resolver, str(path), f),
                                            ranking._module_use(f, ev), {})
        return out

    rng = random.Random(5)
    reused = 0
    for line in [0, len(analysis.lines) - 1] + rng.sample(range(len(analysis.lines)), 5):
        warm = candidates(line)  # after the other lines' requests: made ones reused
        before = {id(c) for c in warm}
        ranking._FILL_LISTS.clear()
        fresh = candidates(line)
        assert warm == fresh, line
        reused += sum(1 for c in candidates(line) if id(c) in {id(x) for x in fresh})
        assert not before & {id(c) for c in fresh}  # the clear made new ones
    assert reused, "fill candidates are reused between requests"


def _per_item(f_index, f, ev, merged, module):
    """A neighbor file's candidates scored item by item (no rows, no fill shortcut)."""
    from flashls.context import ranking
    items = f.analysis.items
    out = []
    for i, item in enumerate(items):
        if item.kind == "import":
            continue
        score = ranking._neighbor_score(items, item, f, ev, merged, module, {})
        typed = False
        if item.parent != -1 and items[item.parent].name in ev.receiver_types:
            use = ev.uses.get(item.name)
            typed = bool(use is not None and use.attribute and
                         items[item.parent].name in ranking._typed(use, ev, {}))
        out.append((score, f_index, i, typed))
    return out


@pytest.mark.parametrize("workspace", ["go_shortener", "py_inventory", "java_library",
                                       "rust_ledger", "ts_tasks", "c_geometry"])
def test_looked_up_rows_equal_per_item_scores_under_every_kind_of_evidence(workspace):
    """Synthetic evidence reaching rows every way `_reached` looks them up: used
    names, Go receivers and scoring parents as receiver types, constructors of
    parents with evidence; fill rows of every class, at several file ranks."""
    from flashls.context import ranking
    from flashls.context.analysis import analyze
    from flashls.context.evidence import FAR, Evidence, NameUse
    from flashls.context.languages import language_for
    from flashls.context.neighbors import NeighborFile
    rng = random.Random(workspace)
    root = FIXTURES / workspace
    files = []
    for path in sorted(root.rglob("*")):
        spec = language_for("", str(path)) if path.is_file() else None
        if spec is not None:
            a = analyze(spec, path.read_text(), ("test-rows", str(path)))
            files.append(NeighborFile(str(path), path.name, a, len(files)))
    compared = 0
    for trial in range(30):
        f_index = rng.randrange(len(files))
        f = files[f_index]
        rows = ranking.neighbor_rows(f.analysis.items, f.analysis.spec.resolver).rows
        names = [item.name for _, item, _, _, _ in rows if item.name]
        owners = [o for *_, o, _ in rows if o] + [p.name for _, _, p, _, _ in rows if p]
        pick = lambda pool, k: rng.sample(pool, min(len(pool), k)) if pool else []
        uses = {n: NameUse(rng.randint(1, 4), rng.choice([0, 5, 80, FAR]), rng.random() < 0.3,
                           rng.random() < 0.5, frozenset(pick(owners + ["x"], 2)))
                for n in pick(names, rng.randint(0, 6))}
        rtypes = {t: rng.choice([0, 3, 40]) for t in pick(owners, rng.randint(0, 3))}
        receivers = {"x": frozenset(pick(owners, 2))}
        bound = frozenset(pick(owners, rng.randint(0, 2)))  # constructors' parents
        ev = Evidence((0, 0), frozenset(), bound, uses, False, rtypes, receivers,
                      {t: 1 for t in pick(list(rtypes), 1)})
        merged = rng.random() < 0.5
        module = NameUse(2, rng.choice([0, 50]), True, True) if rng.random() < 0.5 else None
        ranking._FILL_LISTS.clear() if trial % 3 == 0 else None
        got = [(c.score, c.file, c.item, bool(c.typed)) for c in
               ranking._file_candidates(f_index, f, ev, merged, module, {})]
        assert got == _per_item(f_index, f, ev, merged, module), (workspace, trial)
        compared += len(got)
    assert compared
