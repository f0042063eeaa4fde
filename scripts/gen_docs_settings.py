"""Regenerate the settings reference in docs/settings.md from flashls/settings.py.

    python scripts/gen_docs_settings.py          # rewrite the generated part
    python scripts/gen_docs_settings.py --check  # exit 1 when the page has drifted

Only the text between the two markers is generated; the prose around it is written
by hand. `tests/test_docs.py` runs `--check`, so a setting added to flashls/settings.py
without regenerating fails the tests.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, get_args, get_origin

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flashls.settings import SECTION, SPECS, SettingSpec  # noqa: E402

PAGE = Path(__file__).resolve().parent.parent / "docs" / "settings.md"
START, END = "<!-- settings:start -->", "<!-- settings:end -->"


def type_name(hint: Any) -> str:
    """The JSON type an editor must send, in words."""
    if get_origin(hint) is not None and type(None) in get_args(hint):
        inner = next(a for a in get_args(hint) if a is not type(None))
        return f"{type_name(inner)} or null"
    return {bool: "boolean", int: "integer", float: "number", str: "string",
            list: "list of strings", dict: "object"}.get(hint, getattr(hint, "__name__", str(hint)))


def anchor(spec: SettingSpec) -> str:
    """The id MkDocs gives the heading `` `flashls.<key>` `` (dots and capitals dropped)."""
    return (SECTION + spec.key).replace(".", "").lower()


def short_default(spec: SettingSpec) -> str:
    if isinstance(spec.default, (list, dict)):
        return f"[see below](#{anchor(spec)})"
    return f"`{json.dumps(spec.default)}`"


def allowed(spec: SettingSpec) -> str:
    if spec.enum:
        return "one of " + ", ".join(f"`{e}`" for e in spec.enum)
    if spec.minimum is not None and spec.maximum is not None:
        return f"{spec.minimum:g} – {spec.maximum:g}"
    return ""


def overview() -> list[str]:
    rows = ["| setting | default | allowed | meaning |", "|---|---|---|---|"]
    for spec in SPECS:
        rows.append(f"| [`{spec.key}`](#{anchor(spec)}) | {short_default(spec)} "
                    f"| {allowed(spec)} | {spec.description} |")
    return rows


def details(spec: SettingSpec) -> list[str]:
    out = [f"### `{SECTION}.{spec.key}`", "", spec.description, "",
           f"- type: {type_name(spec.type)}"]
    if allowed(spec):
        out.append(f"- allowed: {allowed(spec)}")
    if spec.secret:
        out.append("- secret: never logged; shown as `<set>` by `flashls.showSettings`")
    if isinstance(spec.default, (list, dict)):
        out += ["- default:", "", "```json", json.dumps(spec.default, indent=2), "```"]
    else:
        out.append(f"- default: `{json.dumps(spec.default)}`")
    return out + [""]


def generated() -> str:
    lines = ["## Reference", "", "*Generated from `flashls/settings.py` by `python scripts/gen_docs_settings.py`; "
             "do not edit by hand.*", "", *overview(), "", "## Every setting", ""]
    for spec in SPECS:
        lines += details(spec)
    return "\n".join(lines).rstrip() + "\n"


def render(text: str) -> str:
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{generated()}{END}{tail}"


def main(argv: list[str]) -> int:
    current = PAGE.read_text(encoding="utf-8")
    wanted = render(current)
    if "--check" in argv:
        if wanted != current:
            print("docs/settings.md is out of date: run python scripts/gen_docs_settings.py")
            return 1
        return 0
    PAGE.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
