"""Third-party source trees for `benchmarks.real_context`, fetched once and cached.

Every project is pinned and comes from a package registry through its ordinary client:

* Python: the wheel from PyPI (`pip download --no-deps --only-binary :all:`). Pure-Python
  wheels carry exactly the package's modules; an sdist would also work but building its
  metadata runs the project's build backend, which a benchmark should not need.
* JavaScript / TypeScript: `npm pack NAME@VER` of packages that ship their `src/`.
* Go: Debian `golang-*-dev` packages (`apt-get download` + `dpkg -x`; sources under
  `/usr/share/gocode/src/<import path>`).
* Rust: Debian `librust-*-dev` packages (crate sources under `/usr/share/cargo/registry`).
* Java: packages of the JDK's `src.zip` from Debian `openjdk-17-source` (the .deb is
  downloaded once into the cache; each project extracts one module or package subtree).
* C/C++ (one row, `cpp`): Debian `-dev` packages of header-only or header-rich C++
  libraries whose headers include each other (`#include "format.h"`,
  `#include <spdlog/common.h>`); the workspace is the package's `usr/include`.

The projects were chosen before any tuning (widely used, several modules importing
each other, sources in the package) and split into a fixed **dev** half (tuning) and
**test** half (reported only). The cache lives in `$FLASHLS_BENCH_CACHE` or
`~/.cache/flashls-bench/`; once filled, no network is needed. Debian replaces point
releases on its mirror: a package whose pinned version is gone is fetched at the
mirror's version instead, with a note on stderr (openjdk-17-source 17.0.21.1 → 17.0.19
in December 2026), so a fresh cache may give slightly different figures.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Project:
    language: str  # python | js | go | rust | java | cpp
    name: str  # registry name (Debian package for go / rust / cpp, the package for java)
    version: str
    split: str  # dev | test | tune (benchmarks.real_context_tuning)
    subdir: str = ""  # the source root inside the unpacked package

    @property
    def key(self) -> str:
        safe = self.name.replace("/", "+").replace("@", "").replace(":", "_")
        return f"{self.language}/{safe}-{self.version}"


JDK = "17.0.21.1+2-1~deb12u1"  # openjdk-17-source
JDK_PACKAGE = "openjdk-17-source"


def _p(lang: str, split: str, entries: list[tuple]) -> list[Project]:
    return [Project(lang, *e[:2], split, *e[2:]) for e in entries]


PROJECTS: tuple[Project, ...] = tuple(
    _p("python", "dev", [("requests", "2.32.3"), ("click", "8.1.7"), ("jinja2", "3.1.4"),
                         ("httpx", "0.27.0"), ("rich", "13.7.1")])
    + _p("python", "test", [("flask", "3.0.3"), ("werkzeug", "3.0.3"), ("attrs", "23.2.0"),
                            ("urllib3", "2.2.2"), ("marshmallow", "3.21.3")])
    + _p("js", "dev", [("rxjs", "7.8.1", "src"), ("immer", "10.1.1", "src"),
                       ("d3-scale", "4.0.2", "src"), ("mobx", "6.13.1", "src"),
                       ("preact", "10.22.1", "src"), ("d3-array", "3.2.4", "src")])
    + _p("js", "test", [("@tanstack/query-core", "5.51.1", "src"),
                        ("d3-shape", "3.2.0", "src"), ("redux", "5.0.1", "src"),
                        ("@reduxjs/toolkit", "2.2.6", "src"), ("lodash-es", "4.17.21", ""),
                        ("@tanstack/table-core", "8.19.2", "src")])
    + _p("go", "dev", [("golang-github-spf13-cobra-dev", "1.6.1-1", "github.com/spf13/cobra"),
                       ("golang-github-sirupsen-logrus-dev", "1.9.0-1",
                        "github.com/sirupsen/logrus"),
                       ("golang-github-gorilla-mux-dev", "1.8.0-1", "github.com/gorilla/mux"),
                       ("golang-github-google-go-cmp-dev", "0.5.9-1", "github.com/google/go-cmp"),
                       ("golang-github-pelletier-go-toml.v2-dev", "2.0.6-1",
                        "github.com/pelletier/go-toml/v2")])
    + _p("go", "test", [("golang-github-spf13-pflag-dev", "1.0.6~git20210604-d5e0c0615ace-1",
                         "github.com/spf13/pflag"),
                        ("golang-github-urfave-cli-v2-dev", "2.3.0-2", "github.com/urfave/cli/v2"),
                        ("golang-gopkg-yaml.v3-dev", "3.0.1-3", "gopkg.in/yaml.v3"),
                        ("golang-github-stretchr-testify-dev", "1.8.1-1",
                         "github.com/stretchr/testify"),
                        ("golang-github-gin-gonic-gin-dev", "1.8.1-1", "github.com/gin-gonic/gin")])
    + _p("rust", "dev", [("librust-anyhow-dev", "1.0.69-1", "anyhow-1.0.69"),
                         ("librust-regex-syntax-dev", "0.6.27-1", "regex-syntax-0.6.27"),
                         ("librust-serde-dev", "1.0.152-2", "serde-1.0.152"),
                         ("librust-itertools-dev", "0.10.3-1", "itertools-0.10.3"),
                         ("librust-nom-dev", "7.1.1-1", "nom-7.1.1")])
    + _p("rust", "test", [("librust-syn-dev", "1.0.107-1", "syn-1.0.107"),
                          ("librust-semver-dev", "1.0.14-1", "semver-1.0.14"),
                          ("librust-indexmap-dev", "1.9.2-1", "indexmap-1.9.2"),
                          ("librust-bytes-dev", "1.2.1-1", "bytes-1.2.1"),
                          ("librust-toml-edit-dev", "0.14.4-2", "toml_edit-0.14.4"),
                          ("librust-chrono-dev", "0.4.23-2", "chrono-0.4.23")])
    # Java: JDK 17 packages, each a set of files importing each other (and the names
    # of their own package without imports); chosen and split before any tuning: dev
    # has value types (java.time), concurrency, streams, a small library (logging) and
    # a two-package module (httpserver); test the same mix (net.http: two packages,
    # sql: interfaces, nio.file, ASM: a visitor library, text: formatters)
    + _p("java", "dev", [("java.time", JDK, "java.base/java/time"),
                         ("java.util.concurrent", JDK, "java.base/java/util/concurrent"),
                         ("java.util.stream", JDK, "java.base/java/util/stream"),
                         ("java.util.logging", JDK, "java.logging/java/util/logging"),
                         ("jdk.httpserver", JDK, "jdk.httpserver")])
    + _p("java", "test", [("java.net.http", JDK, "java.net.http"),
                          ("java.sql", JDK, "java.sql/java/sql"),
                          ("java.nio.file", JDK, "java.base/java/nio/file"),
                          ("jdk.internal.org.objectweb.asm", JDK,
                           "java.base/jdk/internal/org/objectweb/asm"),
                          ("java.text", JDK, "java.base/java/text")])
    # C/C++: header libraries whose headers include each other, chosen and split before
    # any tuning. One row: C-only -dev packages ship declarations without cross-file
    # implementation, and C++ headers are `.h` as often as `.hpp`. Both halves mix
    # quoted includes (fmt, glm, rapidjson, cereal / Eigen, msgpack, toml++, yaml-cpp)
    # and project-prefixed angle includes (spdlog / nlohmann-json: `<spdlog/common.h>`)
    + _p("cpp", "dev", [("libfmt-dev", "9.1.0+ds1-2", "usr/include"),
                        ("libspdlog-dev", "1:1.10.0+ds-0.4", "usr/include"),
                        ("libglm-dev", "0.9.9.8+ds-6", "usr/include"),
                        ("rapidjson-dev", "1.1.0+dfsg2-7.1", "usr/include"),
                        ("libcereal-dev", "1.3.2+dfsg-4", "usr/include")])
    + _p("cpp", "test", [("libeigen3-dev", "3.4.0-4", "usr/include/eigen3"),
                         ("libmsgpack-cxx-dev", "4.1.3-1", "usr/include"),
                         ("libtomlplusplus-dev", "3.3.0+ds-1", "usr/include"),
                         ("libyaml-cpp-dev", "0.7.0+dfsg-8+b1", "usr/include"),
                         ("nlohmann-json3-dev", "3.11.2-2", "usr/include")])
)

LANGUAGES = ("python", "js", "go", "rust", "java", "cpp")


def cache_dir() -> Path:
    return Path(os.environ.get("FLASHLS_BENCH_CACHE")
                or Path.home() / ".cache" / "flashls-bench")


class FetchError(RuntimeError):
    pass


def _run(cmd: list[str], cwd: Path) -> None:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise FetchError(f"{' '.join(cmd)}: {done.stderr.strip()[-400:]}")


def _fetch_python(p: Project, tmp: Path, dest: Path) -> None:
    _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
          f"{p.name}=={p.version}", "-d", str(tmp)], tmp)
    wheels = list(tmp.glob("*.whl"))
    if not wheels:
        raise FetchError(f"no wheel for {p.name}=={p.version}")
    with zipfile.ZipFile(wheels[0]) as zf:
        for member in zf.namelist():
            if member.endswith((".py", ".pyi")) and ".dist-info/" not in member:
                zf.extract(member, dest)


def _fetch_js(p: Project, tmp: Path, dest: Path) -> None:
    _run(["npm", "pack", "-q", "--pack-destination", str(tmp), f"{p.name}@{p.version}"], tmp)
    tarballs = list(tmp.glob("*.tgz"))
    if not tarballs:
        raise FetchError(f"npm pack produced nothing for {p.name}@{p.version}")
    with tarfile.open(tarballs[0]) as tf:
        members = [m for m in tf.getmembers() if m.isfile() and m.name.startswith("package/")]
        for m in members:
            m.name = m.name[len("package/"):]
            if ".." in Path(m.name).parts:
                continue
            tf.extract(m, dest, filter="data")


def _mirror_versions(name: str) -> list[str]:
    """The versions of a Debian package the configured mirror offers, newest first."""
    done = subprocess.run(["apt-cache", "madison", name], capture_output=True, text=True,
                          timeout=120)
    return [line.split("|")[1].strip() for line in done.stdout.splitlines()
            if line.count("|") >= 2]


def _fetch_deb(p: Project, tmp: Path, dest: Path) -> None:
    """Download the pinned version; if the mirror dropped it (Debian replaces point
    releases and security updates in place), take the mirror's newest and say so."""
    try:
        _run(["apt-get", "download", "-q", f"{p.name}={p.version}"], tmp)
    except FetchError as err:
        offered = _mirror_versions(p.name)
        if "was not found" not in str(err) or not offered:
            raise
        print(f"note: {p.name} {p.version} is no longer on the mirror; using {offered[0]} "
              f"(figures may differ slightly from runs on the pinned version)", file=sys.stderr)
        _run(["apt-get", "download", "-q", f"{p.name}={offered[0]}"], tmp)
        (dest / ".substituted").write_text(f"{p.name} {offered[0]}\n")
    debs = list(tmp.glob("*.deb"))
    if not debs:
        raise FetchError(f"apt-get download produced nothing for {p.name}")
    _run(["dpkg", "-x", str(debs[0]), str(dest)], tmp)


def _jdk_src_zip() -> Path:
    """The JDK's src.zip, unpacked once from openjdk-17-source into the cache."""
    base = cache_dir() / "java" / f"_{JDK_PACKAGE}-{JDK}"
    found = base / "usr/lib/jvm/openjdk-17/lib/src.zip"
    if (base / ".complete").exists() and found.is_file():
        return found
    if base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="flashls-fetch-") as tmp:
        _fetch_deb(Project("java", JDK_PACKAGE, JDK, "dev"), Path(tmp), base)
    if not found.is_file():
        raise FetchError(f"{JDK_PACKAGE} has no src.zip")
    (base / ".complete").write_text(f"{JDK_PACKAGE} {JDK}\n")
    return found


def _fetch_java(p: Project, tmp: Path, dest: Path) -> None:
    prefix = p.subdir.rstrip("/") + "/"
    with zipfile.ZipFile(_jdk_src_zip()) as zf:
        members = [m for m in zf.namelist()
                   if m.startswith(prefix) and m.endswith(".java") and ".." not in m]
        if not members:
            raise FetchError(f"{p.subdir} is not in the JDK's src.zip")
        for member in members:
            zf.extract(member, dest)


_FETCHERS = {"python": _fetch_python, "js": _fetch_js, "go": _fetch_deb, "rust": _fetch_deb,
             "java": _fetch_java, "cpp": _fetch_deb}


def source_root(p: Project) -> Path:
    """The unpacked tree's source root (fetching it first when not cached)."""
    base = cache_dir() / p.key
    done = base / ".complete"
    if not done.exists():
        if base.exists():
            shutil.rmtree(base)
        base.mkdir(parents=True)
        with tempfile.TemporaryDirectory(prefix="flashls-fetch-") as tmp:
            _FETCHERS[p.language](p, Path(tmp), base)
        done.write_text(f"{p.name} {p.version}\n")
    if p.language == "go":
        return _first_dir(base / "usr/share/gocode/src" / p.subdir)
    if p.language == "rust":
        found = glob.glob(str(base / "usr/share/cargo/registry" / (p.subdir.split("-")[0] + "-*")))
        return Path(found[0]) if found else base
    return base / p.subdir if p.subdir else base


def _first_dir(path: Path) -> Path:
    if not path.is_dir():
        raise FetchError(f"{path} is missing from the package")
    return path


def available(language: str | None = None, projects: tuple[Project, ...] = PROJECTS
              ) -> list[tuple[Project, Path | None, str]]:
    """(project, source root or None, error) for every project (of `language`)."""
    out = []
    for p in projects:
        if language and p.language != language:
            continue
        try:
            out.append((p, source_root(p), ""))
        except (FetchError, OSError, subprocess.SubprocessError) as err:
            out.append((p, None, str(err)))
    return out


if __name__ == "__main__":
    for project, root, error in available(sys.argv[1] if len(sys.argv) > 1 else None):
        print(f"{project.split:<5}{project.key:<60}{root or 'FAILED: ' + error}")
