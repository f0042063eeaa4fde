"""Where each command is documented, so `--help` can point there.

Paths are into the repository's `docs/` folder (the MkDocs site); a subcommand
without an entry points at the command-line overview. `tests/test_docs.py` checks that
every registered subcommand has an entry and that each page and anchor exists.
"""

from __future__ import annotations

DOCS_DIR = "docs"
OVERVIEW = "interfaces.md#command-line"
HELP_PREFIX = "Documentation: "

PAGES: dict[str, str] = {
    "context": "how-it-works/context.md#seeing-exactly-what-is-sent",
    "stats": "usage.md#flashls-stats-and-flashlsshowusage",
    "doctor": "usage.md#flashls-doctor",
    "eval": "usage.md#flashls-eval-measure-a-model-on-your-own-repository",
    "loadtest": "providers/loadtest.md",
}


def page_for(command: str | None) -> str:
    """The docs page (and anchor) for a subcommand; None means `flashls` itself."""
    if command is None:
        return OVERVIEW
    return PAGES.get(command, OVERVIEW)


def help_epilog(command: str | None) -> str:
    """The last line of a `--help` text."""
    return f"{HELP_PREFIX}{DOCS_DIR}/{page_for(command)}"
