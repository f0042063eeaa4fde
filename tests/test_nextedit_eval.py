"""`flashls eval --next-edit` on a real git repository, against the fake DeepSeek, and
the case builder it uses."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from flashls.tools.nextedit_cases import cases_for_file
from tests.conftest import ROOT
from tests.fake_deepseek import FakeDeepSeek, Recorded, Reply
from tests.test_nextedit_e2e import CURSOR, region_of

BEFORE = ("def area(width, height):\n"
          "    total = width * height\n"
          "    return total\n"
          "\n" + "".join(f"X{i} = {i}\n" for i in range(40)) +
          "def unrelated():\n"
          "    return 1\n")
AFTER = BEFORE.replace("width", "size").replace("return 1", "return 2")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
                        "HOME": str(root), "PATH": "/usr/bin:/bin"})


def test_cases_replay_a_hunk_and_expect_the_ones_near_it():
    cases = list(cases_for_file(BEFORE, AFTER, "geo.py", "test", region_lines=24,
                                first_only=False))
    first = cases[0]
    assert first.category == "edit"
    assert first.edited.startswith("def area(size, height):\n    total = width")
    assert first.expected.startswith("def area(size, height):\n    total = size * height")
    assert "return 1" in first.expected  # far away: not part of this next edit
    assert first.history == (BEFORE,)
    last = cases[-1]  # the far hunk: nothing else changes near it
    assert last.category == "no_edit" and "return 2" in last.edited
    only_first = list(cases_for_file(BEFORE, AFTER, "geo.py", "test", region_lines=24,
                                     first_only=True))
    assert [c.case_id for c in only_first] == [first.case_id]


def rename_rule(req: Recorded) -> Reply:
    """A scripted model: a rename in the last diff is carried into the region."""
    if not req.path.endswith("/chat/completions"):
        return Reply(text="")
    user = req.body["messages"][-1]["content"]
    region = region_of(req).replace(CURSOR, "")
    removed = re.findall(r"^-(?!--)(.*)$", user, re.M)
    added = re.findall(r"^\+(?!\+\+)(.*)$", user, re.M)
    if removed and added:
        old = set(re.findall(r"\w+", removed[-1])) - set(re.findall(r"\w+", added[-1]))
        new = set(re.findall(r"\w+", added[-1])) - set(re.findall(r"\w+", removed[-1]))
        if len(old) == 1 and len(new) == 1:
            region = re.sub(rf"\b{old.pop()}\b", new.pop(), region)
    return Reply(text=f"```python\n{region}\n```")


@pytest.mark.timeout(120)
def test_eval_next_edit_on_a_git_repository(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "geo.py").write_text(BEFORE, encoding="utf-8")
    (repo / ".env").write_text("TOKEN=one\n", encoding="utf-8")
    git(repo, "add", "geo.py")
    git(repo, "add", "-f", ".env")
    git(repo, "commit", "-qm", "first")
    (repo / "geo.py").write_text(AFTER, encoding="utf-8")
    (repo / ".env").write_text("TOKEN=SECRET_TWO\n", encoding="utf-8")
    git(repo, "commit", "-qam", "rename width; change unrelated; rotate the token")
    (repo / "geo.py").write_text(AFTER.replace("return 2", "return 3"), encoding="utf-8")
    git(repo, "commit", "-qam", "one small change")

    with FakeDeepSeek(rename_rule) as fake:
        done = subprocess.run(
            [sys.executable, "-m", "flashls", "eval", "--next-edit", str(repo), "--json",
             "--base-url", fake.url, "--api-key", "sk-test", "--commits", "5"],
            capture_output=True, text=True, timeout=100, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        sent = "".join(json.dumps(r.body) for r in fake.completion_requests())
    run = report["run"]
    assert run["cases"] == 2 and run["editCases"] == 1 and run["noEditCases"] == 1
    systems = report["systems"]
    assert set(systems) == {"nextEdit", "inlineCompletion", "noEdit"}
    assert systems["nextEdit"]["exactMatchOnEdits"] == 1.0
    assert systems["nextEdit"]["noEditAccuracy"] == 1.0
    assert systems["noEdit"]["exactMatchOnEdits"] == 0.0
    assert systems["noEdit"]["noEditAccuracy"] == 1.0
    assert systems["nextEdit"]["costPerSuggestionUsd"] > 0
    assert systems["nextEdit"]["latencyMs"]["p50"] is not None
    assert "SECRET_TWO" not in sent and "TOKEN" not in sent  # excluded: never read


def test_eval_next_edit_refuses_a_folder_without_history(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "flashls", "eval", "--next-edit", str(tmp_path),
         "--api-key", "sk-test", "--base-url", "http://127.0.0.1:9"],
        capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2
    assert "not a git repository" in done.stderr
