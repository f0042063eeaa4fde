"""Per-language data: queries compile, definitions and imports come out right, and every
supported language's imports resolve to the right fixture files."""

from __future__ import annotations

from pathlib import Path

import pytest

from flashls.context.analysis import analyze
from flashls.context.imports import expand_use_tree, resolve_imports
from flashls.context.languages import LANGUAGES, language_for
from flashls.context.outline import render
from flashls.context.symbols import compiled, extract
from flashls.context.workspace import Workspace

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces"


@pytest.mark.parametrize("spec", LANGUAGES, ids=lambda s: s.name)
def test_every_language_has_compiling_queries(spec):
    for kind in ("definitions", "imports", "scopes"):
        assert compiled(spec, kind) is not None, f"{spec.name}/{kind}.scm"


SAMPLES = {
    "python": ("import os\nfrom .models import User\n\n@dataclass\nclass Repo(Base):\n"
               "    \"\"\"Stores users.\"\"\"\n    limit: int = 3\n\n    def get(self, uid: int,\n"
               "            strict: bool = False) -> User:\n        return self.db[uid]\n\n"
               "def helper(x):\n    return x\n",
               {"Repo", "limit", "get", "helper"},
               ["@dataclass", "class Repo(Base):", '    """Stores users."""', "    limit: int = 3",
                "    def get(self, uid: int,", "            strict: bool = False) -> User:",
                "def helper(x):"]),
    "javascript": ("import { a } from './a.js';\nconst b = require('../b');\n"
                   "export class Cart extends Base {\n  add(item) {\n    this.items.push(item);\n"
                   "  }\n}\nexport const total = (items) => {\n  return 0;\n};\n",
                   {"Cart", "add", "total"},
                   ["export class Cart extends Base {", "  add(item) {",
                    "export const total = (items) => {"]),
    "typescript": ("import { T } from './t';\nexport interface User { id: number }\n"
                   "export type Id = string;\nexport class Svc {\n  find(id: Id): User {\n"
                   "    return this.db[id];\n  }\n}\nexport function make(): Svc {\n"
                   "  return new Svc();\n}\n",
                   {"User", "Id", "Svc", "find", "make"},
                   ["export interface User { id: number }", "export type Id = string;",
                    "export class Svc {", "  find(id: Id): User {", "export function make(): Svc {"]),
    "tsx": ("import { T } from './t';\nexport function Row({ t }: { t: T }) {\n"
            "  return <li>{t.name}</li>;\n}\n",
            {"Row"}, ["export function Row({ t }: { t: T }) {"]),
    "go": ("package store\n\nimport (\n\t\"fmt\"\n)\n\n// User is a user.\ntype User struct {\n"
           "\tID int\n}\n\nfunc (u *User) Save(force bool) error {\n\treturn nil\n}\n",
           {"User", "Save"},
           ["// User is a user.", "type User struct {", "\tID int", "func (u *User) Save(force bool) error {"]),
    "rust": ("use crate::money::Money;\n#[derive(Debug)]\npub struct Point { x: i32 }\n"
             "impl Point {\n    pub fn new(x: i32) -> Self {\n        Point { x }\n    }\n}\n",
             {"Point", "new"},
             ["#[derive(Debug)]", "pub struct Point { x: i32 }", "impl Point {",
              "    pub fn new(x: i32) -> Self {"]),
    "java": ("package a.b;\nimport a.c.D;\n/** Repo. */\npublic class Repo {\n"
             "    private int n;\n    public int size(int k) {\n        return n;\n    }\n}\n",
             {"Repo", "n", "size"},
             ["/** Repo. */", "public class Repo {", "    private int n;", "    public int size(int k) {"]),
    "c": ("#include \"vec.h\"\ntypedef struct { int x; } P;\nint add(int a,\n        int b) {\n"
          "    return a + b;\n}\nint *make(void);\n",
          {"P", "add", "make"},
          ["typedef struct { int x; } P;", "int add(int a,", "        int b) {", "int *make(void);"]),
    "cpp": ("#include \"s.hpp\"\nnamespace geo {\nclass Shape {\npublic:\n"
            "    virtual double area() const = 0;\n};\ntemplate <typename T>\nT clamp(T v) {\n"
            "    return v;\n}\n}\n",
            {"geo", "Shape", "area", "clamp"},
            ["namespace geo {", "class Shape {", "    virtual double area() const = 0;",
             "template <typename T>", "T clamp(T v) {"]),
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_definitions_and_outline(name):
    text, names, outline_lines = SAMPLES[name]
    spec = next(s for s in LANGUAGES if s.name == name)
    source = text.encode()
    tree = spec.parser().parse(source)
    symbols = extract(spec, tree, source, text)
    assert names <= {d.name for d in symbols.definitions}
    assert symbols.imports, "the sample's import is found"
    analysis = analyze(spec, text, ("test", name, text))
    rendered = render(analysis.items, set(range(len(analysis.items)))).splitlines()
    for line in outline_lines:
        assert line in rendered, (line, rendered)
    # bodies are elided with the language's comment syntax
    assert f"{spec.line_comment} ..." in "\n".join(rendered)
    assert not any("return" in line for line in rendered if not line.strip().startswith(
        ("int id", "fn id"))), rendered


def test_rust_use_trees_expand():
    assert expand_use_tree("crate::a::{B, c::{D, E as F}}") == [
        ["crate", "a", "B"], ["crate", "a", "c", "D"], ["crate", "a", "c", "E"]]
    assert expand_use_tree("super::db::Pool as P") == [["super", "db", "Pool"]]


RESOLUTION = [
    ("py_inventory", "inventory/services.py",
     ["inventory/__init__.py", "inventory/pricing.py", "inventory/models.py",
      "inventory/storage/repository.py"]),
    ("py_inventory", "inventory/reports.py",
     ["inventory/models.py", "inventory/pricing.py", "inventory/storage/__init__.py"]),
    ("py_inventory", "app.py",
     ["inventory/models.py", "inventory/reports.py", "inventory/services.py",
      "inventory/storage/__init__.py"]),
    ("ts_tasks", "src/services/scheduler.ts",
     ["src/models/index.ts", "src/store/taskStore.ts", "src/utils/dates.ts"]),
    ("ts_tasks", "src/ui/TaskList.tsx",
     ["src/models/index.ts", "src/utils/dates.ts", "src/services/scheduler.ts"]),
    ("ts_tasks", "src/main.ts",
     ["src/models/index.ts", "src/store/taskStore.ts", "src/services/scheduler.ts",
      "src/utils/dates.ts", "src/legacy/report.js"]),
    ("ts_tasks", "src/legacy/report.js", ["src/legacy/format.js"]),
    ("go_shortener", "internal/server/handlers.go",
     ["internal/server/routes.go", "internal/codec/base62.go", "internal/store/errors.go",
      "internal/store/store.go"]),
    ("go_shortener", "cmd/shortener/main.go",
     ["internal/server/handlers.go", "internal/server/routes.go", "internal/store/errors.go",
      "internal/store/store.go"]),
    ("rust_ledger", "src/main.rs",
     ["src/account.rs", "src/ledger/mod.rs", "src/money.rs", "src/ledger/entry.rs"]),
    ("rust_ledger", "src/ledger/mod.rs", ["src/ledger/entry.rs", "src/account.rs", "src/money.rs"]),
    ("java_library", "src/main/java/com/acme/library/service/LoanService.java",
     # single-type and static imports, the package's files, wildcard imports
     ["src/main/java/com/acme/library/util/Dates.java",
      "src/main/java/com/acme/library/service/CatalogService.java",
      "src/main/java/com/acme/library/model/Book.java",
      "src/main/java/com/acme/library/model/Loan.java",
      "src/main/java/com/acme/library/model/Member.java"]),
    ("c_geometry", "src/main.c", ["include/matrix.h", "src/vec.h"]),
    ("c_geometry", "cpp/main.cpp", ["cpp/shapes.hpp"]),
]


@pytest.mark.parametrize("workspace,rel,expected", RESOLUTION,
                         ids=[f"{w}:{r}" for w, r, _ in RESOLUTION])
def test_imports_resolve_to_workspace_files(workspace, rel, expected):
    root = FIXTURES / workspace
    ws = Workspace([str(root)], [])
    path = root / rel
    text = path.read_text()
    spec = language_for("", str(path))
    analysis = analyze(spec, text, ("resolve-test", str(path), text))
    got = [ws.relative(p) for p in resolve_imports(spec, str(path), analysis, ws)]
    assert got == expected


def test_resolution_never_leaves_the_workspace(tmp_path):
    outer = tmp_path / "outer.py"
    outer.write_text("def leaked(): pass\n")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.py").write_text("from ..outer import leaked\nimport outer\n")
    (root / "secrets.py").write_text("TOKEN = 'x'\n")
    (root / "uses_secrets.py").write_text("import secrets\n")
    from flashls.settings import DEFAULT_EXCLUDE
    ws = Workspace([str(root)], DEFAULT_EXCLUDE)
    spec = language_for("python")
    for name in ("main.py", "uses_secrets.py"):
        text = (root / name).read_text()
        analysis = analyze(spec, text, ("boundary", name, text))
        assert resolve_imports(spec, str(root / name), analysis, ws) == []
