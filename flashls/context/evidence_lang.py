"""Language-specific evidence layered on the language-neutral scores of `ranking.py`.

`ranking.rank` scores every candidate entry from the neutral evidence of
`evidence.py`; for the languages listed here the scores are then revised with what
that language's syntax tells (`evidence_go.py`, `evidence_rust.py`): which type a
method call's receiver has, which `impl` block a method belongs to. Shared here
(`common_pass`): names the current file defines shadow a neighbor's, focus inside
very long definitions, and repeats: several entries of one name (a Go method on seven
receiver types, a Rust method in every `impl` and under each `#[cfg]`) say the same
thing, so after the best of them each further one is worth less. Also here: which
neighbor files come first when not all of them fit (`order_files`).
"""

from __future__ import annotations

import math

from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence

from .evidence_go_tests import demote as demote_tests
from .evidence_go_twin import lift as lift_twin
from .name_family import lift as lift_family

if TYPE_CHECKING:
    from .evidence import Evidence
    from .neighbors import NeighborFile

REPEAT_SAME_FILE = 0.5  # a further entry of the same name in the same file
REPEAT_OTHER_FILE = 0.8  # ... in another file (`complete::take` and `streaming::take`)
FILL_BELOW = 5.0  # scores below are fill (no evidence at all): left as they are
SHADOWED = 0.3  # a neighbor's name the current file defines itself, used unqualified
LARGE_ANCHOR = 150  # rows: a table-driven test, a parser's big match
FOCUS_ROWS = 40  # a name used this near the cursor inside it keeps its score
OUT_OF_FOCUS = 0.85  # ... one used only farther away in the anchor


def adjust(resolver: str, analysis, files: Sequence["NeighborFile"], ev: "Evidence",
           cands: list, cursor_line: int, path: str = "") -> list:
    """The candidates with scores revised by the language's own evidence (the same
    list, untouched, for languages without any)."""
    revise = _revisers().get(resolver)
    if revise is None:
        return cands
    cands = revise(analysis, files, ev, cands)
    if resolver == "go" and path:  # a test's twin, the file it tests (`evidence_go_twin.py`)
        cands = lift_twin(path, analysis, files, ev, cands)
    # Go: relatives of the names around the cursor (`name_family.py`)
    cands = lift_family(resolver, analysis, files, ev, cands, cursor_line)
    cands = demote_tests(resolver, files, cands)  # Go: neighbors' `TestX` (`evidence_go_tests.py`)
    return common_pass(cands, analysis, files, ev, cursor_line)


def common_pass(cands: list, analysis, files: Sequence["NeighborFile"], ev: "Evidence",
                cursor_line: int) -> list:
    """What Go and Rust share, in one walk over the candidates:

    * shadowing: a top-level name the current file defines itself is what its plain
      uses mean (nom's `number/complete.rs` and `number/streaming.rs` both define
      `u8`, `be_u16`, ...): a neighbor's definition of it counts only when qualified
      by the neighbor's module (`streaming::u8`); methods are left alone;
    * focus: inside a definition of hundreds of lines, "used in the anchor" says
      little; names used only far from the cursor in it count a little less (the
      selection is kept while the cursor stays in the anchor, so this decides the
      first request in it and what is added later);
    * repeats: each candidate whose name a better one already has is discounted,
      REPEAT_SAME_FILE per better one in its file, REPEAT_OTHER_FILE per other file
      with a better one (ties: file order, as the final sort).
    Fill (scores below FILL_BELOW) is left as it is."""
    own = _own_names(analysis)
    items_of = [f.analysis.items for f in files]
    stems = [_module_stem(f.path) for f in files] if own else []
    near = _focus_names(analysis, ev, cursor_line)
    uses = ev.uses
    out = list(cands)
    groups: dict[str, list[int]] = {}
    for k, c in enumerate(cands):
        if c.score < FILL_BELOW:
            continue
        item = (items_of[c.file] if c.file >= 0 else analysis.items)[c.item]
        name = item.name
        if not name or item.kind == "import":
            continue
        factor = 1.0
        use = uses.get(name)
        if c.file >= 0 and name in own and item.level <= 1 and item.kind != "method" and \
                (use is None or stems[c.file] not in use.qualifiers):
            factor = SHADOWED
        if near is not None and use is not None and use.distance == 0 and name not in near:
            factor *= OUT_OF_FOCUS
        if factor != 1.0:
            c = out[k] = c.rescored(c.score * factor)
            if c.score < FILL_BELOW:
                continue
        groups.setdefault(name, []).append(k)
    _discount_repeats(out, groups)
    return out


_OWN: list = [None]  # [(items, names)]: the current file's top-level names


def _own_names(analysis) -> frozenset[str]:
    hit = _OWN[0]
    if hit is not None and hit[0] is analysis.items:
        return hit[1]
    names = frozenset(it.name for it in analysis.items
                      if it.level == 1 and it.name and it.kind not in ("import", "method", "impl"))
    _OWN[0] = (analysis.items, names)
    return names


def _focus_names(analysis, ev: "Evidence", cursor_line: int) -> set[str] | None:
    """Identifiers within FOCUS_ROWS of the cursor inside a large anchor (None when
    the anchor is not large)."""
    lo, hi = ev.anchor
    if hi - lo < LARGE_ANCHOR:
        return None
    from .memo import line_identifiers
    lines = analysis.lines
    near: set[str] = set()
    for row in range(max(lo, cursor_line - FOCUS_ROWS), min(hi, cursor_line + FOCUS_ROWS,
                                                            len(lines) - 1) + 1):
        near |= line_identifiers(lines[row])
    return near


def _revisers() -> dict[str, Callable]:
    from . import evidence_go, evidence_rust
    return {"go": evidence_go.revise, "rust": evidence_rust.revise}


def _discount_repeats(cands: list, groups: dict[str, list[int]]) -> None:
    """In place: within each group (indices of candidates of one name), best first."""
    for members in groups.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda k: (-cands[k].score, cands[k].file, cands[k].item))
        per_file: dict[int, int] = {}
        for k in members:
            c = cands[k]
            same = per_file.get(c.file, 0)
            other = len(per_file) - (1 if same else 0)
            per_file[c.file] = same + 1
            if same or other:
                cands[k] = c.rescored(c.score * REPEAT_SAME_FILE ** same *
                                     REPEAT_OTHER_FILE ** other)


# -- which neighbor files first -----------------------------------------------------------
ORDERED_RESOLVERS = frozenset({"go", "rust"})
QUALIFIER_BONUS = 2.0  # the file's module is used as `module::name` / `pkg.Name`
_NAMES: dict[int, tuple[object, frozenset[str]]] = {}
NAMES_MEMO_SIZE = 512


def order_files(resolver: str, symbols, paths: Sequence[str], workspace, *,
                room: int, current: str = "") -> list[str]:
    """`paths` (files the current file imports, or a barrel re-exports) with the ones
    defining what the file uses first, for languages whose imports do not name what
    they bring (a Go package is every file of its directory; a Rust `mod.rs` or
    `lib.rs` declares dozens of modules). Each used name counts 1 / (the number of
    these files defining it): `new` is in every file, `minmax_impl` in one. Order is
    kept among equals, and when the order cannot matter: `room` (how many more files
    the caller takes) is at least len(paths), or none. A Go test's twin, the file
    `current` tests (`evidence_go_twin.py`), comes first."""
    if resolver not in ORDERED_RESOLVERS or room <= 0 or len(paths) <= room:
        return list(paths)
    used, qualifiers = _file_names(symbols)
    twin = _twin(resolver, current, paths)
    if not used and twin is None:
        return list(paths)
    # per keystroke the same: kept as long as the names the files define are
    key = ("file-order", tuple(paths), used, qualifiers, twin)
    hit = workspace.cache.get(key)
    if hit is None:
        hit = workspace.cache[key] = tuple(_ordered(paths, used, qualifiers, workspace, twin))
    return list(hit)


def _twin(resolver: str, current: str, paths: Sequence[str]) -> str | None:
    """The file the Go test `current` tests, among `paths` (None: not a test, or none)."""
    if resolver != "go" or not current.endswith("_test.go"):
        return None
    from .evidence_go_twin import twin_length
    best, best_len = None, 0
    for p in paths:
        n = twin_length(current, p)
        if n > best_len:
            best, best_len = p, n
    return best


def _ordered(paths: Sequence[str], used: frozenset[str], qualifiers: frozenset[str],
             workspace, twin: str | None = None) -> list[str]:
    defined = [_defined_names(p, workspace) & used for p in paths]
    files_defining: dict[str, int] = {}
    for names in defined:
        for n in names:
            files_defining[n] = files_defining.get(n, 0) + 1
    scores = []
    for p, names in zip(paths, defined):
        s = _weight(names, files_defining)
        if _module_stem(p) in qualifiers:
            s += QUALIFIER_BONUS
        scores.append(s)
    # among equals, a Go package's code before its tests: a test calls the package
    # far more than the helpers of other tests (only test files have tests as neighbors)
    order = sorted(range(len(paths)), key=lambda i: (paths[i] != twin, -scores[i],
                                                     paths[i].endswith("_test.go")))
    return [paths[i] for i in order]


_LAST_FILE: list = [None]  # [(analysis, (used, qualifiers))]: the current file


def _file_names(symbols) -> tuple[frozenset[str], frozenset[str]]:
    """The identifiers a file uses, and those written before `::` / `.` (memoized for
    the last analysis asked about: the tiers ask twice per request)."""
    hit = _LAST_FILE[0]
    if hit is not None and hit[0] is symbols:
        return hit[1]
    counts = getattr(symbols, "ident_counts", None)
    if counts:
        used = frozenset(counts)
    else:
        acc: set[str] = set()
        for node in getattr(symbols, "usages", ()):
            acc |= node[2]
        used = frozenset(acc)
    quals: set[str] = set()
    lines = symbols.lines
    for first, last, _, idents in getattr(symbols, "usages", ()):
        quals |= _node_qualifiers(lines, first, last, idents)
    result = (used, frozenset(quals))
    _LAST_FILE[0] = (symbols, result)
    return result


_NODE_QUALS: dict[int, tuple[object, frozenset[str]]] = {}
NODE_MEMO_SIZE = 16_384


def _node_qualifiers(lines, first: int, last: int, idents) -> frozenset[str]:
    """Qualifiers of one top-level node, memoized on its identifier table (shared by
    the versions of a file in which the node did not change)."""
    hit = _NODE_QUALS.get(id(idents))
    if hit is not None and hit[0] is idents:
        return hit[1]
    from .evidence import line_attributes
    out: set[str] = set()
    for row in range(first, min(last, len(lines) - 1) + 1):
        line = lines[row]
        if "::" in line or "." in line:
            out.update(q for q, _ in line_attributes(line) if q)
    quals = frozenset(out)
    if len(_NODE_QUALS) >= NODE_MEMO_SIZE:
        _NODE_QUALS.clear()
    _NODE_QUALS[id(idents)] = (idents, quals)
    return quals


def _module_stem(path: str) -> str:
    import os
    directory, base = os.path.split(path)
    stem = base.split(".")[0]
    if stem in ("mod", "lib") or base.endswith(".go"):
        stem = os.path.basename(directory)
    return stem


def _weight(names: Iterable[str], files_defining: Mapping[str, int]) -> float:
    """A file's share of the names the current file uses: exactly rounded (`fsum`),
    so the order a set yields them in (per process) cannot break a tie."""
    return math.fsum(1.0 / files_defining[n] for n in names)


def _defined_names(path: str, workspace) -> frozenset[str]:
    """Names a file defines (for the workspace's boundary-cache lifetime, like the
    imports that led to it, then per analysis, which is cached per file stamp)."""
    key = ("defined-names", path)
    hit = workspace.cache.get(key)
    if hit is None:
        hit = workspace.cache[key] = _names_on_disk(path, workspace)
    return hit


def _names_on_disk(path: str, workspace) -> frozenset[str]:
    from .analysis import analyze
    from .languages import language_for
    spec = language_for("", path)
    text = workspace.read(path)
    stamp = workspace.stamp(path)
    if spec is None or text is None or stamp is None:
        return frozenset()
    a = analyze(spec, text, ("disk", workspace.real(path), stamp))
    hit = _NAMES.get(id(a))
    if hit is not None and hit[0] is a:
        return hit[1]
    names = frozenset(it.name for it in a.items if it.name and it.kind != "import")
    if len(_NAMES) >= NAMES_MEMO_SIZE:
        _NAMES.clear()
    _NAMES[id(a)] = (a, names)
    return names
