"""Extra **tuning** projects: more third-party code to tune the ranking on, never reported.

Eight sessions of tuning on five dev projects per language left a gap of 2–11 points
between dev and test recall: rules fitted the dev projects more than the languages.
These projects widen what a rule is tried on. They were chosen in session 9 before any
run on them (widely used libraries of each registry, several files using each other,
none of them a test project or a close relative of one), and are read only by
`benchmarks.real_context_pool --tuning`. `benchmarks.real_context` never reads them, so
its dev and test figures stay comparable with earlier sessions. JS / TS has none: its
target is met.
"""

from __future__ import annotations

from benchmarks.real_context_sources import JDK, Project, _p

TUNING_PROJECTS: tuple[Project, ...] = tuple(
    _p("python", "tune", [("starlette", "0.37.2"), ("httpcore", "1.0.5"),
                          ("tomlkit", "0.12.5"), ("pluggy", "1.5.0"), ("anyio", "4.4.0")])


    + _p("go", "tune", [("golang-github-spf13-viper-dev", "1.10.1-1", "github.com/spf13/viper"),
                        ("golang-github-gorilla-websocket-dev", "1.5.0-2",
                         "github.com/gorilla/websocket"),
                        ("golang-github-go-playground-validator-v10-dev", "10.4.1-4",
                         "github.com/go-playground/validator/v10"),
                        ("golang-github-spf13-afero-dev", "1.9.3-1", "github.com/spf13/afero"),
                        ("golang-github-hashicorp-hcl-dev", "1.0.0-1.1",
                         "github.com/hashicorp/hcl")])


    + _p("rust", "tune", [("librust-hashbrown-dev", "0.12.3-1", "hashbrown-0.12.3"),
                          ("librust-smallvec-dev", "1.9.0-1", "smallvec-1.9.0"),
                          ("librust-regex-dev", "1.7.1-1", "regex-1.7.1"),
                          ("librust-serde-json-dev", "1.0.87-1", "serde_json-1.0.87"),
                          ("librust-url-dev", "2.3.1-1", "url-2.3.1")])


    + _p("java", "tune", [("java.util.regex", JDK, "java.base/java/util/regex"),
                          ("java.util.zip", JDK, "java.base/java/util/zip"),
                          ("java.lang.invoke", JDK, "java.base/java/lang/invoke"),
                          ("java.net", JDK, "java.base/java/net"),
                          ("java.nio.channels", JDK, "java.base/java/nio/channels")])


    + _p("cpp", "tune", [("pybind11-dev", "2.10.3-1", "usr/include"),
                         ("librange-v3-dev", "0.12.0-1", "usr/include"),
                         ("libmsgsl-dev", "4.0.0-2+deb12u1", "usr/include"),
                         ("libxtensor-dev", "0.24.3-1", "usr/include"),
                         ("libcli11-dev", "2.1.2+ds-1", "usr/include")])
)
