"""The one "document never sent" rule, in process: reason codes for every case."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from flashls.context.never_sent import never_sent
from flashls.context.workspace import WorkspaceBoundary
from flashls.settings import (CREDENTIAL_FILE, CREDENTIAL_PATTERNS, DEFAULT_EXCLUDE, EXCLUDED,
                              EXCLUDE_GROUPS, Settings)
from tests.test_credentials_e2e import CREDENTIAL_FILES

DOCS = Path(__file__).resolve().parent.parent / "docs" / "security" / "credentials.md"


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("generated/\n")
    return root


def verdict(uri, workspace, **kw):
    got = never_sent(uri, "text", workspace=workspace, **kw)
    return got.code if got else None


def boundary(root, user=()):
    return WorkspaceBoundary(lambda: [root], lambda: list(user)).get()


@pytest.mark.parametrize("rel", sorted(CREDENTIAL_FILES))
def test_every_listed_credential_file_is_a_credential_file_anywhere(ws, tmp_path, rel):
    workspace = boundary(ws)
    assert verdict((ws / rel).as_uri(), workspace) == CREDENTIAL_FILE
    for policy in ("allow", "deny"):
        outside = (tmp_path / "home" / "u" / rel).as_uri()
        assert verdict(outside, workspace, outside_workspace=policy) == CREDENTIAL_FILE
        assert verdict(outside, None, outside_workspace=policy) == CREDENTIAL_FILE


def test_reason_codes(ws, tmp_path):
    workspace = boundary(ws, ["**/private/**"])
    assert verdict((ws / "src" / "app.py").as_uri(), workspace) is None
    assert verdict((ws / "node_modules" / "x.js").as_uri(), workspace) == EXCLUDED
    assert verdict((ws / "generated" / "x.py").as_uri(), workspace) == EXCLUDED  # git-ignored
    assert verdict((ws / "private" / "x.py").as_uri(), workspace) == EXCLUDED  # user glob
    elsewhere = (tmp_path / "etc" / "hosts").as_uri()
    assert verdict(elsewhere, workspace) == "outside_workspace"  # the default is deny
    assert verdict(elsewhere, workspace, outside_workspace="allow") is None
    assert verdict(elsewhere, None, outside_workspace="allow") is None  # no folder at all
    assert verdict(elsewhere, workspace, outside_workspace="allow",
                   as_context=True) == "outside_workspace"  # never context for another
    big = never_sent((ws / "a.py").as_uri(), "x" * 5_000_001, workspace=workspace)
    assert big.code == "too_large"
    assert never_sent((ws / "a.py").as_uri(), "a\x00b", workspace=workspace).code == "too_large"


def test_untitled_and_other_schemes(ws):
    workspace = boundary(ws)
    assert verdict("untitled:Untitled-1", workspace) is None
    assert verdict("untitled:Untitled-1", workspace, as_context=True) == "outside_workspace"
    # an editor's own settings file: no place in a folder, outside the workspace
    settings_uri = "vscode-userdata:/home/u/.config/Code/User/settings.json"
    assert verdict(settings_uri, workspace) == "outside_workspace"
    assert verdict("vscode-userdata:/home/u/.aws/credentials", workspace,
                   outside_workspace="allow") == CREDENTIAL_FILE


def test_a_symlink_in_the_workspace_to_a_credential_file_is_refused(ws, tmp_path):
    creds = tmp_path / "home" / ".aws" / "credentials"
    creds.parent.mkdir(parents=True)
    creds.write_text("[default]\n")
    os.symlink(creds, ws / "src" / "notes.txt")
    workspace = boundary(ws)
    assert verdict((ws / "src" / "notes.txt").as_uri(), workspace,
                   outside_workspace="allow") == CREDENTIAL_FILE
    assert not workspace.allowed(str(ws / "src" / "notes.txt"))


def test_negation_and_additions(ws):
    workspace = boundary(ws, ["!**/.npmrc", "**/*.sqlite"])
    assert verdict((ws / ".npmrc").as_uri(), workspace) is None
    assert verdict((ws / ".pypirc").as_uri(), workspace) == CREDENTIAL_FILE
    assert verdict((ws / "data.sqlite").as_uri(), workspace) == EXCLUDED
    # a user list that does not mention a built-in entry keeps it (additive, not replacing)
    assert verdict((ws / "node_modules" / "a.js").as_uri(), workspace) == EXCLUDED


def test_invalid_user_globs_keep_the_builtin_ones(tmp_path):
    path = (tmp_path / "home" / ".pypirc").as_uri()
    assert verdict(path, None, user_excludes=["!"], outside_workspace="allow") == CREDENTIAL_FILE


def test_settings_default_and_setting():
    assert Settings().exclude == []  # the user's list adds to DEFAULT_EXCLUDE
    assert Settings().completion.outside_workspace == "deny"
    assert set(CREDENTIAL_PATTERNS) < set(DEFAULT_EXCLUDE)


def test_the_docs_page_lists_every_builtin_glob_under_its_group():
    text = DOCS.read_text()
    for group in EXCLUDE_GROUPS:
        assert f"### {group.name}" in text, group.name
        section = text.split(f"### {group.name}", 1)[1].split("\n### ", 1)[0]
        listed = set(re.findall(r"`([^`]+)`", section))
        missing = [p for p in group.patterns if p not in listed]
        assert missing == [], (group.name, missing)
        reason = "credential_file" if group.reason == CREDENTIAL_FILE else "excluded"
        assert f"reason `{reason}`" in section, group.name
