"""The next edit benchmark's harness on a small release pair: with the oracle fake the
pipeline must carry every expected edit through, inline completion alone and "no
edit" must score what they structurally can, all in one run."""

from __future__ import annotations

import asyncio

from benchmarks.nextedit_bench import oracle, quality, rename_rules
from flashls.tools.nextedit_cases import cases_from_trees
from flashls.tools.nextedit_eval import eval_settings
from tests.fake_deepseek import FakeDeepSeek

OLD = ("class Point:\n"
       "    def __init__(self, x, y):\n"
       "        self.x = x\n"
       "        self.y = y\n"
       "\n"
       "    def norm(self):\n"
       "        return (self.x ** 2 + self.y ** 2) ** 0.5\n"
       + "".join(f"\nCONST_{i} = {i}\n" for i in range(30)) +
       "\ndef helper():\n    return 'v1'\n")
NEW = OLD.replace("self.x", "self.left").replace("self.y", "self.top") \
    .replace("'v1'", "'v2'")


def test_oracle_edits_pass_the_pipeline_and_baselines_score_what_they_can(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    for root, text in ((old, OLD), (new, NEW)):
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "point.py").write_text(text, encoding="utf-8")
    settings = eval_settings()
    cases = cases_from_trees(old, new, "point 1 -> 2", region_lines=24)
    assert {c.category for c in cases} == {"edit", "no_edit"}
    with FakeDeepSeek() as fake:
        summary = asyncio.run(quality(cases, settings, fake, oracle))
        rules = asyncio.run(quality(cases, settings, fake, rename_rules))
    assert summary["nextEdit"]["exactMatchOnEdits"] == 1.0
    assert summary["nextEdit"]["noEditAccuracy"] == 1.0
    assert summary["noEdit"]["exactMatchOnEdits"] == 0.0
    assert summary["noEdit"]["noEditAccuracy"] == 1.0
    assert summary["inlineCompletion"]["exactMatchOnEdits"] == 0.0  # edits are elsewhere
    assert summary["nextEdit"]["costPerRequestUsd"] > 0
    assert rules["nextEdit"]["noEditAccuracy"] == 1.0
