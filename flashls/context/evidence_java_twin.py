"""Java: a method's twin in a sibling class says what the method's body calls.

The JDK (and code like it) writes one method many times over, once per sibling class:
`LocalDateTime.now(ZoneId zone)` is `return now(Clock.system(zone));` as
`LocalTime.now(ZoneId zone)` is; `DoublePipeline.evaluateToNode(..)` calls
`Nodes.collectDouble(..)` where `IntPipeline.evaluateToNode(..)` calls
`Nodes.collectInt(..)`; `VarHandleDoubles.FieldInstanceReadOnly.accessModeType` is
`VarHandleInts`' with `double.class`. The names the twin's body uses are what the
blanked line most likely calls, and nothing else points at them: `Clock.system`
scored 58 against a cut at 75, `Nodes.collectDouble` 37 against 77.

A twin is a method of the same name and parameter count whose class shares a word
with the enclosing method's class (`IntPipeline` / `DoublePipeline`, `LocalDate` /
`LocalDateTime`), in a neighbor file or elsewhere in the current file. When the two
class names differ in one word each (`Int` / `Double`), the twin's names are read
with that word replaced (`collectInt` -> `collectDouble`, `longBuilder` ->
`intBuilder`). Each neighbor entry so named is raised to TWIN_SCORE (used in the file
or not: a javadoc `{@link Clock#systemDefaultZone()}` counts as a use). Only the names
the body calls, reaches through a `.` or capitalizes count, not its plain locals.

A same-named method of a class sharing no word lends only the names built on its
class's name, swapped for the enclosing one's (`LocalDate.writeReplace`'s
`Ser.LOCAL_DATE_TYPE` is `Ser.YEAR_TYPE` in `Year`). Methods of nested classes are no
outline items: they and their twins in the current file are found in its text.

Dev + tuning pool (1,488): 1,344 -> 1,357 (+11 twins, +2 renamed, -0); dev 89.5 ->
91.5 %. Not kept: twins between classes sharing a supertype (no change), methods named
one word apart (`mapMultiToInt` for `mapMultiToLong`: +1 -1), TWIN_SCORE 75 (-2).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from .evidence_java_params import param_names
from .memo import LINE_MEMO_SIZE, PerAnalysis

TWIN_SCORE = 85.0  # floor of an entry a twin's body names
MAX_BODY_ROWS = 40  # a longer twin says too much to be a twin
RENAMED = True  # a same-named method of any class: the names built on its class name
REACHED_ONLY = True  # called, after a `.`, or capitalized: no plain locals
NESTED = True  # methods of nested classes, twins in the current file
USED = True  # names the file uses too (a javadoc `{@link Clock#systemDefaultZone()}`)
METHOD_KINDS = frozenset({"method", "constructor", "function"})
CLASS_KINDS = frozenset({"class", "interface", "enum", "record"})
LIFT_KINDS = frozenset({"method", "constructor", "function", "class", "interface", "enum",
                        "constant", "field", "variable", "type", "record"})
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
# a name the body calls, reaches through a `.`, or a type or constant (capitalized);
# not its plain locals and parameters (`helper`, `size`), which name nothing elsewhere
_REACHED = re.compile(r"(?<=\.)\s*([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)(?=\s*\()|\b([A-Z][\w$]*)")


def _names(text: str) -> set[str]:
    if not REACHED_ONLY:
        return set(_IDENT.findall(text))
    return {a or b or c for a, b, c in _REACHED.findall(text)}


def words(name: str) -> tuple[str, ...]:
    """CamelCase words (`IntPipeline` -> ("Int", "Pipeline"))."""
    return tuple(_WORD.findall(name))


def enclosing(items: Sequence, row: int) -> int:
    """Index of the innermost method or constructor whose lines hold `row`; -1."""
    best = -1
    for k, it in enumerate(items):
        if it.kind in METHOD_KINDS and it.start <= row <= it.end and it.parent != -1:
            if best < 0 or it.start >= items[best].start:
                best = k
    return best


def _arity(item) -> int:
    head = " ".join(item.lines[:3])
    at = head.find(item.name + "(")
    if at < 0:
        at = head.find(item.name)
    return len(param_names(head[at:] if at >= 0 else head))


def swap(a: str, b: str) -> tuple[str, str] | None:
    """(word of `a`, word of `b`) when the two names differ in one word each and share
    the rest (`IntPipeline`, `DoublePipeline` -> ("Int", "Double")); None otherwise."""
    wa, wb = words(a), words(b)
    if len(wa) != len(wb):
        return None
    diff = [(x, y) for x, y in zip(wa, wb) if x != y]
    return diff[0] if len(diff) == 1 else None


def replaced(name: str, pair: tuple[str, str]) -> str:
    """`name` with the word pair[0] replaced by pair[1], in either case of its first
    letter (`collectInt` -> `collectDouble`, `intBuilder` -> `doubleBuilder`)."""
    old, new = pair
    ws = words(name)
    if "".join(ws) != name:  # `_` or `$` in it: left as it is
        return name
    low_old, low_new = old[:1].lower() + old[1:], new[:1].lower() + new[1:]
    return "".join(new if w == old else low_new if w == low_old else w for w in ws)


def renamed(name: str, old: tuple[str, ...], new: tuple[str, ...]) -> str:
    """`name` with the word run `old` (a class's name) replaced by `new`, in camel
    case or upper snake case (`LOCAL_DATE_TYPE` -> `YEAR_TYPE` for LocalDate ->
    Year); `name` itself when the run is not in it."""
    n = len(old)
    if "_" in name and name.upper() == name:
        parts = name.split("_")
        low = [w.upper() for w in old]
        for i in range(len(parts) - n + 1):
            if parts[i:i + n] == low:
                return "_".join(parts[:i] + [w.upper() for w in new] + parts[i + n:])
        return name
    ws = list(words(name))
    if "".join(ws) != name:
        return name
    for i in range(len(ws) - n + 1):
        if [w.lower() for w in ws[i:i + n]] == [w.lower() for w in old]:
            rep = list(new)
            if ws[i][:1].islower():
                rep[0] = rep[0][:1].lower() + rep[0][1:]
            return "".join(ws[:i] + rep + ws[i + n:])
    return name


def _body_names(lines: Sequence[str], item) -> set[str]:
    """The identifiers of an item's body (its lines after the header's `{`)."""
    if item.end - item.start > MAX_BODY_ROWS:
        return set()
    text = "\n".join(lines[item.start:item.end + 1])
    brace = text.find("{")
    if brace < 0:
        return set()
    return _names(text[brace + 1:])


def _compute_methods(analysis) -> dict[str, tuple[int, ...]]:
    """Method name -> indices of the member methods so named (per analysis)."""
    out: dict[str, list[int]] = {}
    for j, it in enumerate(analysis.items):
        if it.kind in METHOD_KINDS and it.parent != -1:
            out.setdefault(it.name, []).append(j)
    return {n: tuple(v) for n, v in out.items()}


_methods_named: PerAnalysis[dict[str, tuple[int, ...]]] = PerAnalysis(_compute_methods)


def twin_names(analysis, files: Sequence, cursor_line: int) -> set[str]:
    """The names the twins of the method the cursor is in use (their class words
    swapped for the enclosing class's); empty when there is no twin."""
    items = analysis.items
    k = enclosing(items, cursor_line)
    if k < 0:
        return nested_twin_names(analysis.lines, items, cursor_line) if NESTED else set()
    me = items[k]
    owner = items[me.parent].name
    owner_words = set(words(owner))
    arity = _arity(me)
    found: set[str] = set()
    sources = [(analysis, True)] + [(f.analysis, False) for f in files]
    for source, current in sources:
        its = source.items
        for j in _methods_named(source).get(me.name, ()):
            it = its[j]
            if current and j == k:
                continue
            their = its[it.parent].name
            if their == owner and current:
                continue  # an overload of the method itself
            if _arity(it) != arity:
                continue
            if not owner_words & set(words(their)):
                if RENAMED and their != owner:  # any class: only its own name swapped
                    old, new = words(their), words(owner)
                    body = _body_names(source.lines, it)
                    found |= {renamed(n, old, new) for n in body} - body
                continue
            names = _body_names(source.lines, it)
            pair = swap(their, owner)
            if pair is not None:
                names = {replaced(n, pair) for n in names} | names
            found |= names
    found.discard(me.name)
    return found


def lift_twins(cands: list, analysis, files: Sequence, ev, cursor_line: int) -> list:
    """`cands` with each unused neighbor entry a twin's body names raised to
    TWIN_SCORE."""
    if not files or not TWIN_SCORE:
        return cands
    names = twin_names(analysis, files, cursor_line)
    if not names:
        return cands
    out = list(cands)
    for i, c in enumerate(cands):
        if c.file < 0 or c.score >= TWIN_SCORE:
            continue
        item = files[c.file].analysis.items[c.item]
        if item.name in names and item.kind in LIFT_KINDS and (USED or item.name not in ev.uses):
            out[i] = c.rescored(TWIN_SCORE)
    return out


# methods of nested classes (`Streams.LongStreamBuilderImpl.build`, the access modes
# of `VarHandleDoubles.FieldInstanceReadOnly`) are no outline items: they and their
# twins in the current file are found in its text
_HEAD = re.compile(r"([A-Za-z_$][\w$]*)\s*\(([^()]*)\)\s*(?:throws\s+[\w$.,\s]+)?$")
_CLASS = re.compile(r"\b(?:class|interface|enum|record)\s+([A-Za-z_$][\w$]*)")
_NOT_METHODS = frozenset({"if", "for", "while", "switch", "catch", "synchronized", "try",
                          "do", "else", "return", "new", "throw"})
_BRACE = re.compile(r"[{}]")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')


@lru_cache(maxsize=LINE_MEMO_SIZE)
def _code(line: str) -> str:
    """A line without its strings, char literals and comment (roughly: braces in
    them must not count; per line, the same every request)."""
    t = line.strip()
    if t.startswith(("*", "/*", "//")):
        return ""
    t = _STRING.sub('""', t)
    cut = t.find("//")
    return t if cut < 0 else t[:cut]


def _openers(lines: Sequence[str], row: int, lo: int = 0):
    """(row, text before it) of each `{` that opens a block holding `row`, innermost
    first, scanning up to `lo`."""
    depth = 0
    for r in range(row - 1, lo - 1, -1):
        raw = lines[r]
        if "{" not in raw and "}" not in raw:
            continue
        line = _code(raw)
        for m in reversed(list(_BRACE.finditer(line))):
            if m.group() == "}":
                depth += 1
            elif depth:
                depth -= 1
            else:
                yield r, line[:m.start()]


def _header(lines: Sequence[str], row: int, before: str) -> str:
    """The declaration text a `{` at `row` closes (up to three lines above it)."""
    text = " ".join(_code(lines[r]) for r in range(max(0, row - 3), row)) + " " + before
    cut = max(text.rfind(";"), text.rfind("}"), text.rfind("{"))
    return _ANNOTATION.sub(" ", text[cut + 1:]).strip()


_ANNOTATION = re.compile(r"@[\w.]+(\([^()]*\))?")


def _blocks(lines: Sequence[str], row: int, lo: int
            ) -> tuple[str, tuple[str, ...], str] | None:
    """(method name, its parameter names, its class) of the method whose body holds
    `row` (any depth of nesting below line `lo`); None outside a method."""
    method = None
    for r, before in _openers(lines, row, lo):
        head = _header(lines, r, before)
        c = _CLASS.search(head)
        if c:
            return (method[0], method[1], c.group(1)) if method else None
        m = _HEAD.search(head)
        if m and m.group(1) not in _NOT_METHODS and method is None:
            if head[:m.start()].strip().endswith(("new", "=", "(", ",", "return", ".")) or \
                    not head[:m.start()].strip():
                continue  # a call or an anonymous class, not a declaration
            method = (m.group(1), param_names("(" + m.group(2) + ")"))
        elif method is None and m is None:
            continue
    return None


def _body_text(lines: Sequence[str], row: int) -> set[str]:
    """Identifiers of the block opened on `row` (or the next lines), up to its
    closing brace and at most MAX_BODY_ROWS rows."""
    depth = 0
    out: set[str] = set()
    opened = False
    for r in range(row, min(len(lines), row + MAX_BODY_ROWS + 1)):
        line = _code(lines[r])
        start = 0
        if not opened:
            b = line.find("{")
            if b < 0:
                if ";" in line:
                    return set()
                continue
            opened = True
            start = b
        seg = line[start:]
        depth += seg.count("{") - seg.count("}")
        out.update(_names(line[start + 1 if r == row or start else 0:]))
        if opened and depth <= 0:
            return out
    return set()


def _nested_classes(items: Sequence) -> list:
    """The member classes (outline level 2) of a file: their methods are no items."""
    return [it for it in items if it.parent != -1 and it.kind in CLASS_KINDS]


def nested_twin_names(lines: Sequence[str], items: Sequence, cursor_line: int) -> set[str]:
    """`twin_names` for a method of a nested class: its twins in the current file's
    other nested classes."""
    nested = _nested_classes(items)
    mine = [it for it in nested if it.start <= cursor_line <= it.end]
    if not mine:
        return set()
    found_me = _blocks(lines, cursor_line, mine[0].start)
    if found_me is None:
        return set()
    name, params, owner = found_me
    decl = re.compile(r"(?<![\w$.])[\w$]+(?:<[^;(){}]*>)?(?:\[\])*\s+" + re.escape(name) +
                      r"\s*\(")
    found: set[str] = set()
    owner_words = set(words(owner))
    for it in nested:
        if it is not mine[0] and not owner_words & set(words(it.name)):
            continue  # a twin's class shares a word with the owner (checked below)
        for r in range(it.start, min(it.end + 1, len(lines))):
            if r != cursor_line and name in lines[r]:
                found |= _twin_at(lines, r, it.start, decl, (name, params, owner))
    found.discard(name)
    return found


def _twin_at(lines: Sequence[str], r: int, lo: int, decl: re.Pattern,
             me: tuple[str, tuple[str, ...], str]) -> set[str]:
    """The names the body of a twin of `me` declared on row `r` uses (swapped to
    `me`'s class); empty when that row declares no twin."""
    name, params, owner = me
    line = lines[r]
    m = decl.search(line)
    if not m or line[:m.start()].rstrip().endswith(("new", "return", "throw", "else")):
        return set()
    if len(param_names(line[m.end() - 1:])) != len(params):
        return set()
    here = _blocks(lines, r + 1, lo)
    if here is None or here[0] != name or here[2] == owner or \
            not set(words(owner)) & set(words(here[2])):
        return set()
    names = _body_text(lines, r)
    pair = swap(here[2], owner)
    return {replaced(n, pair) for n in names} | names if pair is not None else names
