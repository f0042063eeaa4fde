"""Resolve a file's imports to workspace files, one strategy per language family.

Which strategy a language uses is `LanguageSpec.resolver`; what its import statements
look like is in `queries/<lang>/imports.scm`. Every candidate path goes through the
workspace boundary (`Workspace.allowed`), so nothing outside it is ever returned.

* python: absolute modules and packages (`a.b.c` -> a/b/c.py or a/b/c/__init__.py)
  from the workspace folders, their `src/`, and the file's own package root;
  relative imports (`from ..pkg import mod`), including submodules named in `import`.
* js: relative specifiers with extension and `index` resolution (`./util` ->
  util.ts / util.tsx / util.js ... / util/index.ts ...; `./util.js` -> util.ts).
* go: the other files of the same package directory, and packages of the same
  module (`go.mod`'s module path + subdirectory).
* rust: `mod foo;` (foo.rs, foo/mod.rs) and `use crate::` / `super::` / `self::`
  paths to the deepest module file that exists.
* java: single-type and static imports, the same package's directory and wildcard
  imports, from the source root the package declaration implies (which of those files
  are read: `evidence_java.order_neighbors`).
* c: `#include "..."` relative to the file, then the include roots; `#include <...>`
  in the include roots only (the workspace folders, their `include/` and `src/`, and
  the file's ancestor directories: `evidence_c.py`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Protocol, Sequence

from .evidence_c import include_candidates, include_roots
from .evidence_java import MAX_PACKAGE_FILES as JAVA_PACKAGE_FILES, java_roots
from .languages import LanguageSpec
from .symbols import ImportRef
from .workspace import Workspace



class FileSymbols(Protocol):
    """What resolution needs from a file: its imports and package (Analysis has them)."""

    @property
    def imports(self) -> Sequence[ImportRef]: ...

    @property
    def package(self) -> str | None: ...


Resolver = Callable[[str, FileSymbols, Workspace], list[str]]

JS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
MAX_PACKAGE_FILES = 40  # a Go / Java package directory larger than this is sampled


def resolve_imports(spec: LanguageSpec, path: str, symbols: FileSymbols,
                    workspace: Workspace) -> list[str]:
    """Workspace files the file at `path` imports, in import order, without itself."""
    resolver = _RESOLVERS.get(spec.resolver)
    if resolver is None or not path:
        return []
    # the same imports resolve the same way for a couple of seconds (per keystroke,
    # only the import lines' content could change the answer)
    key = (spec.name, path, tuple((i.kind, i.path, i.names) for i in symbols.imports),
           symbols.package)
    cached = workspace.cache.get(key)
    if cached is not None:
        return list(cached)
    me = workspace.real(path)
    out: list[str] = []
    seen = {me}
    for candidate in resolver(path, symbols, workspace):
        real = workspace.real(candidate)
        if real in seen:
            continue
        seen.add(real)
        if os.path.isfile(real) and workspace.allowed(candidate):
            out.append(candidate)
    workspace.cache[key] = tuple(out)
    return out


def _first_file(candidates: Iterable[str]) -> str | None:
    for c in candidates:
        if os.path.isfile(c):
            return c
    return None


# -- python ---------------------------------------------------------------------------
def _python_roots(path: str, workspace: Workspace) -> list[str]:
    roots: list[str] = []
    directory = os.path.dirname(os.path.abspath(path))
    top = directory
    while os.path.isfile(os.path.join(top, "__init__.py")) and workspace.contains(top):
        top = os.path.dirname(top)
    roots.append(top)
    for root in workspace.roots:
        roots.extend([root, os.path.join(root, "src")])
    seen: set[str] = set()
    return [r for r in roots if not (r in seen or seen.add(r)) and os.path.isdir(r)]


def _python_module(base: str, parts: list[str]) -> str | None:
    target = os.path.join(base, *parts) if parts else base
    if parts:
        found = _first_file([target + ".py", target + ".pyi"])
        if found:
            return found
    return _first_file([os.path.join(target, "__init__.py")])


def _resolve_python(path: str, symbols: FileSymbols, workspace: Workspace) -> list[str]:
    out: list[str] = []
    roots = _python_roots(path, workspace)
    for imp in symbols.imports:
        module = imp.path.strip()
        if module.startswith("."):
            level = len(module) - len(module.lstrip("."))
            base = os.path.dirname(os.path.abspath(path))
            for _ in range(level - 1):
                base = os.path.dirname(base)
            parts = [p for p in module.lstrip(".").split(".") if p]
            bases = [base]
        else:
            parts = [p for p in module.split(".") if p]
            bases = roots
        for base in bases:
            found = _python_module(base, parts)
            submodules = [_python_module(os.path.join(base, *parts), [name])
                          for name in imp.names]
            hits = [f for f in [found, *submodules] if f]
            if hits:
                out.extend(hits)
                break
    return out


# -- javascript / typescript -----------------------------------------------------------
def _resolve_js(path: str, symbols: FileSymbols, workspace: Workspace) -> list[str]:
    out: list[str] = []
    here = os.path.dirname(os.path.abspath(path))
    for imp in symbols.imports:
        spec = imp.path.strip()
        if not spec.startswith((".", "/")):
            continue  # a package (node_modules is never read)
        base = os.path.normpath(os.path.join(here, spec))
        candidates = [base]
        stem, ext = os.path.splitext(base)
        if ext in (".js", ".jsx", ".mjs", ".cjs"):  # TS sources imported by emitted name
            candidates += [stem + e for e in (".ts", ".tsx", ".mts", ".cts")]
        candidates += [base + e for e in JS_EXTENSIONS]
        candidates += [os.path.join(base, "index" + e) for e in JS_EXTENSIONS]
        found = _first_file(candidates)
        if found:
            out.append(found)
    return out


# -- go --------------------------------------------------------------------------------
_GO_MODULE = re.compile(r"^\s*module\s+(\S+)", re.M)


def _go_files(directory: str, workspace: Workspace, *, tests: bool) -> list[str]:
    files = [f for f in workspace.list_dir(directory, (".go",))
             if tests or not f.endswith("_test.go")]
    return files[:MAX_PACKAGE_FILES]


def _go_module(path: str, workspace: Workspace) -> tuple[str, str] | None:
    directory = os.path.dirname(os.path.abspath(path))
    while workspace.contains(directory):
        mod = os.path.join(directory, "go.mod")
        if os.path.isfile(mod):
            text = workspace.read(mod) or ""
            m = _GO_MODULE.search(text)
            return (directory, m.group(1)) if m else None
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return None


def _resolve_go(path: str, symbols: FileSymbols, workspace: Workspace) -> list[str]:
    here = os.path.dirname(os.path.abspath(path))
    out = _go_files(here, workspace, tests=path.endswith("_test.go"))
    module = _go_module(path, workspace)
    if module is None:
        return out
    mod_dir, mod_path = module
    for imp in symbols.imports:
        p = imp.path.strip()
        if p == mod_path or p.startswith(mod_path + "/"):
            rel = p[len(mod_path):].lstrip("/")
            out.extend(_go_files(os.path.join(mod_dir, *rel.split("/")) if rel else mod_dir,
                                 workspace, tests=False))
    return out


# -- rust ------------------------------------------------------------------------------
def expand_use_tree(text: str) -> list[list[str]]:
    """`crate::a::{b, c::D as E}` -> [[crate, a, b], [crate, a, c, D]]."""
    text = re.sub(r"\s+as\s+[A-Za-z_]\w*", "", text)
    text = re.sub(r"\s+", "", text)

    def split_top(s: str) -> list[str]:
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        if cur:
            parts.append(cur)
        return parts

    def expand(s: str) -> list[list[str]]:
        brace = s.find("{")
        if brace == -1:
            return [[p for p in s.split("::") if p]]
        head = [p for p in s[:brace].split("::") if p]
        inner = s[brace + 1:s.rfind("}")]
        out = []
        for part in split_top(inner):
            for tail in expand(part):
                out.append(head + tail)
        return out or [head]

    return expand(text)


def _rust_crate_src(path: str, workspace: Workspace) -> str | None:
    found = _rust_crate(path, workspace)
    return found[0] if found else None


_CARGO_NAME = re.compile(r"^\s*name\s*=\s*[\"']([^\"']+)[\"']", re.M)
_CARGO_SECTION = re.compile(r"^\s*\[([^\]]+)\]", re.M)


def _rust_crate(path: str, workspace: Workspace) -> tuple[str, str] | None:
    """(source directory, crate name as `use` writes it) of the package holding
    `path`: tests, benches and examples `use the_crate::...` by its name."""
    directory = os.path.dirname(os.path.abspath(path))
    while workspace.contains(directory):
        manifest = os.path.join(directory, "Cargo.toml")
        if os.path.isfile(manifest):
            src = os.path.join(directory, "src")
            return (src if os.path.isdir(src) else directory,
                    _cargo_crate_name(workspace.read(manifest) or ""))
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return None


def _cargo_crate_name(manifest: str) -> str:
    """`[lib] name`, else `[package] name` with `-` as `_` ("" when neither)."""
    names: dict[str, str] = {}
    sections = [(m.start(), m.group(1).strip()) for m in _CARGO_SECTION.finditer(manifest)]
    for k, (start, section) in enumerate(sections):
        end = sections[k + 1][0] if k + 1 < len(sections) else len(manifest)
        m = _CARGO_NAME.search(manifest, start, end)
        if m and section in ("lib", "package"):
            names.setdefault(section, m.group(1))
    return (names.get("lib") or names.get("package") or "").replace("-", "_")


def _rust_module_dir(path: str) -> str:
    """Directory holding the submodules of the module defined by `path`."""
    directory, name = os.path.split(os.path.abspath(path))
    stem = os.path.splitext(name)[0]
    return directory if stem in ("mod", "lib", "main") else os.path.join(directory, stem)


def _rust_module_file(directory: str) -> str | None:
    """The file defining the module whose submodules live in `directory`."""
    return _first_file([os.path.join(directory, "mod.rs"), os.path.join(directory, "lib.rs"),
                        os.path.join(directory, "main.rs"), directory + ".rs"])


def _rust_walk(base_dir: str, segments: list[str]) -> str | None:
    """Deepest module file along `segments` from the module directory `base_dir`."""
    best = _rust_module_file(base_dir)
    directory = base_dir
    for seg in segments:
        found = _first_file([os.path.join(directory, seg + ".rs"),
                             os.path.join(directory, seg, "mod.rs")])
        if not found:
            break
        best = found
        directory = os.path.join(directory, seg)
    return best


def _resolve_rust(path: str, symbols: FileSymbols, workspace: Workspace) -> list[str]:
    out: list[str] = []
    mod_dir = _rust_module_dir(path)
    crate_src = None
    crate: tuple[str, str] | None = None
    for imp in symbols.imports:
        if imp.kind == "mod_item":
            found = _first_file([os.path.join(mod_dir, imp.path + ".rs"),
                                 os.path.join(mod_dir, imp.path, "mod.rs")])
            if found:
                out.append(found)
            continue
        for segments in expand_use_tree(imp.path):
            if not segments:
                continue
            first, rest = segments[0], segments[1:]
            if first not in ("crate", "self", "super") and crate is None:
                crate = _rust_crate(path, workspace) or ("", "")
            if first == "crate" or (crate and crate[1] and first == crate[1]):
                crate_src = crate_src or _rust_crate_src(path, workspace)
                base = crate_src
            elif first == "self":
                base = mod_dir
            elif first == "super":
                base = os.path.dirname(mod_dir)
                while rest and rest[0] == "super":
                    base, rest = os.path.dirname(base), rest[1:]
            else:
                continue  # std or an external crate
            if base is None:
                continue
            rest = [s for s in rest if s not in ("*", "self")]
            found = _rust_walk(base, rest)
            if found:
                out.append(found)
    return out


# -- java ------------------------------------------------------------------------------
def _resolve_java(path: str, symbols: FileSymbols, workspace: Workspace) -> list[str]:
    """Single-type and static imports, then the package's files, then wildcard imports'
    (which of them are worth reading is `evidence_java.order_neighbors`)."""
    here, root = java_roots(path, symbols.package)
    explicit: list[str] = []
    wildcard: list[str] = []
    for imp in symbols.imports:
        parts = [p for p in imp.path.strip().split(".") if p]
        if not parts:
            continue
        if "*" in imp.names:
            wildcard.extend(workspace.list_dir(os.path.join(root, *parts),
                                               (".java",))[:JAVA_PACKAGE_FILES])
            continue
        while parts:  # a static import names a member: drop segments until a file exists
            candidate = os.path.join(root, *parts) + ".java"
            if os.path.isfile(candidate):
                explicit.append(candidate)
                break
            parts = parts[:-1]
    same = workspace.list_dir(here, (".java",))[:JAVA_PACKAGE_FILES]
    return explicit + same + wildcard


# -- c / c++ ---------------------------------------------------------------------------
def _resolve_c(path: str, symbols: FileSymbols, workspace: Workspace) -> list[str]:
    roots = include_roots(path, workspace)
    out: list[str] = []
    for imp in symbols.imports:
        found = _first_file(include_candidates(path, imp.path, roots))
        if found:
            out.append(found)
    return out


_RESOLVERS: dict[str, Resolver] = {
    "python": _resolve_python,
    "js": _resolve_js,
    "go": _resolve_go,
    "rust": _resolve_rust,
    "java": _resolve_java,
    "c": _resolve_c,
}


@dataclass(frozen=True)
class _OneImport:
    """A FileSymbols with one import statement (`imported_names`)."""

    imports: tuple[ImportRef, ...]
    package: str | None = None


def imported_names(spec: LanguageSpec, path: str, symbols: FileSymbols,
                   workspace: Workspace) -> dict[str, frozenset[str]]:
    """Python and JS/TS: each file the imports resolve to -> the names the statements
    resolving to it bind (`import lodash from './wrapperLodash.js'` -> {lodash}).
    Empty for other languages, whose imports do not name what they bring."""
    if spec.resolver not in ("python", "js") or not path:
        return {}
    key = ("imported-names", spec.name, path,
           tuple((i.kind, i.path, i.names) for i in symbols.imports))
    cached = workspace.cache.get(key)
    if cached is not None:
        return cached
    resolver = _RESOLVERS[spec.resolver]
    out: dict[str, set[str]] = {}
    for imp in symbols.imports:
        for candidate in resolver(path, _OneImport((imp,)), workspace):
            out.setdefault(candidate, set()).update(imp.names)
    result = {f: frozenset(names) for f, names in out.items()}
    workspace.cache[key] = result
    return result
