"""An explanation turned into a comment block, for "Insert as comment".

Uses the language's line-comment prefix; prose lines are wrapped, fenced code and
list structure are kept; the block takes the indentation of the line it goes above.
"""

from __future__ import annotations

import re
import textwrap

# languages flashls has no grammar for but whose line comments are well known
FALLBACK_PREFIXES = {
    "lua": "--", "sql": "--", "haskell": "--", "ada": "--", "elm": "--",
    "ruby": "#", "shellscript": "#", "sh": "#", "bash": "#", "perl": "#", "r": "#",
    "yaml": "#", "toml": "#", "elixir": "#", "julia": "#", "nim": "#", "powershell": "#",
    "dockerfile": "#", "makefile": "#", "cmake": "#", "coffeescript": "#",
    "php": "//", "csharp": "//", "kotlin": "//", "swift": "//", "scala": "//",
    "dart": "//", "zig": "//", "objective-c": "//", "objective-cpp": "//", "groovy": "//",
    "fsharp": "//", "solidity": "//", "proto": "//", "vue": "//", "svelte": "//",
    "clojure": ";;", "lisp": ";;", "scheme": ";;", "commonlisp": ";;", "racket": ";;",
    "vim": '"', "matlab": "%", "erlang": "%", "latex": "%", "tex": "%",
}
WIDTH = 88
_LIST_ITEM = re.compile(r"^(\s*(?:[-*+]|\d+[.)])\s+)")


def comment_prefix(line_comment: str | None, language_id: str) -> str | None:
    if line_comment:
        return line_comment
    return FALLBACK_PREFIXES.get(language_id.lower())


def _wrap(line: str, width: int) -> list[str]:
    if len(line) <= width:
        return [line]
    match = _LIST_ITEM.match(line)
    hang = " " * len(match.group(1)) if match else line[: len(line) - len(line.lstrip())]
    return textwrap.wrap(line, width=width, subsequent_indent=hang,
                         break_long_words=False, break_on_hyphens=False) or [line]


def to_comment(markdown: str, prefix: str, indent: str = "", newline: str = "\n",
               width: int = WIDTH) -> str:
    """`markdown` as comment lines (each ending with `newline`)."""
    out: list[str] = []
    in_fence = False
    room = max(40, width - len(indent) - len(prefix) - 1)
    for line in markdown.replace("\r\n", "\n").strip().split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            out.append(line.rstrip())
            continue
        out.extend([line.rstrip()] if in_fence else _wrap(line.rstrip(), room))
    return "".join(f"{indent}{prefix} {line}".rstrip() + newline if line else
                   f"{indent}{prefix}" + newline for line in out)
