"""The documentation site: generated where it can be, complete, and its commands work.

`mkdocs build --strict` (.ci/docs.sh) checks links once more with the real renderer;
these tests need no docs extra, so the test command catches the same mistakes.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys

import pytest

from tests.docs_check import (DOCS, ROOT, Snippet, check_helix_toml, check_settings_json,
                              check_shell, check_snippet, heading_ids, link_problem,
                              relative_links, runnable_snippets, tomllib)

pytestmark = pytest.mark.skipif(tomllib is None, reason="needs tomllib (Python 3.11+)")

MKDOCS_YML = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
OLD_HEADINGS = ROOT / "fixtures" / "docs" / "old-readme-headings.txt"
DOCS_MAP = DOCS / "development" / "docs-map.md"
PAGES = sorted(DOCS.rglob("*.md"))


def nav_pages() -> list[str]:
    """Page paths listed under `nav:` in mkdocs.yml (PyYAML is not a test dependency)."""
    nav = MKDOCS_YML.split("\nnav:\n", 1)[1]
    return re.findall(r"^\s+-\s+(?:[^:\n]+:\s+)?([\w./-]+\.md)\s*$", nav, flags=re.M)


# --- settings reference --------------------------------------------------------------

def test_settings_reference_matches_the_settings_definition():
    result = subprocess.run([sys.executable, "scripts/gen_docs_settings.py", "--check"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_settings_reference_has_a_section_per_setting_with_its_default():
    from flashls.settings import SPECS
    page = (DOCS / "settings.md").read_text(encoding="utf-8")
    for spec in SPECS:
        section = page.split(f"### `flashls.{spec.key}`\n", 1)
        assert len(section) == 2, spec.key
        assert spec.description in section[1].split("\n### ", 1)[0]


def test_the_old_readme_generator_name_still_checks_the_reference(tmp_path):
    """COMMON instructions say `gen_readme_settings.py`; it must check the same page."""
    result = subprocess.run([sys.executable, "scripts/gen_readme_settings.py", "--check"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_drift_is_detected(tmp_path, monkeypatch):
    """Edit the generated part by hand and --check must fail."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_docs_settings as gen
    finally:
        sys.path.pop(0)
    page = tmp_path / "settings.md"
    page.write_text(gen.PAGE.read_text(encoding="utf-8").replace("| `64` |", "| `65` |"),
                    encoding="utf-8")
    monkeypatch.setattr(gen, "PAGE", page)
    assert gen.main(["--check"]) == 1
    assert gen.main([]) == 0 and gen.main(["--check"]) == 0


# --- structure and links -------------------------------------------------------------

def test_every_page_is_in_the_nav_and_every_nav_entry_exists():
    listed = nav_pages()
    on_disk = {str(p.relative_to(DOCS)) for p in PAGES}
    assert len(listed) == len(set(listed)), "a page is listed twice"
    assert set(listed) - on_disk == set(), "nav entries without a page"
    assert on_disk - set(listed) == set(), "pages missing from the nav"


@pytest.mark.parametrize("owned", [
    "editors/daily-use.md", "how-it-works/context-real-code.md", "how-it-works/next-edit.md",
    "providers/index.md", "providers/self-hosting.md", "providers/local-models.md",
    "providers/loadtest.md", "security/credentials.md", "performance/big-files.md",
    "development/vscode-e2e.md", "development/context-log.md",
    "development/big-files-log.md"])
def test_pages_written_by_other_work_have_their_place(owned):
    assert owned in nav_pages()


def test_every_module_is_in_the_architecture_module_map():
    """A new module lands in the map with its commit; a removed one leaves it."""
    text = (DOCS / "development" / "architecture.md").read_text(encoding="utf-8")
    mapped = set(re.findall(r"^\| `(flashls/[\w/]+\.py)` \|", text, flags=re.M))
    modules = {str(p.relative_to(ROOT)) for p in (ROOT / "flashls").rglob("*.py")
               if p.name not in ("__init__.py", "__main__.py")}
    assert sorted(modules - mapped) == [], "modules missing from the module map"
    assert sorted(mapped - modules) == [], "the map names modules that do not exist"


@pytest.mark.parametrize("page", [*PAGES, ROOT / "README.md"], ids=lambda p: p.name)
def test_relative_links_resolve_to_files_and_headings(page):
    text = page.read_text(encoding="utf-8")
    problems = [f"line {n}: {problem}" for n, target in relative_links(text)
                if (problem := link_problem(page, target))]
    assert problems == []


def test_link_checker_catches_a_missing_page_and_anchor():
    source = DOCS / "index.md"
    assert link_problem(source, "nope.md") is not None
    assert "no heading" in link_problem(source, "settings.md#nope")
    assert link_problem(source, "settings.md#flashlsapikey") is None


# --- nothing lost ---------------------------------------------------------------------

def _old_headings() -> list[tuple[str, str, str]]:
    """(level, heading, parent ## heading) from the fixture, in README order."""
    rows, parent = [], ""
    for line in OLD_HEADINGS.read_text(encoding="utf-8").splitlines():
        level, text = line.split(" ", 1)
        if level == "##":
            parent = text
        rows.append((level, text, parent if level == "###" else ""))
    return rows


def _map_rows() -> dict[tuple[str, str, str], str]:
    rows = {}
    for line in DOCS_MAP.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] in ("##", "###"):
            target = re.search(r"\]\(([^)]+)\)", cells[3])
            rows[(cells[0], cells[1], cells[2])] = target.group(1) if target else ""
    return rows


def test_fixture_is_the_heading_list_of_the_old_readme():
    old = subprocess.run(["git", "show", "2c5b72b:README.md"], cwd=ROOT,
                         capture_output=True, text=True)
    if old.returncode != 0:
        pytest.skip("commit 2c5b72b is not in this checkout (shallow clone)")
    fence, wanted = False, []
    for line in old.stdout.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and line.startswith(("## ", "### ")):
            wanted.append(line)
    assert OLD_HEADINGS.read_text(encoding="utf-8").splitlines() == wanted


def test_every_old_readme_heading_has_a_new_home():
    headings = _old_headings()
    rows = _map_rows()
    assert len(headings) == 62
    unmapped = [h for h in headings if h not in rows]
    assert unmapped == []
    missing = [(h, rows[h]) for h in headings if link_problem(DOCS_MAP, rows[h])]
    assert missing == []


def test_map_targets_are_the_same_heading_text():
    """A row may not point a heading at some unrelated section of the right page."""
    for (level, text, _), target in _map_rows().items():
        page, anchor = target.split("#", 1)
        from tests.docs_check import heading_id_list
        titles = dict((a, t) for t, a in heading_id_list(
            (DOCS_MAP.parent / page).resolve().read_text(encoding="utf-8")))
        assert titles.get(anchor) == text, (text, target)


# --- runnable snippets -----------------------------------------------------------------

SNIPPETS = [s for page in [ROOT / "README.md", *PAGES] for s in runnable_snippets(page)]


def test_the_pages_mark_snippets_as_runnable():
    sources = {s.source for s in SNIPPETS}
    assert {"README.md", "docs/getting-started.md", "docs/settings.md"} <= sources
    assert {s.lang for s in SNIPPETS} >= {"sh", "json"}


@pytest.mark.parametrize("snippet", SNIPPETS, ids=Snippet.where)
def test_runnable_snippet(snippet):
    assert check_snippet(snippet) == []


@pytest.mark.parametrize("body, expected", [
    ('{"flashls.completion.maxTokens": 0}', "below the minimum"),
    ('{"flashls.completion.multiline": "sometimes"}', "not one of"),
    ('{"flashls.completion.maxToken": 64}', "unknown setting"),
    ('{"flashls": {"completion": {"enable": "yes"}}}', "expected true or false"),
    ('{"editor.fontSize": 12}', "not a flashls setting"),
    ('{"flashls.serverPath": "/usr/bin/flashls"}', "no flashls setting"),
])
def test_settings_checker_rejects_bad_snippets(body, expected):
    assert any(expected in p for p in check_settings_json(body))


def test_settings_checker_accepts_vscode_only_keys_beside_real_ones():
    assert check_settings_json('{"flashls.serverPath": "x", "flashls.model": "m"}') == []


@pytest.mark.parametrize("body, expected", [
    ("flashls stats --dayz 3", "unrecognized arguments"),
    ("flashls context", "required"),
    ("flashls frobnicate", "invalid choice"),
    ("pip install -e '.[tests]'", "no extra 'tests'"),
    ("python -m benchmarks.latency --roundz 3", "no option --roundz"),
    ("python scripts/gen_missing.py", "no script"),
    ("cd clients/emacs", "no folder"),
    ("cd clients/vscode && code --install-extension flashls-9.9.9.vsix", "vsce packages"),
    ("export DEEPSEK_API_KEY=x", "reads no variable"),
    ("curl https://example.com", "does not know"),
])
def test_shell_checker_rejects_bad_commands(body, expected):
    problems = check_shell(body)
    assert any(expected in p for p in problems), problems


def test_helix_toml_checker_reads_the_settings_table():
    good = '[language-server.flashls]\ncommand = "flashls"\n[language-server.flashls.config.flashls]\nmodel = "m"\n'
    assert check_helix_toml(good) == []
    assert any("unknown setting" in p for p in check_helix_toml(good + "modle = 1\n"))


# --- --help links ------------------------------------------------------------------

def _help(argv: list[str]) -> str:
    from flashls.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 0
    return out.getvalue()


def _subcommands() -> list[str]:
    from flashls.cli import SUBCOMMANDS, _load_subcommands
    _load_subcommands()
    return sorted(SUBCOMMANDS)


@pytest.mark.parametrize("argv", [["--help"], *([name, "--help"] for name in _subcommands())],
                         ids=" ".join)
def test_help_ends_with_a_link_to_an_existing_page(argv):
    last = _help(argv).strip().splitlines()[-1]
    match = re.fullmatch(r"Documentation: docs/(\S+)", last)
    assert match, last
    assert link_problem(DOCS / "index.md", match.group(1)) is None


def test_each_documented_subcommand_links_to_its_own_page():
    from flashls.docs_links import OVERVIEW, PAGES as LINKS
    for name in _subcommands():
        assert name in LINKS, f"add flashls/docs_links.py PAGES[{name!r}]"
        assert LINKS[name] != OVERVIEW
    assert "doctor" in _help(["doctor", "--help"]).splitlines()[-1]
