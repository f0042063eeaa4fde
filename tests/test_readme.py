"""The README documents what users depend on, generated from the code where possible."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_settings_table_matches_the_settings_definition():
    result = subprocess.run([sys.executable, "scripts/gen_readme_settings.py", "--check"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_first_lines_give_the_two_commands():
    head = "\n".join(README.splitlines()[:15])
    assert "pip install" in head and "flashls" in head and "pytest" in head


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m pytest" in ci and "python -m pytest" in README
