"""The tuning projects stay apart from the reported dev and test projects."""

from benchmarks.real_context_sources import PROJECTS
from benchmarks.real_context_tuning import TUNING_PROJECTS


def test_tuning_projects_are_neither_dev_nor_test_projects():
    reported = {(p.language, p.name, p.subdir) for p in PROJECTS}
    assert TUNING_PROJECTS
    for p in TUNING_PROJECTS:
        assert p.split == "tune"
        assert (p.language, p.name, p.subdir) not in reported


def test_reported_projects_have_no_tuning_split():
    assert {p.split for p in PROJECTS} == {"dev", "test"}
