"""The VS Code extension: its settings schema is generated from (and checked against)
`flashls/settings.py`, its TypeScript unit tests pass, and it packages to a .vsix."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from flashls.settings import SPECS, Settings, apply_settings

ROOT = Path(__file__).resolve().parent.parent
VSCODE = ROOT / "clients" / "vscode"
MANIFEST = VSCODE / "package.json"


def _load_generator():
    spec = importlib.util.spec_from_file_location(
        "gen_vscode_settings", ROOT / "scripts" / "gen_vscode_settings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _load_generator()


def manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def properties() -> dict:
    return manifest()["contributes"]["configuration"]["properties"]


def nested(flat: dict) -> dict:
    """What VS Code answers for section `flashls`: dotted keys become nested objects."""
    out: dict = {}
    for key, value in flat.items():
        *parents, leaf = key.split(".")[1:]
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out


def test_package_json_is_generated_from_the_settings_definition():
    assert gen.drift(manifest()) == [], "run: python scripts/gen_vscode_settings.py"


def test_every_setting_is_declared_with_its_metadata():
    props = properties()
    for spec in SPECS:
        prop = props[f"flashls.{spec.key}"]
        assert prop["default"] == json.loads(json.dumps(spec.default)), spec.key
        assert prop["description"].startswith(spec.description), spec.key
        assert prop.get("enum") == (list(spec.enum) if spec.enum else None), spec.key
        assert prop.get("minimum") == spec.minimum and prop.get("maximum") == spec.maximum, spec.key
        types = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
        assert ("null" in types) == (spec.default is None or "None" in str(spec.type)), spec.key
    server_keys = {f"flashls.{spec.key}" for spec in SPECS}
    assert set(props) - server_keys == {f"flashls.{key}" for key in gen.CLIENT_ONLY}


def test_the_server_accepts_what_vscode_sends_by_default():
    """VS Code sends every declared default; the server must take them without complaint."""
    defaults = nested({key: prop["default"] for key, prop in properties().items()})
    for client_only in ("serverPath", "trace"):  # the extension strips these (serverSettings)
        defaults.pop(client_only)
    settings, errors = apply_settings(Settings(), defaults)
    assert errors == []
    assert settings == Settings()


def test_client_only_settings_would_be_reported_by_the_server():
    """Why the extension strips them: the server flags unknown keys."""
    _, errors = apply_settings(Settings(), {"serverPath": "/x", "trace": {"server": "off"}})
    assert sorted(err.key for err in errors) == ["serverPath", "trace.server"]


def test_secrets_and_redirecting_settings_are_restricted_in_untrusted_workspaces():
    restricted = manifest()["capabilities"]["untrustedWorkspaces"]["restrictedConfigurations"]
    for spec in SPECS:
        if spec.secret:
            assert f"flashls.{spec.key}" in restricted
    assert {"flashls.serverPath", "flashls.baseUrl"} <= set(restricted)


def test_check_fails_on_drift_and_regeneration_repairs_it(tmp_path, capsys):
    copy = tmp_path / "package.json"
    data = manifest()
    data["contributes"]["configuration"]["properties"]["flashls.completion.maxTokens"]["default"] = 7
    del data["contributes"]["configuration"]["properties"]["flashls.model"]
    copy.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")

    assert gen.main(["--check", "--package", str(copy)]) == 1
    err = capsys.readouterr().err
    assert "flashls.completion.maxTokens" in err and "flashls.model" in err
    assert "gen_vscode_settings.py" in err

    assert gen.main(["--package", str(copy)]) == 0
    assert gen.main(["--check", "--package", str(copy)]) == 0
    repaired = json.loads(copy.read_text(encoding="utf-8"))
    assert repaired == manifest()


def test_check_script_cli_exit_codes(tmp_path):
    ok = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_vscode_settings.py"), "--check"],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    broken = tmp_path / "package.json"
    broken.write_text("{not json", encoding="utf-8")
    bad = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_vscode_settings.py"), "--check",
                          "--package", str(broken)], capture_output=True, text=True)
    assert bad.returncode == 2 and "cannot read" in bad.stderr
    assert broken.read_text(encoding="utf-8") == "{not json"


def test_generator_keeps_the_rest_of_the_manifest_and_refuses_unknown_types():
    original = manifest()
    rendered = gen.render(original)
    assert rendered["contributes"]["commands"] == original["contributes"]["commands"]
    assert rendered["scripts"] == original["scripts"]
    with pytest.raises(TypeError, match="extend gen_vscode_settings.py"):
        gen.json_type(set)
    assert gen.json_type(int | None) == ["integer", "null"]


def _server_commands() -> set[str]:
    from flashls.lsp.server import create_server
    return set(create_server().protocol.fm.commands)


def test_contributed_commands_never_collide_with_server_commands():
    """vscode-languageclient registers every server command under its own id; a
    contributed command with the same id makes the client fail to start."""
    contributed = {c["command"] for c in manifest()["contributes"]["commands"]}
    server = _server_commands()
    assert {"flashls.rewrite", "flashls.explain", "flashls.showContext"} <= server
    assert contributed.isdisjoint(server), contributed & server


def _require_node_modules() -> None:
    if shutil.which("npm") is None or not (VSCODE / "node_modules").is_dir():
        message = "clients/vscode/node_modules missing: run `npm ci` in clients/vscode"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def _npm(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(["npm", *args], cwd=VSCODE, capture_output=True, text=True,
                          timeout=timeout)


def test_typescript_compiles_and_its_unit_tests_pass():
    _require_node_modules()
    compiled = _npm("run", "compile")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    tested = _npm("test")
    assert tested.returncode == 0, tested.stdout[-4000:] + tested.stderr[-2000:]
    assert "# fail 0" in tested.stdout
    passed = int(tested.stdout.split("# pass ")[1].split()[0])
    assert passed >= 30


def test_vsce_packages_a_vsix_with_only_the_bundle(tmp_path):
    _require_node_modules()
    out = tmp_path / "flashls.vsix"
    packaged = subprocess.run(
        ["npx", "--no-install", "vsce", "package", "--no-dependencies", "--out", str(out)],
        cwd=VSCODE, capture_output=True, text=True, timeout=240)
    assert packaged.returncode == 0, packaged.stdout[-4000:] + packaged.stderr[-2000:]
    with zipfile.ZipFile(out) as vsix:
        names = {name.lower() for name in vsix.namelist()}
        shipped = json.loads(vsix.read("extension/package.json"))
    assert {"extension/dist/extension.js", "extension/package.json",
            "extension/readme.md", "extension/license.txt"} <= names
    assert not any(n.startswith(("extension/node_modules/", "extension/src/", "extension/out/"))
                   for n in names)
    assert shipped["contributes"]["configuration"] == gen.configuration()
