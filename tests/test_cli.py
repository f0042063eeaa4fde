"""The command line: LSP by default, --version, and `flashls context`."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WS = ROOT / "fixtures" / "workspaces" / "py_inventory"


def flashls(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flashls", *args], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)


def test_version_and_help_list_the_subcommands():
    assert flashls("--version").stdout.startswith("flashls ")
    help_text = flashls("--help").stdout
    for name in ("context", "stats", "doctor", "eval", "--tcp", "--stdio"):
        assert name in help_text


def test_context_shows_the_tiers_and_the_exact_prompt():
    result = flashls("context", f"{WS / 'app.py'}:12:1", "--root", str(WS), "--json")
    assert result.returncode == 0, result.stderr
    preview = json.loads(result.stdout)
    assert preview["endpoint"] == "fim" and preview["model"] == "deepseek-flash"
    sources = {t["source"] for t in preview["tiers"]}
    assert "inventory/models.py" in sources  # a neighbor through `import`
    lines = (WS / "app.py").read_text().splitlines()
    assert preview["prompt"].endswith("\n".join(lines[9:11]) + "\n")  # ends at the cursor
    assert preview["suffix"].startswith(lines[11])


def test_context_rejects_bad_locations_clearly():
    result = flashls("context", "app.py:0:1")
    assert result.returncode == 2 and "1-based" in result.stderr
    result = flashls("context", "/nonexistent/file.py:1:1")
    assert result.returncode == 2 and "cannot read" in result.stderr
