"""Rust evidence: which `impl` a method call reaches, and which entries say nothing.

Rust methods live in `impl Type` / `impl Trait for Type` blocks, and one crate often
has a `new`, `cast` or `len` in many of them. A call reaches one of them only:

* `Type::method(..)` names it outright (an associated function, `Own::new`);
* `x.method()` reaches the impl of x's type: parameters and fields (`x: &Own<T>`,
  `inner: Own<ErrorImpl>`), `let x = Type::new(..)` / `Type { .. }`, `let x = f(..)`
  where `fn f(..) -> Type`, and `self` inside `impl Type`; or a trait's method, when
  the crate has `impl Trait for Type` (`b: Bytes` with `impl Buf for Bytes` calls
  `Buf::get_u8`; `self` inside `impl Buf for Bytes` too);
* a call whose receivers all have other known types is not a call of it.

Methods of `impl Trait for Type` repeat the trait's signature (`fmt`, `next`,
`into_iter`): they count for less unless the receiver is of that type. Inline
modules of other files are headers with nothing in them, and a `mod tests { .. }`
holds nothing another file can call (nom's `mod tests { fn character() }` was sent).
Type facts of a file are memoized per analysis, declarations per line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from . import ranking as R
from .evidence import Evidence
from .memo import LINE_MEMO_SIZE, ForLastNeighbors, PerAnalysis, union_of
from .neighbors import NeighborFile
from .rust_impl_only import impl_only_types
from .rust_macro_fn import enclosing_fn_name

MAX_SCAN_ROWS = 800
TRAIT_IMPL = 0.6  # a method of `impl Trait for Type`: the trait's signature, repeated
MODULE_ITEM = 0.2  # an inline module's header in another file
TEST_ITEM = 0.02  # ... `mod tests { .. }` and what it holds: callable from nowhere else
TEST_MODULES = frozenset({"tests", "test"})
SHADOWED_BY_PRIMITIVE = 0.3  # a definition named like a primitive type, used unqualified
STD_IMPORTED = 0.1  # a top-level name the file imports from std / core / alloc (`Range`)
PRIMITIVES = frozenset({"u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
                        "i64", "i128", "isize", "f32", "f64", "bool", "char", "str"})
_TYPE = r"(?:&\s*(?:'\w+\s+)?)?(?:mut\s+)?(?:dyn\s+|impl\s+)?(?:[a-z_]\w*::)*([A-Z]\w*)"
_WRAPPERS = frozenset({"Result", "Option", "Box", "Rc", "Arc", "Vec", "RefCell", "Cell"})
# `x: Type` (parameters, fields, `let x: Type`), not `a::b`
_DECL = re.compile(r"\b([a-z_]\w*)\s*(?<!:):(?!:)\s*" + _TYPE + r"(?:<\s*" + _TYPE + ")?")
# `let x = Type::new(`, `let mut x = Type {`, `let x = &Type(`
_LET_TYPE = re.compile(r"\blet\s+(?:mut\s+)?([a-z_]\w*)\s*=\s*&?(?:mut\s+)?"
                       r"(?:[a-z_]\w*::)*([A-Z]\w*)\s*(?:::|\{|\()")
# `let x = it.collect::<Type<_>>()`, `let n = s.parse::<Type>()`: the turbofish's type
_LET_TURBOFISH = re.compile(r"\blet\s+(?:mut\s+)?([a-z_]\w*)\s*=.*?\.(?:collect|parse|into)"
                            r"::<\s*(?:[a-z_]\w*::)*([A-Z]\w*)")
# `let x = y.clone()`: x has y's type
_LET_CLONE = re.compile(r"\blet\s+(?:mut\s+)?([a-z_]\w*)\s*=\s*&?(?:mut\s+)?([a-z_]\w*)\s*"
                        r"\.(?:clone|to_owned)\(\)\s*;")
# `let x = f(`, `let x = module::f(`
_LET_CALL = re.compile(r"\blet\s+(?:mut\s+)?([a-z_]\w*)\s*=\s*(?:[a-z_]\w*::)*([a-z_]\w*)\s*\(")
_RESULT = re.compile(r"->\s*" + _TYPE + r"(?:<\s*" + _TYPE + ")?")
_BOUND_START = re.compile(r"(?<![\w:])([A-Z]\w*)\s*:(?!:)")
_TRAIT = re.compile(r"(?<![\w'])(?:[a-z_]\w*::)*([A-Z]\w*)")
HEADER_ROWS = 12  # a signature with its where clause
_IMPL_FOR = re.compile(r"\bimpl\b.*?\s(?:[a-z_]\w*::)*([A-Z]\w*)(?:<.*>)?\s+for\s")


@lru_cache(maxsize=LINE_MEMO_SIZE)
def line_bindings(line: str) -> tuple[tuple[str, str, str], ...]:
    """(variable, type or callee, how) a line declares: how is "decl" (`x: &Own<T>`,
    `let x = Own::new(`, `let x = it.collect::<Own<_>>()`), "call" (`let x = parse(`)
    or "alias" (`let x = y.clone();`: the variable whose type x has)."""
    if ":" not in line and "let" not in line:
        return ()
    out = []
    for var, outer, inner in _DECL.findall(line):
        out.append((var, _unwrap(outer, inner), "decl"))
    for var, name in _LET_TYPE.findall(line):
        out.append((var, name, "decl"))
    for var, name in _LET_CALL.findall(line):
        out.append((var, name, "call"))
    for var, name in _LET_TURBOFISH.findall(line):
        out.append((var, _unwrap(name, ""), "decl"))
    for var, source in _LET_CLONE.findall(line):
        out.append((var, source, "alias"))
    return tuple(out)


@lru_cache(maxsize=LINE_MEMO_SIZE)
def line_bounds(line: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Generic parameters and their trait bounds on a line: `I: Slice<R> + InputLength,`
    -> (I, (Slice, InputLength)); the bound ends at a `,` `{` `>` `=` outside brackets."""
    if ":" not in line:
        return ()
    out = []
    for m in _BOUND_START.finditer(line):
        depth, i = 0, m.end()
        while i < len(line):
            ch = line[i]
            if ch in "<([":
                depth += 1
            elif ch in ">)]":
                if depth == 0:
                    break
                depth -= 1
            elif ch in ",{=;" and depth == 0:
                break
            i += 1
        text = line[m.end():i]
        # only the traits at depth 0: `Slice<RangeFrom<usize>>` is Slice
        flat, depth = [], 0
        for ch in text:
            if ch == "<":
                depth += 1
            elif ch == ">":
                depth -= 1
            elif depth == 0:
                flat.append(ch)
        traits = tuple(t for t in _TRAIT.findall("".join(flat)) if t not in ("Sized",))
        if traits:
            out.append((m.group(1), traits))
    return tuple(out)


def _unwrap(outer: str, inner: str) -> str:
    """`Box<Foo>` -> Foo; `Own<ErrorImpl>` -> Own."""
    return inner if outer in _WRAPPERS and inner else outer


@lru_cache(maxsize=LINE_MEMO_SIZE)
def result_type(header: str, owner: str | None) -> str | None:
    m = _RESULT.search(header)
    if not m:
        return None
    t = _unwrap(m.group(1), m.group(2))
    return owner if t == "Self" else t


def trait_of_impl(item) -> str | None:
    """`impl<T> fmt::Display for Own<T>` -> Display; None for an inherent impl."""
    head = " ".join(x.strip() for x in item.lines[:3])
    m = _IMPL_FOR.search(head)
    return m.group(1) if m else None


@dataclass(frozen=True)
class FileFacts:
    types: frozenset[str]  # structs, enums, traits, type aliases it defines
    fields: dict[str, frozenset[str]]  # struct field -> its type
    results: dict[str, frozenset[str]]  # function -> its result type
    trait_impls: frozenset[int]  # indices of `impl Trait for Type` items
    implements: dict[str, frozenset[str]] = field(default_factory=dict)  # Type -> Traits


_TYPE_KINDS = frozenset({"struct", "enum", "trait", "type", "class", "interface"})


def _compute_facts(analysis) -> FileFacts:
    types: set[str] = set()
    fields: dict[str, set[str]] = {}
    results: dict[str, set[str]] = {}
    trait_impls: set[int] = set()
    implements: dict[str, set[str]] = {}
    lines = analysis.lines
    items = analysis.items
    for index, item in enumerate(items):
        if item.kind in _TYPE_KINDS:
            types.add(item.name)
            if item.kind == "struct":
                for row in range(item.start + 1, min(item.end, len(lines))):
                    for var, t, how in line_bindings(lines[row]):
                        if how == "decl":
                            fields.setdefault(var, set()).add(t)
        elif item.kind == "impl":
            trait = trait_of_impl(item)
            if trait:
                trait_impls.add(index)
                if item.name and item.name != trait:
                    implements.setdefault(item.name, set()).add(trait)
        elif item.kind == "function" and item.lines:
            owner = items[item.parent].name if item.parent != -1 else None
            t = result_type(" ".join(item.lines[:4]), owner)
            if t:
                results.setdefault(item.name, set()).add(t)
    return FileFacts(frozenset(types), {k: frozenset(v) for k, v in fields.items()},
                     {k: frozenset(v) for k, v in results.items()}, frozenset(trait_impls),
                     {k: frozenset(v) for k, v in implements.items()})


# types, struct fields and function results of a file, memoized per analysis
file_facts: PerAnalysis[FileFacts] = PerAnalysis(_compute_facts)


def _merge(files: Sequence[NeighborFile]) -> tuple[dict, dict, dict]:
    """The neighbors' struct fields, function results and trait impls in one."""
    facts = [file_facts(f.analysis) for f in files]
    return (union_of(f.fields for f in facts), union_of(f.results for f in facts),
            union_of(f.implements for f in facts))


merged_facts: ForLastNeighbors[tuple[dict, dict, dict]] = ForLastNeighbors(_merge)


@dataclass(frozen=True)
class Receivers:
    local: dict[str, frozenset[str]]  # variable -> type names
    fields: tuple[dict[str, frozenset[str]], ...]  # neighbors', current file's
    # type -> the traits it has here: bounds of the generic parameters in scope
    # (`impl<B: Buf> Reader<B>`), traits the crate implements for it (`impl Buf for Bytes`)
    traits: dict[str, frozenset[str]] = field(default_factory=dict)
    # the traits the anchor's generic parameters are bound by (`F: Float`, `where E:
    # FromExternalError<I, E2>`), its impl block's included
    bounds: frozenset[str] = frozenset()

    def of(self, qualifier: str) -> frozenset[str]:
        got = self.local.get(qualifier)
        if got:
            return got
        out: frozenset[str] = frozenset()
        for f in self.fields:
            out = out | f.get(qualifier, frozenset())
        for t in out:  # a field `buf: B` has B's bounds' methods
            out = out | self.traits.get(t, frozenset())
        return out


def receivers(analysis, files: Sequence[NeighborFile], anchor: tuple[int, int]) -> Receivers:
    """The types of the variables the anchor declares (its first MAX_SCAN_ROWS lines),
    and `self` inside an impl."""
    fields, results, implements = merged_facts(files)
    own = file_facts(analysis)
    lines = analysis.lines
    lo, hi = anchor
    first = max(0, lo)
    last = min(hi, len(lines) - 1, first + MAX_SCAN_ROWS)
    local: dict[str, set[str]] = {}
    for row in range(first, last + 1):
        for var, name, how in line_bindings(_let_line(lines, row)):
            if how == "call":
                got = results.get(name, frozenset()) | own.results.get(name, frozenset())
                if got:
                    local.setdefault(var, set()).update(got)
            elif how == "alias":
                if name in local:
                    local.setdefault(var, set()).update(local[name])
            else:
                local.setdefault(var, set()).add(name)
    owner, impl_lines = _impl_around(analysis, lo)
    if owner:
        local["self"] = {owner}
    bounds: dict[str, set[str]] = {}
    head = _header_row(lines, first, last)
    for line in list(lines[head:min(last, head + HEADER_ROWS) + 1]) + list(impl_lines):
        for param, traits in line_bounds(line):
            bounds.setdefault(param, set()).update(traits)
    if bounds:  # `input: I` with `I: InputLength`: input has InputLength's methods
        for types in local.values():
            for t in list(types):
                types.update(bounds.get(t, ()))
    for types in local.values():  # `b: Bytes` with `impl Buf for Bytes`: Buf's methods
        for t in list(types):
            types.update(implements.get(t, ()))
            types.update(own.implements.get(t, ()))
    traits = {t: frozenset(b) for t, b in bounds.items()}
    for t, b in list(implements.items()) + list(own.implements.items()):
        traits[t] = traits.get(t, frozenset()) | b
    return Receivers({k: frozenset(v) for k, v in local.items()}, (fields, own.fields),
                     traits, frozenset(t for b in bounds.values() for t in b))


def _let_line(lines, row: int) -> str:
    """The line, with the next one when it ends a `let x =` (rustfmt breaks a long
    binding there: `let mut cls =` above `hir::ClassBytes::new(..)`)."""
    line = lines[row]
    if row + 1 < len(lines) and line.endswith("=") and "let" in line:
        return line + " " + lines[row + 1].strip()
    return line


def _header_row(lines, first: int, last: int) -> int:
    """The first row of a definition's signature: below its doc comment and
    attributes (nom's parsers open with 20 lines of `///` examples)."""
    row = first
    while row < last and lines[row].lstrip().startswith(("//", "#[", "#![")):
        row += 1
    return row


def _impl_around(analysis, row: int) -> tuple[str | None, tuple[str, ...]]:
    """The type and header lines of the impl block holding the definition that starts
    at `row` (None, () outside one)."""
    items = analysis.items
    for item in items:
        if item.start == row and item.kind != "import":
            if item.parent != -1 and items[item.parent].kind in ("impl", "trait"):
                parent = items[item.parent]
                return parent.name, parent.lines
            return None, ()
    return None, ()


SCORE_FLOOR = 5.0  # below: no evidence at all (fill), nothing to revise


def revise(analysis, files: Sequence[NeighborFile], ev: Evidence, cands: list) -> list:
    """Rust members rescored by the impl their calls reach (see the module docstring)."""
    recv = receivers(analysis, files, ev.anchor)
    trait_impls = [file_facts(f.analysis).trait_impls for f in files]
    items_of = [f.analysis.items for f in files]
    calls: dict[str, CallTypes | None] = {}
    std_names = std_imported(analysis)
    stems = [_stem(f.path) for f in files] if std_names else []
    echoed = echoed_names(analysis, ev.anchor)
    sizes = _trait_sizes(files, recv.bounds) if recv.bounds else None
    makers = _makers(analysis, files, ev.anchor)
    impl_only = impl_only_types(analysis, files, ev.bound, std_names)
    out = []
    for c in cands:
        if makers and c.file >= 0 and (c.file, c.item) in makers and c.score < MAKER_SCORE:
            out.append(c.rescored(MAKER_SCORE))
            continue
        if sizes and c.file >= 0:
            lifted = _bound_member(items_of[c.file], c, sizes[c.file])
            if lifted is not None:
                out.append(lifted)
                continue
        if echoed and c.file >= 0 and c.score < ECHO_SCORE and \
                _echoes(items_of[c.file], c.item, echoed):
            # `fn test_insert_many_overflow`: `insert_many` is what it exercises
            out.append(c.rescored(ECHO_SCORE))
            continue
        if c.file < 0 or c.score < SCORE_FLOOR:
            out.append(c)
            continue
        items = items_of[c.file]
        item = items[c.item]
        if item.name in TEST_MODULES and item.kind == "module" or item.parent != -1 and \
                items[item.parent].kind == "module" and items[item.parent].name in TEST_MODULES:
            out.append(c.rescored(c.score * TEST_ITEM))
            continue
        if item.kind == "module":
            out.append(c.rescored(c.score * MODULE_ITEM))
            continue
        if item.name in PRIMITIVES:  # nom's `fn u8(..)`: a plain `u8` is the type
            use = ev.uses.get(item.name)
            if use is None or not use.qualified:
                out.append(c.rescored(c.score * SHADOWED_BY_PRIMITIVE))
                continue
        if item.parent == -1 and item.name in std_names:
            # `use std::cmp::{max, min}`: the file's `min` is std's, not the crate's
            use = ev.uses.get(item.name)
            if use is None or not (use.qualifiers & {stems[c.file], "crate", "self", "super"}):
                out.append(c.rescored(c.score * STD_IMPORTED))
                continue
        if item.kind == "impl" and item.name in impl_only:
            # a type declared in a macro body: its impl headers are all there is of it
            out.append(c.rescored(c.score / R.IMPL))
            continue
        if item.parent == -1 or item.kind == "import":
            out.append(c)
            continue
        trait_impl = item.parent in trait_impls[c.file]
        name = item.name
        if name not in calls:
            calls[name] = call_types(name, ev, recv)
        parent = items[item.parent]
        score = member_score(calls[name], parent.name,
                             parent.kind == "trait" and parent.name in ev.bound)
        if score is None:
            if not trait_impl:
                out.append(c)
                continue
            score = c.score * TRAIT_IMPL
        out.append(c.rescored(score))
    if echoed and ECHO_FLOOR:  # one candidate out per candidate in
        out = [_echo_floor(o, c, items_of, echoed) if o.score < ECHO_SCORE <= c.score else o
               for o, c in zip(out, cands)]
    return out


ECHO_FLOOR = True


def _echo_floor(revised, c, items_of, echoed: frozenset[str]):
    """An echoed function scored at least ECHO_SCORE before its calls were weighed
    keeps ECHO_SCORE: `test_insert_many_overflow`'s `v.insert_many(..)`, its only use
    the line being written, scored 91 by its name's evidence and 37 by its far calls."""
    if c.file < 0 or revised.score >= ECHO_SCORE or c.score < ECHO_SCORE or \
            not _echoes(items_of[c.file], c.item, echoed):
        return revised
    return revised.rescored(ECHO_SCORE)


MAKER_SCORE = 85.0  # a neighbor's function making the type the anchor returns
MAX_MAKERS = 3  # ... when no more than this many do (nom's parsers all make `IResult`)


def _makers(analysis, files: Sequence[NeighborFile], anchor: tuple[int, int]
            ) -> frozenset[tuple[int, int]]:
    """(file, item) of the neighbors' top-level functions whose result is the type the
    anchor function returns: itertools' `fn merge_by(..) -> MergeBy<..>` is written
    `adaptors::merge_by_new(self, ..)`, and that call is often its whole body."""
    lo, hi = anchor
    item = next((it for it in analysis.items if it.start == lo and it.kind in _CALLABLE), None)
    if item is None or not item.lines:
        return frozenset()
    lines = analysis.lines
    head = _header_row(lines, lo, hi)
    wanted = result_type(" ".join(lines[head:min(hi, head + 4) + 1]), None)
    if not wanted or wanted == "Self" or wanted in _WRAPPERS:  # `Result<(), E>`: unknown
        return frozenset()
    out = []
    for f_index, f in enumerate(files):
        results = file_facts(f.analysis).results
        for i, it in enumerate(f.analysis.items):
            if it.parent == -1 and it.kind == "function" and wanted in results.get(it.name, ()):
                out.append((f_index, i))
                if len(out) > MAX_MAKERS:
                    return frozenset()
    return frozenset(out)


BOUND_MEMBER = 60.0  # a member of a trait the anchor's generic parameters are bound by
BOUND_ROOM = 8  # ... full score for a trait of this many members, less for a larger one


def _trait_sizes(files: Sequence[NeighborFile], bounds: frozenset[str]
                 ) -> list[dict[int, int]]:
    """Per neighbor file: its traits named in `bounds` (item index -> member count)."""
    out = []
    for f in files:
        items = f.analysis.items
        found = {i: 0 for i, it in enumerate(items) if it.kind == "trait" and it.name in bounds}
        if found:
            for it in items:
                if it.parent in found:
                    found[it.parent] += 1
        out.append(found)
    return out


def _bound_member(items, c, traits: dict[int, int]):
    """`c` lifted to BOUND_MEMBER when it is a member of a bound trait: `F: Float` asks
    for Float's associated items (`F::EXPONENT_BIAS`, `b.is_special()` with `b: F`),
    whose only use may be the line being written. None when it is not, or scores more."""
    parent = items[c.item].parent
    if parent not in traits:
        return None
    score = BOUND_MEMBER * min(1.0, BOUND_ROOM / max(1, traits[parent]))
    return c.rescored(score) if score > c.score else None


ECHO_SCORE = 90.0  # a function the enclosing function's name spells (its test, its variant)
MACRO_FN_ECHO = True  # ... a `fn` inside a macro invocation too (`rust_macro_fn`)
_CALLABLE = frozenset({"function", "method"})


def echoed_names(analysis, anchor: tuple[int, int]) -> frozenset[str]:
    """The names the enclosing function's name spells as a proper part of itself,
    words joined by `_` (`test_insert_many_overflow`: `insert_many`, `overflow`, ...;
    `grow_to_shrink`: `grow`, `shrink`): Rust tests are named after what they call.
    Words under three letters alone, and the whole name (a forwarding `fn len` calls
    a namesake as often as not), are left out."""
    lo, hi = anchor
    name = next((it.name for it in analysis.items if it.start == lo and
                 it.kind in _CALLABLE), None)
    if name is None and lo == hi and MACRO_FN_ECHO:  # `quickcheck! { fn test_x(..) { .. } }`
        name = enclosing_fn_name(analysis.lines, lo)
    if not name or "_" not in name:
        return frozenset()
    words = [w for w in name.split("_") if w]
    out = set()
    for i in range(len(words)):
        for j in range(i + 1, len(words) + 1):
            part = "_".join(words[i:j])
            if j - i < len(words) and len(part) >= 3:
                out.add(part)
    return frozenset(out - {"test", "tests", "new"})


def _echoes(items, index: int, echoed: frozenset[str]) -> bool:
    """A function named in `echoed`, outside a neighbor's `mod tests`."""
    item = items[index]
    if item.name not in echoed or item.kind not in _CALLABLE:
        return False
    parent = items[item.parent] if item.parent != -1 else None
    return not (parent is not None and parent.kind == "module" and
                parent.name in TEST_MODULES)


_STD_USE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+:{0,2}(?:std|core|alloc)::")
_USE_WORDS = frozenset({"use", "pub", "crate", "self", "super", "as", "std", "core", "alloc"})


def _compute_std_imported(analysis) -> frozenset[str]:
    """The names the file's `use std::..` / `core::` / `alloc::` statements bind,
    inline modules' included (the path's segments too: `use std::fmt;` binds `fmt`),
    `as` renames excepted."""
    out: set[str] = set()
    lines = analysis.lines
    rows = sorted(r for r in analysis.import_lines if r < len(lines))
    k = 0
    while k < len(rows):
        first = k
        while ";" not in lines[rows[k]] and k + 1 < len(rows) and rows[k + 1] == rows[k] + 1:
            k += 1
        k += 1
        if not _STD_USE.match(lines[rows[first]]):
            continue
        text = " ".join(lines[r] for r in rows[first:k])
        renamed = set(re.findall(r"\b([A-Za-z_]\w*)\s+as\s+[A-Za-z_]\w*", text))
        for ident in re.findall(r"[A-Za-z_]\w*", text):
            if ident not in _USE_WORDS and ident not in renamed:
                out.add(ident)
    return frozenset(out)


std_imported = PerAnalysis(_compute_std_imported)


def _stem(path: str) -> str:
    from .evidence_lang import _module_stem
    return _module_stem(path)


@dataclass(frozen=True)
class CallTypes:
    """What the calls of one method name tell about the impl they reach."""

    near: float
    freq: float
    paths: frozenset[str]  # `Type::name`: the types named
    typed: frozenset[str]  # the types of the receivers of `x.name`
    all_typed: bool  # every call's receiver (or path) has a known type


def call_types(name: str, ev: Evidence, recv: Receivers) -> CallTypes | None:
    use = ev.uses.get(name)
    if use is None or not use.attribute or R._dunder(name):
        return None
    typed: set[str] = set()
    paths: set[str] = set()
    all_typed = "" not in use.qualifiers
    for q in use.qualifiers:
        if q == "Self" or (q and not q[:1].isupper()):
            t = recv.of("self" if q == "Self" else q)
            typed |= t
            all_typed = all_typed and bool(t)
        elif q:
            paths.add(q)
    return CallTypes(R._near(use.distance), R._freq(use.nodes), frozenset(paths),
                     frozenset(typed), all_typed)


def member_score(calls: CallTypes | None, owner: str, imported_trait: bool = False
                 ) -> float | None:
    """A method's score from the types its calls reach; None keeps the neutral one.
    `imported_trait`: the owner is a trait the file imports by name (`use
    itertools::Itertools;`), which Rust asks for only to call its methods, on any
    type implementing it (blanket impls: `impl<T: Iterator> Itertools for T`)."""
    if calls is None:
        return None
    if owner in calls.paths:  # `Own::new(..)`
        return 100 * R.QUALIFIED * calls.near + calls.freq
    if owner in calls.typed:
        return 100 * R.TYPED_MEMBER * calls.near + calls.freq
    if calls.all_typed:  # every call reaches another type's
        weight = R.MEMBER if imported_trait else R.LOOSE_MEMBER
        return 100 * weight * calls.near + calls.freq
    return None
