"""Names of the family of the ones used around the cursor (Go, Rust).

A name used for the first time has no evidence of its own: no import line names a
same-package Go function, and a method called for the first time on a big type ties
with the type's hundred other methods. What the lines around the cursor do show is
its relatives: `scanFollowsTrue(b)` three lines above `scanFollowsFalse(b)`,
`c.ValidateRequiredFlags()` above `c.ValidateFlagGroups()`, `mapFromPairsToString`
beside `mapFromPairsToRegex`, a `case MapIndex:` above `case SliceIndex:`. Code near
the cursor tends to use names made of the same words, so an entry whose name shares
words with an identifier a few lines away gets a bonus that grows with the share
(Dice coefficient over the names' lower-cased words, plurals folded) and shrinks with
the rows between. Only entries whose name is not used in the file yet are lifted (the
others have evidence of their own), and only by words that say something (not `new`,
`get`, `err`, ...). Not read as relatives: the name a definition line declares, the
current file's own top-level names and Go's predeclared types: their namesakes in
other files are parallels (`GetUint8` and `GetInt8`), not what the code calls.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from .memo import ForLastNeighbors, IdentityMemo, PerAnalysis
from .unused_lift import lift_unused

FAMILY = 0.9  # x100: the bonus for an identical word set on the row next to the cursor
ROWS = 20  # rows above and below the cursor read for relatives
HALF_ROWS = 20.0  # the bonus halves this many rows away
MIN_DICE = 0.5  # below: one shared word of three or more on each side says little
MAX_FAMILY = 8  # more entry names with all the shared words: a common theme, no relative
MAX_POSTING = 60  # a word in more entry names is not followed at all
FAMILY_RESOLVERS = frozenset({"go"})
KINDS = frozenset({"function", "method", "type", "struct", "class", "interface", "enum",
                   "trait", "constant", "variable"})
# words too common to make two names relatives
WEAK_WORDS = frozenset("""new get set is has to from with the of for and or err error
    string str type value func fn make init default test with as at by in on it""".split())
# Go's predeclared types: `uint8` in a signature is no relative of `GetUint8Slice`
BUILTIN_TYPES = frozenset("""bool byte complex64 complex128 error float32 float64 int int8
    int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any""".split())
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# the name a Go definition line declares: `func (f *FlagSet) GetUint8(`, `type x struct`
_DECLARED = re.compile(r"^\s*(?:func\s*(?:\([^)]*\)\s*)?|type\s+)([A-Za-z_]\w*)")
# a Go test, benchmark, example or fuzz test names what it tests: `TestSetReportCaller`
_TEST_FUNC = re.compile(r"^func\s+(?:Test|Benchmark|Example|Fuzz)_?([A-Z]\w*)\s*\(")
SUBJECT_ROWS = 1  # the rows a test's subject counts as away from the cursor


@lru_cache(maxsize=65_536)
def words(name: str) -> frozenset[str]:
    """The lower-cased words of an identifier (`URLHost` -> url, host;
    `scan_follows_false` -> scan, follows, false), plurals folded (`Flags` -> flag)."""
    out = set()
    for w in _WORD.findall(name):
        w = w.lower()
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.add(w)
    return frozenset(out)


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    """How much of two names' words they share, by words that say something."""
    shared = a & b
    if not shared or shared <= WEAK_WORDS:
        return 0.0
    return 2.0 * len(shared) / (len(a) + len(b))


def relatives(lines: Sequence[str], cursor_line: int, anchor: tuple[int, int]
              ) -> dict[str, int]:
    """Identifier -> rows to the cursor of its nearest occurrence, over the ROWS lines
    above and below the cursor inside the anchor (the cursor's own line left out). The
    name a definition line declares is no occurrence: the function around the cursor
    naming itself (`GetUint8`) says its parallels in other files (`GetInt8`,
    `GetUint16`) exist, not that it calls them."""
    lo = max(anchor[0], cursor_line - ROWS, 0)
    hi = min(anchor[1], cursor_line + ROWS, len(lines) - 1)
    out: dict[str, int] = {}
    for row in range(lo, hi + 1):
        d = abs(row - cursor_line)
        if d == 0:
            continue  # the line being typed: its half-words would change the family per key
        line = lines[row]
        m = _DECLARED.match(line)
        declared = m.group(1) if m else None
        for ident in _IDENT.findall(line):
            if ident == declared:
                declared = None  # its first occurrence on the line only
                continue
            if ident in BUILTIN_TYPES:
                continue
            if out.get(ident, ROWS + 1) > d:
                out[ident] = d
    return out


def tested_name(lines: Sequence[str], anchor: tuple[int, int]) -> str | None:
    """What the Go test around the cursor tests, by its name (`func TestSetLevelRace(`
    -> `SetLevelRace`, `func ExampleCommand_Flags(` -> `Command_Flags`): a relative of
    the whole test body, wherever the cursor is in it."""
    lo = anchor[0]
    if not 0 <= lo < len(lines):
        return None
    m = _TEST_FUNC.match(lines[lo])
    return m.group(1) if m else None


def _postings(files: Sequence) -> dict[str, frozenset[str]]:
    """word -> the names of the neighbor entries having it. Each file's part is
    remembered per file version (a file's first request meets a new set of neighbors,
    most of them read before); the names go into each word's set in the order of the
    files and their items, so the sets are built as by one walk over all the items."""
    out: dict[str, set[str]] = {}
    get = out.get
    for f in files:
        for w, names in _file_postings(f.analysis.items).items():
            got = get(w)
            if got is None:
                out[w] = set(names)
            else:
                got.update(names)
    return {w: frozenset(names) for w, names in out.items()}


_FILE_POSTINGS = IdentityMemo(512)  # items -> {word: its names, in item order}


def _file_postings(items: Sequence) -> dict[str, tuple[str, ...]]:
    hit = _FILE_POSTINGS.get(items)
    if hit is not None:
        return hit
    out: dict[str, dict[str, None]] = {}
    for item in items:
        if item.name and item.kind in KINDS:
            for w in words(item.name):
                out.setdefault(w, {})[item.name] = None  # an ordered set
    return _FILE_POSTINGS.put(items, {w: tuple(names) for w, names in out.items()})


postings = ForLastNeighbors(_postings)


def family(shared: frozenset[str], index: dict[str, frozenset[str]]) -> int:
    """How many entry names have all of `shared`: the family they make."""
    sets = sorted((index.get(w, frozenset()) for w in shared), key=len)
    if not sets:
        return 0
    out = sets[0]
    for other in sets[1:]:
        out = out & other
    return len(out)


def bonuses(near: dict[str, int], index: dict[str, frozenset[str]],
            max_family: int = MAX_FAMILY) -> dict[str, float]:
    """Entry name -> its family bonus from the identifiers near the cursor: the best
    Dice share with one of them, by rows, when the words they share are specific (at
    most `max_family` entry names have them all)."""
    out: dict[str, float] = {}
    sizes: dict[frozenset[str], int] = {}  # shared words -> their family's size
    for ident, d in near.items():
        theirs = words(ident)
        strong = [w for w in theirs if w not in WEAK_WORDS and len(w) > 1]
        if not strong:
            continue
        seen: set[str] = set()
        for w in strong:
            names = index.get(w, ())
            if len(names) > MAX_POSTING:
                continue
            for name in names:
                if name in seen or name in near:
                    continue
                seen.add(name)
                mine = words(name)
                if mine == theirs:
                    continue
                s = dice(mine, theirs)
                if s < MIN_DICE:
                    continue
                shared = mine & theirs
                size = sizes.get(shared)
                if size is None:
                    size = sizes[shared] = family(shared, index)
                if size > max_family:
                    continue
                b = 100 * FAMILY * s / (1.0 + d / HALF_ROWS)
                if b > out.get(name, 0.0):
                    out[name] = b
    return out


_LAST: list = [None]  # [(near items, index, bonuses)]: typing on one line keeps both


def _last_bonuses(near: dict[str, int], index: dict[str, frozenset[str]]) -> dict[str, float]:
    """`bonuses`, remembered for the last identifiers and index (the cursor's own line
    is not read, so keystrokes on it ask the same again)."""
    key = tuple(sorted(near.items()))
    hit = _LAST[0]
    if hit is not None and hit[1] is index and hit[0] == key:
        return hit[2]
    found = bonuses(near, index)
    _LAST[0] = (key, index, found)
    return found


def _compute_own(analysis) -> frozenset[str]:
    """The current file's top-level names (not its methods): their relatives in other
    files are parallels (`newUint8Parser` in uint8.go, `newInt8Parser` in int8.go),
    the same pattern for another type, not what this file calls."""
    return frozenset(it.name for it in analysis.items if it.level <= 1 and it.name
                     and it.kind in KINDS and it.kind != "method")


own_names: PerAnalysis[frozenset[str]] = PerAnalysis(_compute_own)


def lift(resolver: str, analysis, files: Sequence, ev, cands: list, cursor_line: int) -> list:
    """The candidates, entries of neighbor files with no use in the file yet raised by
    their family bonus (the same list for other languages)."""
    if resolver not in FAMILY_RESOLVERS or not files:
        return cands
    near = relatives(analysis.lines, cursor_line, ev.anchor)
    subject = tested_name(analysis.lines, ev.anchor)
    if subject and near.get(subject, ROWS + 1) > SUBJECT_ROWS:
        near = {**near, subject: SUBJECT_ROWS}
    own = own_names(analysis)
    if own:
        near = {n: d for n, d in near.items() if n not in own}
    found = _last_bonuses(near, postings(files))
    return lift_unused(cands, files, ev, found, KINDS)
