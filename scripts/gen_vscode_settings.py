#!/usr/bin/env python3
"""Generate the VS Code extension's settings schema from `flashls/settings.py`.

`flashls.settings.SPECS` is the one definition of every setting; this script writes
`contributes.configuration` (and the untrusted-workspace restrictions) into
`clients/vscode/package.json` so the editor's Settings UI, validation and defaults
can never disagree with the server.

    python scripts/gen_vscode_settings.py          # rewrite package.json
    python scripts/gen_vscode_settings.py --check  # exit 1 if package.json drifted
"""

from __future__ import annotations

import argparse
import json
import sys
import types as pytypes
from pathlib import Path
from typing import Any, Union, get_args, get_origin

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from flashls.settings import SECTION, SPECS, SettingSpec  # noqa: E402

PACKAGE_JSON = ROOT / "clients" / "vscode" / "package.json"

# Settings only the VS Code client reads (stripped before the server sees them).
CLIENT_ONLY: dict[str, dict[str, Any]] = {
    "serverPath": {
        "type": "string",
        "default": "",
        "description": "Path to the flashls executable. Empty: the active Python environment "
                       "(`flashls` script or `python -m flashls`), then PATH. A path on this "
                       "machine: in a remote window (code-server, SSH, WSL, dev container) "
                       "set it in Remote or Workspace settings; User settings are not read there.",
        "scope": "machine-overridable",
    },
    "trace.server": {
        "type": "string",
        "default": "off",
        "enum": ["off", "messages", "verbose"],
        "description": "Log the LSP messages between VS Code and flashls to the \"flashls Trace\" "
                       "output channel. This setting alone turns tracing on.",
    },
}

# Workspace values of these are ignored in untrusted workspaces: they choose what
# runs, where the key and code go, or which file gets written.
RESTRICTED_EXTRA = ("serverPath", "baseUrl", "usage.ledgerPath")

_JSON_TYPES: dict[Any, Any] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def json_type(hint: Any) -> Any:
    """VS Code schema `type` for a settings type hint; fails loudly on a new kind."""
    origin = get_origin(hint)
    if origin in (Union, pytypes.UnionType) or (origin is not None and type(None) in get_args(hint)):
        inner = [a for a in get_args(hint) if a is not type(None)]
        types = [json_type(a) for a in inner]
        flat = [t for sub in types for t in (sub if isinstance(sub, list) else [sub])]
        return flat + ["null"] if type(None) in get_args(hint) else flat
    if origin in (list, dict):
        hint = origin
    if hint not in _JSON_TYPES:
        raise TypeError(f"no VS Code schema type for {hint!r}; extend gen_vscode_settings.py")
    return _JSON_TYPES[hint]


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value))


def property_for(spec: SettingSpec, order: int) -> dict[str, Any]:
    """One `contributes.configuration.properties` entry."""
    prop: dict[str, Any] = {"type": json_type(spec.type), "default": _jsonable(spec.default)}
    if prop["type"] == "array":
        prop["items"] = {"type": "string"}
    if spec.enum:
        prop["enum"] = list(spec.enum)
    if spec.minimum is not None:
        prop["minimum"] = _number(spec.minimum)
    if spec.maximum is not None:
        prop["maximum"] = _number(spec.maximum)
    description = spec.description
    if spec.secret:
        description += " Stored in plain text in settings.json; prefer the environment variable."
    prop["description"] = description
    prop["order"] = order
    return prop


def configuration() -> dict[str, Any]:
    """The whole `contributes.configuration` object."""
    properties: dict[str, Any] = {}
    for order, spec in enumerate(SPECS):
        properties[f"{SECTION}.{spec.key}"] = property_for(spec, order)
    for offset, (key, prop) in enumerate(CLIENT_ONLY.items()):
        if f"{SECTION}.{key}" in properties:
            raise ValueError(f"client-only setting {key} shadows a server setting")
        properties[f"{SECTION}.{key}"] = {**prop, "order": len(SPECS) + offset}
    return {"title": "flashls", "properties": properties}


def restricted() -> list[str]:
    keys = [spec.key for spec in SPECS if spec.secret] + list(RESTRICTED_EXTRA)
    return [f"{SECTION}.{key}" for key in dict.fromkeys(keys)]


def render(manifest: dict[str, Any]) -> dict[str, Any]:
    """`manifest` with the generated parts replaced (a new dict; input untouched)."""
    out = json.loads(json.dumps(manifest))
    out.setdefault("contributes", {})["configuration"] = configuration()
    trust = out.setdefault("capabilities", {}).setdefault("untrustedWorkspaces", {})
    trust.setdefault("supported", "limited")
    trust["restrictedConfigurations"] = restricted()
    return out


def dumps(manifest: dict[str, Any]) -> str:
    """Same layout npm writes, so `npm install` does not reformat the file."""
    return json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"


def drift(manifest: dict[str, Any]) -> list[str]:
    """Names of the generated parts that differ from what the script would write."""
    want = render(manifest)
    problems = []
    if manifest.get("contributes", {}).get("configuration") != want["contributes"]["configuration"]:
        have = manifest.get("contributes", {}).get("configuration", {}).get("properties", {})
        need = want["contributes"]["configuration"]["properties"]
        changed = sorted(k for k in set(have) | set(need) if have.get(k) != need.get(k))
        problems.append("contributes.configuration (" + ", ".join(changed or ["title"]) + ")")
    have_trust = manifest.get("capabilities", {}).get("untrustedWorkspaces", {})
    if have_trust.get("restrictedConfigurations") != restricted():
        problems.append("capabilities.untrustedWorkspaces.restrictedConfigurations")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 when package.json is out of date")
    parser.add_argument("--package", type=Path, default=PACKAGE_JSON,
                        help="package.json to update (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        manifest = json.loads(args.package.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        print(f"error: cannot read {args.package}: {err}", file=sys.stderr)
        return 2
    if args.check:
        problems = drift(manifest)
        if problems:
            print(f"{args.package} is out of date with flashls/settings.py: "
                  + "; ".join(problems)
                  + "\nrun: python scripts/gen_vscode_settings.py", file=sys.stderr)
            return 1
        print(f"{args.package}: {len(SPECS)} settings up to date")
        return 0
    text = dumps(render(manifest))
    if args.package.read_text(encoding="utf-8") != text:
        args.package.write_text(text, encoding="utf-8")
        print(f"wrote {args.package} ({len(SPECS)} server settings, {len(CLIENT_ONLY)} client-only)")
    else:
        print(f"{args.package}: already up to date")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
