"""The workspace boundary: which files may be read for context, and a cache of them.

Every file that context assembly reads from disk or takes from an open buffer goes
through `Workspace.allowed` / `Workspace.read`. The rules, all enforced here:

* only files inside a workspace folder, after resolving symlinks and `..`;
* never files matching the exclude globs (the built-in credential and build-output
  globs plus `flashls.exclude`, checked on both the path as named and its resolved
  target) or ignored by a `.gitignore` / `.git/info/exclude`;
* never binary files (a NUL byte in the first 8 KB) or files over `max_bytes`.
"""

from __future__ import annotations

import logging
import os
import stat as stat_mode
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence
from urllib.parse import unquote, urlparse

import pathspec
from cachetools import LRUCache

from ..settings import CREDENTIAL_FILE, CREDENTIAL_PATTERNS, EXCLUDED, effective_excludes
from .timed_cache import TimedCache

MAX_FILE_BYTES = 1_000_000
BOUNDARY_TTL = 2.0  # seconds a path's allowed/denied verdict is reused (symlinks, ignores)
_SNIFF_BYTES = 8192


def compile_globs(patterns: Sequence[str]) -> pathspec.PathSpec:
    """Exclude globs (gitignore syntax); a malformed one is a clear ValueError."""
    bad = [p for p in patterns if not isinstance(p, str)]
    if bad:
        raise ValueError(f"exclude globs must be strings, got {bad[0]!r}")
    # "gitignore" is the factory's name since pathspec 1.0; older releases call it
    # "gitwildmatch" (now deprecated)
    factory = "gitignore" if "gitignore" in pathspec.util._registered_patterns \
        else "gitwildmatch"
    try:
        return pathspec.PathSpec.from_lines(factory, list(patterns))
    except Exception as err:
        raise ValueError(f"invalid exclude glob: {err}") from err


def path_from_uri(uri: str) -> str:
    """Filesystem path of a `file://` URI (other schemes and plain paths pass through)."""
    if uri.startswith("file:"):
        parsed = urlparse(uri)
        path = unquote(parsed.path)
        if parsed.netloc and parsed.netloc != "localhost":
            path = f"//{parsed.netloc}{path}"
        if os.name == "nt" and len(path) > 2 and path[0] == "/" and path[2] == ":":
            path = path[1:]
        return path
    return uri


@dataclass(frozen=True)
class _Stamp:
    mtime_ns: int
    size: int


log = logging.getLogger(__name__)

OUTSIDE_WORKSPACE = "outside_workspace"  # verdict / status reason code
_CREDENTIALS = compile_globs(CREDENTIAL_PATTERNS)


def glob_verdict(spec: pathspec.PathSpec, rels: Iterable[str]) -> str | None:
    """CREDENTIAL_FILE or EXCLUDED when `spec` excludes any of the POSIX paths `rels`
    (a credential glob that excludes it decides the reason), else None."""
    verdict = None
    for rel in rels:
        if spec.match_file(rel):
            if _CREDENTIALS.match_file(rel):
                return CREDENTIAL_FILE
            verdict = EXCLUDED
    return verdict


class Workspace:
    """Workspace folders plus exclude globs; the only door to files on disk."""

    def __init__(self, roots: Sequence[str], exclude: Sequence[str] = (),
                 *, max_bytes: int = MAX_FILE_BYTES, use_gitignore: bool = True):
        self.roots: tuple[str, ...] = tuple(
            os.path.realpath(os.path.expanduser(str(r))) for r in roots if str(r))
        self.max_bytes = max_bytes
        self.use_gitignore = use_gitignore
        self._exclude = compile_globs(exclude)
        self._lock = threading.RLock()
        self._texts: LRUCache = LRUCache(maxsize=512)  # realpath -> (stamp, text | None)
        self._ignores: LRUCache = LRUCache(maxsize=1024)  # dir -> (stamp, spec | None)
        # asked hundreds of times per request: a dict lookup each (`timed_cache`)
        self._verdicts = TimedCache(maxsize=8192, ttl=BOUNDARY_TTL)
        self._reals = TimedCache(maxsize=8192, ttl=BOUNDARY_TTL)
        self._globbed: LRUCache = LRUCache(maxsize=4096)  # relative path -> glob verdict
        self._relatives: LRUCache = LRUCache(maxsize=4096)  # (path, realpath) -> relative
        self.cache = TimedCache(maxsize=1024, ttl=BOUNDARY_TTL)  # imports.py
        self.reads = 0  # files actually read from disk (tests, benchmark)

    # -- boundary ----------------------------------------------------------
    def real(self, path: str) -> str:
        """`os.path.realpath`, remembered for `BOUNDARY_TTL` seconds."""
        hit = self._reals.get(path)  # TimedCache: its own lock where it needs one
        if hit is None:
            hit = self._reals[path] = os.path.realpath(path)
        return hit

    def root_of(self, path: str) -> str | None:
        """The workspace folder containing `path` (resolved), or None."""
        real = self.real(path)
        best = None
        for root in self.roots:
            if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
                if best is None or len(root) > len(best):
                    best = root
        return best

    def contains(self, path: str) -> bool:
        """Whether `path`, after resolving symlinks and `..`, lies in a workspace folder."""
        return self.root_of(path) is not None

    def relative(self, path: str) -> str:
        """Workspace-relative POSIX path (prefixed with the folder name when multi-root)."""
        real = self.real(path)
        key = (path, real)  # a function of the resolved path (roots are fixed)
        hit = self._relatives.get(key)
        if hit is not None:
            return hit
        root = self.root_of(real)
        if root is None:
            rel = Path(path).name
        else:
            rel = Path(os.path.relpath(real, root)).as_posix()
            if len(self.roots) > 1:
                rel = f"{Path(root).name}/{rel}"
        with self._lock:
            self._relatives[key] = rel
        return rel

    def excluded(self, path: str) -> bool:
        """Whether the exclude globs or git ignore `path` (as named or resolved)."""
        return self.exclusion(path) is not None

    def exclusion(self, path: str) -> str | None:
        """Why `path` is excluded: CREDENTIAL_FILE, EXCLUDED (a glob, git-ignored, or
        outside every folder), or None when it is not."""
        real = self.real(path)
        root = self.root_of(real)
        if root is None:
            return EXCLUDED
        candidates = {Path(os.path.relpath(real, root)).as_posix()}
        named = os.path.abspath(path)
        named_root = next((r for r in self.roots if named.startswith(r.rstrip(os.sep) + os.sep)),
                          None)
        if named_root:
            candidates.add(Path(os.path.relpath(named, named_root)).as_posix())
        verdict = None
        for rel in candidates:
            verdict = self._glob_verdict(rel) or verdict
            if verdict == CREDENTIAL_FILE:
                return verdict
        if verdict is None and self.use_gitignore and self._git_ignored(real, root):
            verdict = EXCLUDED
        return verdict

    def _glob_verdict(self, rel: str) -> str | None:
        hit = self._globbed.get(rel, "")
        if hit == "":
            hit = glob_verdict(self._exclude, (rel,))
            with self._lock:
                self._globbed[rel] = hit
        return hit

    def verdict(self, path: str) -> str | None:
        """None when `path` may be read and sent; else OUTSIDE_WORKSPACE, CREDENTIAL_FILE
        or EXCLUDED. Reused for `BOUNDARY_TTL` seconds: requests come per keystroke."""
        if not path or not os.path.isabs(path):
            return OUTSIDE_WORKSPACE  # no location (untitled:) is no place in a folder
        hit = self._verdicts.get(path, "")
        if hit != "":
            return hit
        verdict = OUTSIDE_WORKSPACE if not self.contains(path) else self.exclusion(path)
        self._verdicts[path] = verdict
        return verdict

    def allowed(self, path: str) -> bool:
        """Inside the workspace and not excluded (content checks happen in `read`)."""
        return self.verdict(path) is None

    # -- reading -----------------------------------------------------------
    def read(self, path: str) -> str | None:
        """The text of `path`, or None when any rule forbids reading it."""
        return self.read_stamped(path)[0]

    def read_stamped(self, path: str) -> tuple[str | None, tuple[int, int] | None]:
        """`read(path)` and the `stamp` of what was read, from one `stat` (a request
        reads every neighbor file: `stamp` after `read` stats it again)."""
        if not self.allowed(path):
            return None, None
        real = self.real(path)
        try:
            st = os.stat(real)
        except OSError:
            return None, None
        if not stat_mode.S_ISREG(st.st_mode) or st.st_size > self.max_bytes:
            return None, None  # `os.path.isfile` is this test of a `stat`
        stamp = _Stamp(st.st_mtime_ns, st.st_size)
        with self._lock:
            hit = self._texts.get(real)
            if hit is not None and hit[0] == stamp:
                return hit[1], (st.st_mtime_ns, st.st_size)
        text = self._read_text(real, st.st_size)
        with self._lock:
            self._texts[real] = (stamp, text)
        return text, (st.st_mtime_ns, st.st_size)

    def stamp(self, path: str) -> tuple[int, int] | None:
        """(mtime_ns, size) of a readable file, the key parsed caches are validated by."""
        try:
            st = os.stat(self.real(path))
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def _read_text(self, real: str, size: int) -> str | None:
        try:
            with open(real, "rb") as fh:
                data = fh.read(self.max_bytes + 1)
        except OSError:
            return None
        self.reads += 1
        if len(data) > self.max_bytes or b"\0" in data[:_SNIFF_BYTES]:
            return None
        return data.decode("utf-8", errors="replace")

    def list_dir(self, directory: str, extensions: Iterable[str]) -> list[str]:
        """Allowed files in `directory` with one of `extensions`, sorted."""
        return list(self.iter_dir(directory, extensions))

    def iter_dir(self, directory: str, extensions: Iterable[str]) -> Iterator[str]:
        """`list_dir`, each file's rules checked only when it is reached: a caller
        wanting the first few files of a big directory pays for those only."""
        exts = tuple(extensions)
        if not self.contains(directory):
            return
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            return
        for name in names:
            full = os.path.join(directory, name)
            if name.endswith(exts) and os.path.isfile(full) and self.allowed(full):
                yield full

    # -- git ignores -------------------------------------------------------
    def _git_ignored(self, real: str, root: str) -> bool:
        """Apply every .gitignore from the root down to the file's folder, git-style:
        the deepest file with a matching pattern decides."""
        rel_dirs = Path(os.path.relpath(os.path.dirname(real), root)).parts
        directory = root
        verdict = False
        chain = [root] + [os.path.join(root, *rel_dirs[:i + 1]) for i in range(len(rel_dirs))]
        for directory in chain:
            if directory != root and os.path.basename(directory) == ".git":
                return True
            spec = self._ignore_spec(directory, is_root=directory == root)
            if spec is None:
                continue
            rel = Path(os.path.relpath(real, directory)).as_posix()
            result = spec.check_file(rel)
            if result.include is not None:
                verdict = result.include
        return verdict

    def _ignore_spec(self, directory: str, *, is_root: bool) -> pathspec.GitIgnoreSpec | None:
        files = [os.path.join(directory, ".gitignore")]
        if is_root:
            files.append(os.path.join(directory, ".git", "info", "exclude"))
        stamps = []
        for f in files:
            try:
                st = os.stat(f)
                stamps.append((f, st.st_mtime_ns, st.st_size))
            except OSError:
                pass
        key = tuple(stamps)
        with self._lock:
            hit = self._ignores.get(directory)
            if hit is not None and hit[0] == key:
                return hit[1]
        spec = None
        if stamps:
            lines: list[str] = []
            for f, _, size in stamps:
                if size > self.max_bytes:
                    continue
                try:
                    with open(f, encoding="utf-8", errors="replace") as fh:
                        lines.extend(fh.read().splitlines())
                except OSError:
                    continue
            try:
                spec = pathspec.GitIgnoreSpec.from_lines(lines)
            except Exception:  # an unparsable .gitignore ignores nothing rather than crash
                spec = None
        with self._lock:
            self._ignores[directory] = (key, spec)
        return spec


class WorkspaceBoundary:
    """The Workspace for the current folders and exclude globs, rebuilt only when either
    changes; one instance serves completions and code actions (one set of file caches).
    `exclude` gives the user's `flashls.exclude`: the built-in globs always come first."""

    def __init__(self, roots: Callable[[], Sequence], exclude: Callable[[], Sequence[str]]):
        self.roots = roots
        self.exclude = exclude
        self._key: tuple | None = None
        self._workspace: Workspace | None = None

    def get(self) -> "Workspace | None":
        key = (tuple(str(r) for r in self.roots()), tuple(effective_excludes(self.exclude())))
        if key != self._key:
            try:
                self._workspace = Workspace(key[0], key[1]) if key[0] else None
            except ValueError as err:  # an unusable folder: no cross-file context
                log.info("no workspace boundary: %s", err)
                self._workspace = None
            self._key = key
        return self._workspace
