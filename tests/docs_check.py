"""Reading the docs the way MkDocs does, and checking the snippets marked runnable.

Pure helpers for tests/test_docs.py and tests/test_readme.py: heading ids (the same
slugs Python-Markdown's `toc` extension makes), relative links, and the checks behind
`<!-- runnable -->` fences. Nothing here runs a command for real or touches the network.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the TOML checks skip (see the tests)
    tomllib = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RUNNABLE = "<!-- runnable -->"
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")


# --- headings and links ------------------------------------------------------------

def slugify(text: str) -> str:
    """Python-Markdown's default `toc` slug: ASCII, no punctuation, dashes."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _plain(heading: str) -> str:
    """Heading text as rendered: code spans keep their text, links keep their label."""
    heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    return heading.replace("`", "").replace("*", "")


def prose_lines(text: str):
    """(line number, line) for every line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if match:
            if fence is None:
                fence = match.group(2)
                continue
            if match.group(2).startswith(fence) and not match.group(3):
                fence = None
                continue
        if fence is None:
            yield number, line


def headings(text: str) -> list[tuple[int, str]]:
    """(level, text) of every ATX heading outside code."""
    found = []
    for _, line in prose_lines(text):
        match = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if match:
            found.append((len(match.group(1)), match.group(2)))
    return found


def heading_id_list(text: str) -> list[tuple[str, str]]:
    """(heading text, id) in page order: the ids MkDocs gives them (explicit `{#id}`
    or the slug, made unique with `_1`, `_2`… as the toc extension does)."""
    seen: set[str] = set()
    out = []
    for _, title in headings(text):
        explicit = re.search(r"\{[^}]*#([\w-]+)[^}]*\}\s*$", title)
        slug = explicit.group(1) if explicit else slugify(_plain(title))
        unique, n = slug, 0
        while unique in seen:
            n += 1
            unique = f"{slug}_{n}"
        seen.add(unique)
        out.append((title, unique))
    return out


def heading_ids(text: str) -> set[str]:
    return {anchor for _, anchor in heading_id_list(text)}


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def relative_links(text: str) -> list[tuple[int, str]]:
    """(line, target) of Markdown links that point inside the repository."""
    links = []
    for number, line in prose_lines(text):
        line = re.sub(r"`[^`]*`", "", line)
        for target in LINK.findall(line):
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target):
                links.append((number, target))
    return links


def link_problem(source: Path, target: str) -> str | None:
    """Why a relative link from `source` does not resolve (None when it does)."""
    path_part, _, anchor = target.partition("#")
    destination = (source.parent / path_part).resolve() if path_part else source
    if not destination.exists():
        return f"{target}: no file {destination.relative_to(ROOT) if destination.is_relative_to(ROOT) else destination}"
    if anchor and destination.suffix == ".md":
        if anchor not in heading_ids(destination.read_text(encoding="utf-8")):
            return f"{target}: no heading with id #{anchor} in {destination.relative_to(ROOT)}"
    return None


# --- runnable snippets -------------------------------------------------------------

@dataclass(frozen=True)
class Snippet:
    source: str
    line: int
    lang: str
    body: str

    def where(self) -> str:
        return f"{self.source}:{self.line}"


def runnable_snippets(path: Path) -> list[Snippet]:
    """Fenced blocks preceded by `<!-- runnable -->` (blank lines in between allowed)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found, marked, i = [], False, 0
    while i < len(lines):
        stripped = lines[i].strip()
        match = FENCE.match(lines[i])
        if match:
            fence, body, start = match.group(2), [], i + 1
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                body.append(lines[i])
                i += 1
            if marked:
                found.append(Snippet(str(path.relative_to(ROOT)), start, match.group(3),
                                     "\n".join(body)))
            marked = False
        elif stripped == RUNNABLE:
            marked = True
        elif stripped:
            marked = False
        i += 1
    return found


def check_snippet(snippet: Snippet) -> list[str]:
    checker = {"sh": check_shell, "bash": check_shell, "json": check_settings_json,
               "toml": check_helix_toml}.get(snippet.lang)
    if checker is None:
        return [f"{snippet.where()}: no check for runnable `{snippet.lang}` snippets"]
    return [f"{snippet.where()}: {problem}" for problem in checker(snippet.body)]


# settings -----------------------------------------------------------------------

def vscode_only_keys() -> set[str]:
    """Keys the VS Code extension adds for itself (the server never sees them)."""
    from flashls.settings import SPECS_BY_KEY
    manifest = json.loads((ROOT / "clients/vscode/package.json").read_text(encoding="utf-8"))
    configuration = manifest["contributes"]["configuration"]
    if isinstance(configuration, list):
        props = {k: v for part in configuration for k, v in part["properties"].items()}
    else:
        props = configuration["properties"]
    return {key.removeprefix("flashls.") for key in props} - set(SPECS_BY_KEY)


def settings_problems(raw: dict) -> list[str]:
    """Errors flashls itself reports for a settings object (section `flashls`)."""
    from flashls.settings import Settings, apply_settings
    _, errors = apply_settings(Settings(), raw)
    return [str(err) for err in errors]


def check_settings_json(body: str) -> list[str]:
    try:
        data = json.loads(body)
    except json.JSONDecodeError as err:
        return [f"not JSON: {err}"]
    if not isinstance(data, dict):
        return ["a settings snippet must be a JSON object"]
    section: dict = {}
    problems = []
    client_only = vscode_only_keys()
    for key, value in data.items():
        if key == "flashls":
            if not isinstance(value, dict):
                problems.append('"flashls" must be an object')
                continue
            section.update(value)
        elif key.startswith("flashls."):
            name = key.removeprefix("flashls.")
            if name not in client_only:
                section[name] = value
        else:
            problems.append(f"{key!r} is not a flashls setting")
    if not section and not problems:
        problems.append("no flashls setting in the snippet")
    return problems + settings_problems(section)


def check_helix_toml(body: str) -> list[str]:
    try:
        data = tomllib.loads(body)
    except tomllib.TOMLDecodeError as err:
        return [f"not TOML: {err}"]
    server = data.get("language-server", {}).get("flashls")
    if not server:
        return ["no [language-server.flashls] table"]
    problems = []
    if shlex.split(server.get("command", ""))[:1] != ["flashls"]:
        problems.append("the language server command is not flashls")
    section = server.get("config", {}).get("flashls")
    if section is None:
        problems.append("no [language-server.flashls.config.flashls] settings table")
        return problems
    return problems + settings_problems(section)


# shell --------------------------------------------------------------------------

def shell_commands(body: str) -> list[list[str]]:
    """Each command of a shell snippet as argv (comments dropped; split at `&&`, `;`,
    `|` and subshell parentheses)."""
    commands = []
    for line in body.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        current: list[str] = []
        for word in lexer:
            if word in ("&&", ";", "||", "(", ")", "|"):
                commands.append(current)
                current = []
            else:
                current.append(word)
        if current:
            commands.append(current)
    return [c for c in commands if c]


def check_shell(body: str) -> list[str]:
    problems: list[str] = []
    cwd = ROOT
    for argv in shell_commands(body):
        problem, cwd = _check_command(argv, cwd)
        if problem:
            problems.append(f"`{shlex.join(argv)}`: {problem}")
    return problems


ENVIRONMENT = {"DEEPSEEK_API_KEY"}


def _check_command(argv: list[str], cwd: Path) -> tuple[str | None, Path]:
    program, args = argv[0], argv[1:]
    if program == "cd":
        target = (cwd / args[0]).resolve() if args else ROOT
        return (None if target.is_dir() else f"no folder {args[0]}"), target
    if program == "export":
        names = {a.split("=", 1)[0] for a in args}
        unknown = names - ENVIRONMENT
        return (f"flashls reads no variable {', '.join(sorted(unknown))}" if unknown else None), cwd
    if program == "pip":
        return _check_pip(args, cwd), cwd
    if program == "flashls":
        return flashls_parse_problem(args), cwd
    if program == "python":
        return _check_python(args, cwd), cwd
    if program == "bash":
        return (None if args and (cwd / args[0]).is_file() else f"no script {args[:1]}"), cwd
    if program == "npm":
        return _check_npm(args, cwd), cwd
    if program == "npx":
        return _check_npx(args, cwd), cwd
    if program == "code":
        return _check_code(args, cwd), cwd
    if program == "mkdocs":
        return _check_mkdocs(args), cwd
    return f"the docs test does not know how to check `{program}`", cwd


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _check_pip(args: list[str], cwd: Path) -> str | None:
    if args[:1] != ["install"]:
        return "only `pip install` is checked"
    targets = [a for a in args[1:] if not a.startswith("-")]
    for target in targets:
        match = re.fullmatch(r"(\.)(?:\[([\w,-]+)\])?", target)
        if not match or cwd != ROOT:
            return f"{target!r} is not this project (run from the repository root)"
        extras = set(_pyproject()["project"].get("optional-dependencies", {}))
        for extra in (match.group(2) or "").split(","):
            if extra and extra not in extras:
                return f"pyproject.toml has no extra {extra!r}"
    return None if targets else "nothing to install"


def _check_python(args: list[str], cwd: Path) -> str | None:
    if args[:1] == ["-m"] and len(args) >= 2:
        module, rest = args[1], args[2:]
        if module == "pytest":
            return None if cwd == ROOT else "pytest runs from the repository root"
        if module == "flashls":
            return flashls_parse_problem(rest)
        if module.split(".")[0] == "benchmarks":
            return module_flags_problem(module, tuple(rest))
        return f"no check for python -m {module}"
    if args and args[0].endswith(".py"):
        return None if (cwd / args[0]).is_file() else f"no script {args[0]}"
    return "no check for this python command"


def _check_npm(args: list[str], cwd: Path) -> str | None:
    if args[:1] == ["ci"]:
        return None if (cwd / "package-lock.json").is_file() else "no package-lock.json here"
    if args[:1] in (["test"], ["run"]):
        scripts = json.loads((cwd / "package.json").read_text(encoding="utf-8"))["scripts"]
        name = "test" if args[0] == "test" else args[1]
        return None if name in scripts else f"package.json has no script {name!r}"
    return f"no check for npm {args[:1]}"


def _package_json(cwd: Path) -> dict:
    path = cwd / "package.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _check_npx(args: list[str], cwd: Path) -> str | None:
    manifest = _package_json(cwd)
    deps = {**manifest.get("dependencies", {}), **manifest.get("devDependencies", {})}
    return None if args and args[0] in deps else f"{args[:1]} is not a dependency in {cwd.name}"


def _check_code(args: list[str], cwd: Path) -> str | None:
    if args[:1] != ["--install-extension"] or len(args) != 2:
        return "only `code --install-extension FILE.vsix` is checked"
    manifest = json.loads((ROOT / "clients/vscode/package.json").read_text(encoding="utf-8"))
    wanted = f"{manifest['name']}-{manifest['version']}.vsix"
    return None if Path(args[1]).name == wanted else f"vsce packages {wanted}, not {args[1]}"


def _check_mkdocs(args: list[str]) -> str | None:
    if args[:1] not in (["build"], ["serve"]):
        return "only `mkdocs build` / `mkdocs serve` are checked"
    if "docs" not in _pyproject()["project"].get("optional-dependencies", {}):
        return "pyproject.toml has no docs extra to install mkdocs"
    return None if (ROOT / "mkdocs.yml").is_file() else "no mkdocs.yml"


def flashls_parse_problem(args: list[str]) -> str | None:
    """Parse with flashls' own argparse parser; nothing runs (`--help`/`--version`
    only print)."""
    import contextlib
    import io

    from flashls.cli import _load_subcommands, build_parser
    _load_subcommands()
    parser = build_parser()
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(args)
    except SystemExit as stop:
        if stop.code not in (0, None):
            return err.getvalue().strip().splitlines()[-1]
    return None


@lru_cache(maxsize=None)
def _module_help(module: str) -> tuple[int, str]:
    result = subprocess.run([sys.executable, "-m", module, "--help"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    return result.returncode, result.stdout + result.stderr


def module_flags_problem(module: str, args: tuple[str, ...]) -> str | None:
    """A benchmark module exists and its `--help` lists every flag used."""
    code, text = _module_help(module)
    if code != 0:
        return f"`python -m {module} --help` failed: {text.strip()[-300:]}"
    flags = [a.split("=", 1)[0] for a in args if a.startswith("--")]
    missing = [f for f in flags if not re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", text)]
    return f"{module} has no option {', '.join(missing)}" if missing else None
