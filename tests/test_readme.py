"""The README is the short front door: the two commands first, and what it states is true."""

import json
import re
import shlex
from pathlib import Path

import pytest

from tests.docs_check import check_shell, shell_commands, tomllib

pytestmark = pytest.mark.skipif(tomllib is None, reason="needs tomllib (Python 3.11+)")

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")

INSTALL_AND_RUN = "pip install . && flashls"
TEST_COMMAND = "pip install -e '.[test]' && python -m pytest -q"


def _normalized(argv: list[str]) -> list[str]:
    """`python -m pip install --quiet …` and `pip install …` are the same command."""
    if argv[:3] == ["python", "-m", "pip"]:
        argv = ["pip", *argv[3:]]
    return [a for a in argv if a not in ("--quiet", "-q") or argv[:1] != ["pip"]]


def _ci_commands() -> list[list[str]]:
    return [_normalized(c) for c in shell_commands(CI)]


def test_readme_is_short():
    assert len(README.splitlines()) <= 200


def test_first_lines_give_the_two_commands():
    head = README.splitlines()[:15]
    assert INSTALL_AND_RUN in head
    assert TEST_COMMAND in head
    assert "npm ci" in "\n".join(README.splitlines()[:20])


def test_the_two_commands_pass_the_snippet_checks():
    assert check_shell(INSTALL_AND_RUN) == []
    assert check_shell(TEST_COMMAND) == []


def test_the_readme_test_command_is_what_ci_runs():
    """Both parts of the test command appear in .ci/run, and pytest runs as written."""
    ci = _ci_commands()
    install, test = (_normalized(shlex.split(part)) for part in TEST_COMMAND.split(" && "))
    assert install in ci and test in ci
    assert ci.index(install) < ci.index(test)


def test_ci_installs_the_vscode_client_the_way_the_readme_says():
    assert ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"] in _ci_commands()
    assert "(cd clients/vscode && npm ci" in CI


def test_install_and_run_command_starts_the_server():
    """`pip install .` installs this project and `flashls` is its entry point: main()."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["scripts"]["flashls"] == "flashls.cli:main"
    from flashls.cli import build_parser
    args = build_parser().parse_args([])
    assert args.command is None and not args.tcp


def test_settings_overview_table_matches_the_settings_definition():
    from flashls.settings import SPECS_BY_KEY
    rows = re.findall(r"^\| `([\w.]+)` \| (.+?) \|", README, flags=re.M)
    assert len(rows) >= 6
    for key, default in rows:
        assert key in SPECS_BY_KEY, key
        if default.startswith("`"):
            assert json.loads(default.strip("`")) == SPECS_BY_KEY[key].default, key


def test_readme_lists_what_ci_installs():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["optional-dependencies"]
    section = README.split("## What CI installs", 1)[1]
    for package in extras["test"] + extras["docs"]:
        name = re.split(r"[<>=\[]", package)[0]
        assert name in section, name
    assert "bash .ci/docs.sh" in section and "bash .ci/docs.sh" in CI
