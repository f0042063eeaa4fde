"""The workspace boundary: what may never be read, whatever asks for it."""

from __future__ import annotations

import os

import pytest

from flashls.context.workspace import Workspace, path_from_uri
from flashls.settings import DEFAULT_EXCLUDE


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("import util\n")
    (root / "src" / "util.py").write_text("def helper():\n    return 1\n")
    (root / ".env").write_text("DB_PASSWORD=hunter2\n")
    (root / "certs").mkdir()
    (root / "certs" / "server.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    (root / "node_modules" / "lib").mkdir(parents=True)
    (root / "node_modules" / "lib" / "index.js").write_text("module.exports = 1\n")
    (root / "generated").mkdir()
    (root / "generated" / "schema.py").write_text("X = 1\n")
    (root / "logs").mkdir()
    (root / "logs" / "keep.log").write_text("kept\n")
    (root / "logs" / "drop.log").write_text("dropped\n")
    (root / ".gitignore").write_text("generated/\n*.log\n!keep.log\n")
    (root / "src" / "nested").mkdir()
    (root / "src" / "nested" / ".gitignore").write_text("local_*.py\n")
    (root / "src" / "nested" / "local_conf.py").write_text("X = 2\n")
    (root / "src" / "nested" / "ok.py").write_text("Y = 3\n")
    (root / "blob.bin").write_bytes(b"\x7fELF\x00\x01\x02")
    (root / "huge.py").write_text("x = 1\n" * 300_000)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.py").write_text("SECRET = 'outside'\n")
    return root, outside


def ws(root, **kw):
    return Workspace([str(root)], DEFAULT_EXCLUDE, **kw)


def test_reads_allowed_file(tree):
    root, _ = tree
    w = ws(root)
    assert w.read(str(root / "src" / "util.py")).startswith("def helper")
    assert w.relative(str(root / "src" / "util.py")) == "src/util.py"


def test_never_reads_outside_the_workspace(tree):
    root, outside = tree
    w = ws(root)
    assert not w.contains(str(outside / "private.py"))
    assert w.read(str(outside / "private.py")) is None
    assert w.read(str(root / ".." / "outside" / "private.py")) is None
    assert w.reads == 0


def test_symlinks_are_resolved_before_checking(tree):
    root, outside = tree
    (root / "src" / "escape.py").symlink_to(outside / "private.py")
    (root / "src" / "linked_dir").symlink_to(outside, target_is_directory=True)
    (root / "src" / "env_alias.txt").symlink_to(root / ".env")
    w = ws(root)
    assert w.read(str(root / "src" / "escape.py")) is None
    assert w.read(str(root / "src" / "linked_dir" / "private.py")) is None
    assert w.read(str(root / "src" / "env_alias.txt")) is None  # target is excluded
    assert w.reads == 0


def test_excluded_globs_are_never_read(tree):
    root, _ = tree
    w = ws(root)
    for rel in [".env", "certs/server.pem", "node_modules/lib/index.js"]:
        assert w.excluded(str(root / rel)), rel
        assert w.read(str(root / rel)) is None
    assert w.reads == 0


def test_custom_excludes(tree):
    root, _ = tree
    w = Workspace([str(root)], ["src/**"])
    assert w.read(str(root / "src" / "util.py")) is None


def test_gitignored_files_are_never_read(tree):
    root, _ = tree
    w = ws(root)
    assert w.read(str(root / "generated" / "schema.py")) is None
    assert w.read(str(root / "logs" / "drop.log")) is None
    assert w.read(str(root / "src" / "nested" / "local_conf.py")) is None
    assert w.reads == 0
    assert w.read(str(root / "logs" / "keep.log")) == "kept\n"  # negated pattern
    assert w.read(str(root / "src" / "nested" / "ok.py")) == "Y = 3\n"


def test_binary_and_oversized_files_are_refused(tree):
    root, _ = tree
    w = ws(root)
    assert w.read(str(root / "blob.bin")) is None
    assert w.read(str(root / "huge.py")) is None  # 1.8 MB > 1 MB


def test_cache_follows_file_changes(tree):
    root, _ = tree
    w = ws(root)
    f = root / "src" / "util.py"
    assert "helper" in w.read(str(f))
    reads = w.reads
    assert "helper" in w.read(str(f))
    assert w.reads == reads  # cached
    f.write_text("def changed():\n    pass\n# longer than before\n")
    os.utime(f, ns=(1, 10**18))
    assert "changed" in w.read(str(f))


def test_list_dir_applies_the_rules(tree):
    root, _ = tree
    w = ws(root)
    names = [os.path.basename(p) for p in w.list_dir(str(root / "src" / "nested"), (".py",))]
    assert names == ["ok.py"]


def test_bad_exclude_glob_is_a_clear_error():
    with pytest.raises(ValueError, match="exclude"):
        Workspace(["/tmp"], ["**/*.py", None])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="exclude"):
        Workspace(["/tmp"], ["!"])


def test_path_from_uri():
    assert path_from_uri("file:///home/u/a%20b.py") == "/home/u/a b.py"
    assert path_from_uri("/plain/path.py") == "/plain/path.py"
