"""Go evidence: which type a method call's receiver has.

A Go method is declared at top level with its receiver (`func (c *Command) Name()`),
and many types of one package often share a method name (`Values`, `Equal`,
`String`). A call `x.Name()` reaches the method of x's type only, so the types of the
variables around the cursor decide between them:

* parameters, receivers and `var` declarations (`c *Command`, `var buf bytes.Buffer`),
  lower-case (unexported) types included;
* composite literals and constructors (`r := &Route{}`, `e := NewEntry(l)`, whose
  type is the constructor's declared result);
* struct fields (`d.p.Expression()`: the field `p *Parser` of some struct), and
  variables read from one (`r := test.route`: the field `route *Route`); a field the
  anchor calls a method on puts its type's other methods at hand too
  (`d.strict.EnterTable()` above, `d.strict.MissingTable()` next); a documented
  struct's fields as an undocumented one's (an item starts at its doc comment);
* type assertions (`bp := NewBasePathFs(fs, dir).(*BasePathFs)`: `bp` is a
  `BasePathFs`, not the `Fs` the constructor returns);
* interfaces: a call of a method an interface lists on a value of the interface
  (`fe.Tag()` with `fe FieldError`) runs the method of a type implementing it (a
  type whose methods in the files read include every method the interface lists:
  `*fieldError`, the exported interface's one unexported implementation), which
  scores as a typed member, shared out among the implementations.

A method whose receiver type is known to be another type (`t *testing.T` calling
`t.Errorf`, not the test helper `fakeT.Errorf`) is probably not the one used; a
method name used only without a receiver (a local of the same name) is not a call of
it; but a method named only plainly (a test's message string: `t.Errorf("GetQueries
not equal")`) while a variable of its type is at hand is likely called, not less
likely than the type's unnamed methods. A package function whose name the file
uses only after a selector (`cstUpgrader.Upgrade(..)`, never `Upgrade(..)` in code:
`evidence.NameUse.plain`) and never on an import name is a method's namesake, not
what is called (unless the file calls the package's method wrappers plainly, as
viper's tests call `SetDefault(..)` beside `v.SetDefault(..)`); one named only in a
message string, with a value of a type having a method of that name at hand, yields
to that method. A constant of a `const ( .. )` block another
of whose constants is used near the cursor is likely next (an iota enumeration is
used a few at a time). An unexported name of another package (`toml.parseInteger`
beside `toml.NewEncoder`) cannot be named from the current file at all. What similar
files of the package use: `evidence_go_pkg.py`. Type facts of a file are memoized
per analysis (neighbors are re-read only when they change) and per line (the lines
around the cursor).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from . import ranking as R
from .evidence import FAR, Evidence, _plain_in
from .evidence_go_members import module_factor, size_factor
from .evidence_go_pkg import lift as lift_co_used
from .evidence_go_shadow import demote as demote_shadowed
from .memo import LINE_MEMO_SIZE, ForLastNeighbors, PerAnalysis, union_of
from .neighbors import NeighborFile

UNEXPORTED = 0.05  # an unexported name of another package (`toml.parseInteger`): unreachable
MESSAGE_ONLY = 0.35  # a function named only in strings beside a typed method namesake
SIBLING = 0.5  # a constant of a `const ( .. )` block another of whose constants is used
MAX_SCAN_ROWS = 800  # lines of the anchor read for declarations (a huge test table)
_KEYWORDS = frozenset({"return", "case", "go", "defer", "range", "else", "func", "type",
                       "package", "import", "struct", "interface", "map", "chan", "const",
                       "var", "if", "for", "switch", "select", "break", "continue",
                       "default", "goto", "fallthrough", "nil", "true", "false"})
# `name Type`, `name *pkg.Type`, `name ...Type` (parameters, fields, var declarations)
_DECL = re.compile(r"\b([A-Za-z_]\w*)\s+(?:\.\.\.)?\*?(?:([A-Za-z_]\w*)\.)?([A-Za-z_]\w*)\b")
# `x := &T{`, `x = T{`, `x, err := pkg.F(`, `x := y.M(`
_ASSIGN = re.compile(r"\b([A-Za-z_]\w*)(?:\s*,\s*[A-Za-z_]\w*)*\s*:?=\s*&?"
                     r"(?:([A-Za-z_]\w*)\.)?([A-Za-z_]\w*)\s*([({])")
# `route := test.route`, `w = s.writer`: a struct field read
_FIELD_READ = re.compile(r"\b([A-Za-z_]\w*)\s*:?=\s*&?([A-Za-z_]\w*)\.([A-Za-z_]\w*)\s*$")
_RECEIVER = re.compile(r"^\s*func\s*\(\s*\w*\s*\*?\s*([A-Za-z_]\w*)")
_FUNC = re.compile(r"^\s*func\s*(?:\([^)]*\)\s*)?([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\(")
_METHOD_SPEC = re.compile(r"^\s+([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\(")  # `\tTag() string`
# `s, ok := x.(*T)`, `fs := New(..).(pkg.T)`: a type assertion
_ASSERTED = re.compile(r"\b([A-Za-z_]\w*)(?:\s*,\s*[A-Za-z_]\w*)?\s*:?=\s*[^=;]*?"
                       r"\.\(\s*\*?(?:([A-Za-z_]\w*)\.)?([A-Za-z_]\w*)\s*\)")
_RESULT = re.compile(r"^\s*\(?\s*(?:\*|\[\])*(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)")


@dataclass(frozen=True)
class FileFacts:
    """What a Go file declares that receiver typing needs."""

    types: frozenset[str]  # type names it defines
    fields: dict[str, frozenset[str]]  # struct field -> type names (as written)
    results: dict[str, frozenset[str]]  # function / method -> its first result's type
    interfaces: dict[str, frozenset[str]]  # interface type -> the methods it lists
    methods: dict[str, frozenset[str]]  # receiver type -> its methods' names


@lru_cache(maxsize=LINE_MEMO_SIZE)
def line_bindings(line: str) -> tuple[tuple[str, str, str, str], ...]:
    """(variable, package qualifier or "", type or callee, how) a line declares:
    how is "decl" (`c *Command`), "lit" (`r := &Route{`, `b := x.(*Route)`), "call"
    (`e := NewEntry(`) or "field" (`route := test.route`: the qualifier, then the
    field)."""
    out = []
    if ":=" in line or "=" in line:
        for var, pkg, name, bracket in _ASSIGN.findall(line):
            out.append((var, pkg, name, "lit" if bracket == "{" else "call"))
        if ".(" in line:
            for var, pkg, name in _ASSERTED.findall(line):
                if name != "type" and var not in _KEYWORDS:
                    out.append((var, pkg, name, "lit"))
        m = _FIELD_READ.search(line)
        if m and m.group(1) not in _KEYWORDS:
            out.append((m.group(1), m.group(2), m.group(3), "field"))
    for var, pkg, name in _DECL.findall(line):
        if var not in _KEYWORDS and name not in _KEYWORDS:
            out.append((var, pkg, name, "decl"))
    return tuple(out)


@lru_cache(maxsize=LINE_MEMO_SIZE)
def result_type(header: str) -> str | None:
    """The (first) result type of a function header line: `func New() *Logger {` ->
    Logger; `func (p *Parser) Expression() *Node {` -> Node."""
    m = _FUNC.match(header)
    if not m:
        return None
    depth, i = 1, m.end()
    while i < len(header) and depth:
        depth += {"(": 1, ")": -1}.get(header[i], 0)
        i += 1
    r = _RESULT.match(header[i:])
    if not r or r.group(1) in ("error", "bool", "string", "int", "func"):
        return None
    return r.group(1)


def _compute_blocks(analysis) -> dict[int, int]:
    """Item index -> first row of its `const (` / `var (` block, for the constants and
    variables declared inside one (an iota enumeration is used a few at a time)."""
    out: dict[int, int] = {}
    lines = analysis.lines
    opened = -1
    for index, item in enumerate(analysis.items):
        if item.kind not in ("constant", "variable") or item.level != 1:
            continue
        row = item.start
        if row >= len(lines) or lines[row][:1] not in ("\t", " "):
            continue
        if opened != -1 and opened < row and all(
                lines[r][:1] in ("\t", " ", "") or lines[r].startswith("//")
                for r in range(opened + 1, row)):
            out[index] = opened
            continue
        opened = next((r for r in range(row - 1, -1, -1)
                       if lines[r].startswith(("const (", "var ("))), -1)
        if opened != -1:
            out[index] = opened
    return out


# constants and variables of a file -> the block declaring them, memoized per analysis
const_blocks: PerAnalysis[dict[int, int]] = PerAnalysis(_compute_blocks)


def receiver_type(item) -> str | None:
    """`func (c *Command) Name()` -> Command."""
    for line in item.lines:
        m = _RECEIVER.match(line)
        if m:
            return m.group(1)
    return None


def header_row(item, lines: Sequence[str]) -> int:
    """The row of a definition's header: its first row below the doc comment (an
    item starts at its comment)."""
    row = item.start
    while row < min(item.end, len(lines) - 1) and lines[row].lstrip().startswith("//"):
        row += 1
    return row


def _compute_facts(analysis) -> FileFacts:
    types: set[str] = set()
    fields: dict[str, set[str]] = {}
    results: dict[str, set[str]] = {}
    interfaces: dict[str, frozenset[str]] = {}
    methods: dict[str, set[str]] = {}
    lines = analysis.lines
    for item in analysis.items:
        if item.kind == "type":
            types.add(item.name)
            head = header_row(item, lines)
            if item.end > head and "struct" in lines[head]:
                for row in range(head + 1, min(item.end, len(lines))):
                    for var, _, name, how in line_bindings(lines[row]):
                        if how == "decl":
                            fields.setdefault(var, set()).add(name)
            elif item.end > head and "interface" in lines[head]:
                body = range(head + 1, min(item.end, len(lines)))
                listed = frozenset(m.group(1) for row in body
                                   if (m := _METHOD_SPEC.match(lines[row])))
                if listed:
                    interfaces[item.name] = listed
        elif item.kind in ("function", "method") and item.lines:
            header = next((x for x in item.lines if x.lstrip().startswith("func")), "")
            t = result_type(header)
            if t:
                results.setdefault(item.name, set()).add(t)
            if item.kind == "method":
                owner = receiver_type(item)
                if owner:
                    methods.setdefault(owner, set()).add(item.name)
    return FileFacts(frozenset(types), {k: frozenset(v) for k, v in fields.items()},
                     {k: frozenset(v) for k, v in results.items()}, interfaces,
                     {k: frozenset(v) for k, v in methods.items()})


# types, struct fields and function results of a file, memoized per analysis
file_facts: PerAnalysis[FileFacts] = PerAnalysis(_compute_facts)


def _merge(files: Sequence[NeighborFile]) -> FileFacts:
    """The neighbors' facts in one."""
    facts = [file_facts(f.analysis) for f in files]
    return FileFacts(frozenset().union(*(f.types for f in facts)),
                     union_of(f.fields for f in facts), union_of(f.results for f in facts),
                     union_of(f.interfaces for f in facts),
                     union_of(f.methods for f in facts))


merged_facts: ForLastNeighbors[FileFacts] = ForLastNeighbors(_merge)


@dataclass(frozen=True)
class Receivers:
    """Variables near the cursor and their types; what the files declare."""

    local: dict[str, frozenset[str]]  # variable -> type names (unknown types included)
    known: tuple[FileFacts, ...]  # the neighbors' and the current file's facts
    memo: dict[str, frozenset[str]] = field(default_factory=dict, compare=False)

    def of(self, qualifier: str) -> frozenset[str]:
        got = self.local.get(qualifier)
        if got:
            return got
        out: set[str] = set()
        for facts in self.known:
            for t in facts.fields.get(qualifier, ()):
                if any(t in k.types for k in self.known):
                    out.add(t)
        return frozenset(out)

    def implementers(self, interface: str, method: str) -> frozenset[str]:
        """The types whose methods (in the files read) include every method the
        interface `interface` lists, when it lists `method`: what a call of it on a
        value of the interface runs."""
        listed = self.listed(interface)
        if method not in listed:
            return frozenset()
        hit = self.memo.get(interface)
        if hit is None:
            owners = union_of(k.methods for k in self.known)
            hit = self.memo[interface] = frozenset(o for o, names in owners.items()
                                                   if listed <= names)
        return hit

    def listed(self, interface: str) -> frozenset[str]:
        """The methods an interface of the files read lists (none: no such interface)."""
        return next((k.interfaces[interface] for k in self.known
                     if interface in k.interfaces), frozenset())


def receivers(analysis, files: Sequence[NeighborFile], anchor: tuple[int, int]
              ) -> Receivers:
    """The types of the variables the anchor declares (its first MAX_SCAN_ROWS lines:
    the same for every cursor position inside it)."""
    known = (merged_facts(files), file_facts(analysis))
    lines = analysis.lines
    lo, hi = anchor
    first = max(0, lo)
    last = min(hi, len(lines) - 1, first + MAX_SCAN_ROWS)
    local: dict[str, set[str]] = {}
    for row in range(first, last + 1):
        for var, pkg, name, how in line_bindings(lines[row]):
            got = resolved(pkg, name, how, known)
            if got:
                local.setdefault(var, set()).update(got)
    return Receivers({k: frozenset(v) for k, v in local.items()}, known)


def resolved(pkg: str, name: str, how: str, known: Sequence[FileFacts]) -> frozenset[str]:
    """The type names one binding of `line_bindings` gives its variable."""
    if how == "field":  # the field's declared type, when it is a known one
        return frozenset(t for k in known for t in k.fields.get(name, ())
                         if any(t in kk.types for kk in known))
    if how == "call":
        got = frozenset(t for k in known for t in k.results.get(name, ()))
        if not got and any(name in k.types for k in known):
            got = frozenset((name,))  # a conversion `T(x)`
        return got
    if pkg or any(name in k.types for k in known):
        return frozenset((name,))
    return frozenset()


def revise(analysis, files: Sequence[NeighborFile], ev: Evidence, cands: list) -> list:
    """Go methods rescored by their receiver's type (see the module docstring)."""
    if not any(c.file >= 0 for c in cands):
        return cands
    recv = receivers(analysis, files, ev.anchor)
    near_types = {t for ts in recv.local.values() for t in ts} | chained_types(ev, recv)
    items_of = [f.analysis.items for f in files]
    siblings: dict[tuple[int, int], float] = {}
    package = analysis.package
    wrappers: list[bool] = []  # computed when first needed
    messages: list[frozenset[str]] = []  # the same
    out = []
    for c in cands:
        if c.file < 0:
            out.append(c)
            continue
        item = items_of[c.file][c.item]
        if item.name[:1].islower() and package and files[c.file].analysis.package != package:
            # unexported: another package's code cannot name it
            out.append(c.rescored(c.score * UNEXPORTED))
            continue
        if package and item.kind != "method" and item.level <= 1 and \
                item.name not in ev.uses and files[c.file].analysis.package != package:
            # another package's name not used yet: one of its many (`evidence_go_members`)
            c = c.rescored(c.score * module_factor(files, c.file))
        if item.kind in ("constant", "variable"):
            s = sibling_score(files, c.file, c.item, ev, siblings)
            out.append(c if s <= c.score else c.rescored(s))
            continue
        if item.kind != "method":
            if item.kind == "function" and item.name in message_named(
                    files, cands, ev, near_types, messages) and \
                    not named_in_code(analysis, item.name):
                # named only in a message string (`t.Logf("Upgrade: %v", err)`) while a
                # value of a type with a method of that name is at hand: the method's
                use = ev.uses[item.name]
                c = c.rescored(min(c.score, 100 * MESSAGE_ONLY * R._near(use.distance)
                                   + R._freq(use.nodes)))
            if item.kind == "function" and c.score >= R.USED * 100 * 0.3 and \
                    (called_on_values_only(item.name, ev, recv)
                     or selector_only(item.name, ev)
                     and not calls_wrappers(files, cands, ev, wrappers)):
                use = ev.uses[item.name]
                c = c.rescored(100 * R.LOOSE_MEMBER * R._near(use.distance)
                               + R._freq(use.nodes))
            out.append(c)
            continue
        owner = receiver_type(item)
        score = method_score(item, owner, ev, recv, near_types)
        out.append(c if score is None else c.rescored(score))
    out = lift_co_used(analysis, files, ev, out)  # what similar sibling files use
    return demote_shadowed(analysis, files, ev, out)  # `var _`, a local's namesake


def chained_types(ev: Evidence, recv: Receivers) -> set[str]:
    """The known types of struct fields the anchor calls methods on (`d.strict.EnterTable()`
    with a field `strict strict`): their other methods are at hand as a variable's are."""
    out: set[str] = set()
    for use in ev.uses.values():
        if use.distance != 0 or not use.attribute:
            continue
        for q in use.qualifiers:
            if q and q not in recv.local and q not in ev.bound:
                out |= recv.of(q)
    return out


def sibling_score(files: Sequence[NeighborFile], f_index: int, i_index: int, ev: Evidence,
                  memo: dict[tuple[int, int], float]) -> float:
    """A constant's score from the constants of its block used near the cursor
    (`ShellCompDirectiveNoSpace` used: `ShellCompDirectiveNoFileComp` may be next)."""
    block = const_blocks(files[f_index].analysis).get(i_index)
    if block is None:
        return 0.0
    key = (f_index, block)
    hit = memo.get(key)
    if hit is None:
        items = files[f_index].analysis.items
        blocks = const_blocks(files[f_index].analysis)
        nearest = min((u.distance for k, b in blocks.items() if b == block
                       if (u := ev.uses.get(items[k].name)) is not None), default=FAR)
        hit = memo[key] = 100 * SIBLING * R._near(nearest) if nearest < FAR else 0.0
    return hit


def called_on_values_only(name: str, ev: Evidence, recv: Receivers) -> bool:
    """Whether every use of `name` is `x.name` with x a variable of a known type (a
    method of the same name, not this package-level function)."""
    use = ev.uses.get(name)
    if use is None or not use.attribute or use.qualified or not use.qualifiers:
        return False
    return all(q and q not in ev.bound and recv.local.get(q) for q in use.qualifiers)


def selector_only(name: str, ev: Evidence) -> bool:
    """Whether `name` is used only after a selector (`cstUpgrader.Upgrade(..)`, never
    `Upgrade(..)`) and never on an import name: a method or field of that name, not the
    package function (which its package calls plainly, and others as `pkg.Name`)."""
    use = ev.uses.get(name)
    return use is not None and use.plain is False and use.attribute and not use.qualified


def message_named(files: Sequence[NeighborFile], cands: list, ev: Evidence,
                  near_types: set[str], memo: list[frozenset[str]]) -> frozenset[str]:
    """Names used but never after a selector of methods whose type a variable at hand
    has (`upgrader := Upgrader{..}` and "Upgrade" in a message): the candidates for a
    message string naming the method call (`method_score`)."""
    if not memo:
        out = set()
        for c in cands:
            if c.file >= 0:
                item = files[c.file].analysis.items[c.item]
                if item.kind == "method" and item.name not in out:
                    use = ev.uses.get(item.name)
                    if use is not None and not use.attribute and \
                            receiver_type(item) in near_types:
                        out.add(item.name)
        memo.append(frozenset(out))
    return memo[0]


def named_in_code(analysis, name: str) -> bool:
    """Whether the file uses `name` in code, not only inside strings and comments."""
    lines = analysis.lines
    return any(name in ident_set and _plain_in(lines, first, idents[name], name)
               for first, _, ident_set, idents in analysis.usages)


def calls_wrappers(files: Sequence[NeighborFile], cands: list, ev: Evidence,
                   memo: list[bool]) -> bool:
    """Whether the file calls plainly a package function named like a method of the
    package (viper's `SetDefault(..)` beside `v.SetDefault(..)`: functions wrapping a
    global value's methods): there a next plain call of a wrapper is as likely as a
    method call, and a selector-only use says nothing against the function."""
    if not memo:
        functions: set[str] = set()
        methods: set[str] = set()
        for c in cands:
            if c.file >= 0:
                item = files[c.file].analysis.items[c.item]
                if item.kind == "method":
                    methods.add(item.name)
                elif item.kind == "function":
                    use = ev.uses.get(item.name)
                    if use is not None and use.plain:
                        functions.add(item.name)
        memo.append(not functions.isdisjoint(methods))
    return memo[0]


def method_score(item, owner: str | None, ev: Evidence, recv: Receivers,
                 near_types: set[str]) -> float | None:
    """A Go method's score from its receiver type; None keeps the neutral score."""
    if owner is None:
        return None
    use = ev.uses.get(item.name)
    if use is None:
        if owner in near_types:  # a variable of its type is at hand: maybe called next
            return 100 * R.RECEIVER_MEMBER * R._near(0) * size_factor(owner, recv.known)
        return None
    near = R._near(use.distance)
    if not use.attribute:
        loose = 100 * R.LOOSE_MEMBER / 2 * near + R._freq(use.nodes)
        if owner in near_types:
            # named plainly only, with a variable of its type at hand: a message
            # string naming the call (`t.Errorf("GetQueries not equal")`)
            return max(loose, 100 * R.TYPED_MEMBER * near)
        return loose
    typed = [recv.of(q) for q in use.qualifiers if q]
    if any(owner in t for t in typed):
        return 100 * R.TYPED_MEMBER * near + R._freq(use.nodes)
    # called on a value of an interface this type implements (`fe.Tag()` with
    # `fe FieldError`, `*fieldError` its one implementation): as typed, shared out
    # among the implementations
    shared = [len(impl) for t in typed for i in t
              if owner in (impl := recv.implementers(i, item.name))]
    implemented = R.TYPED_MEMBER / min(shared) if shared else 0.0
    if typed and all(typed) and "" not in use.qualifiers:
        # every receiver it is called on has a known type, and none is this one
        return 100 * max(R.LOOSE_MEMBER, implemented) * near + R._freq(use.nodes)
    return 100 * max(R.MEMBER, implemented) * near + R._freq(use.nodes)
