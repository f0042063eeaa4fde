"""Regenerate the settings table in README.md from flashls/settings.py.

    python scripts/gen_readme_settings.py          # rewrite the table
    python scripts/gen_readme_settings.py --check  # exit 1 when README has drifted
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flashls.settings import SPECS  # noqa: E402

README = Path(__file__).resolve().parent.parent / "README.md"
START, END = "<!-- settings:start -->", "<!-- settings:end -->"


def table() -> str:
    rows = ["| key (`flashls.` + …) | default | meaning |", "|---|---|---|"]
    for spec in SPECS:
        if isinstance(spec.default, (list, dict)):
            default = "see below"
        else:
            default = f"`{json.dumps(spec.default)}`"
        extra = ""
        if spec.enum:
            extra += " One of " + ", ".join(f"`{e}`" for e in spec.enum) + "."
        if spec.minimum is not None and spec.maximum is not None:
            extra += f" Range {spec.minimum:g}–{spec.maximum:g}."
        rows.append(f"| `{spec.key}` | {default} | {spec.description}{extra} |")
    return "\n".join(rows)


def render(text: str) -> str:
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    current = README.read_text(encoding="utf-8")
    wanted = render(current)
    if "--check" in argv:
        if wanted != current:
            print("README.md settings table is out of date: run scripts/gen_readme_settings.py")
            return 1
        return 0
    README.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
