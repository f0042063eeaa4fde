"""Workspace boundary and secrets, end to end: what may reach the (fake) API at all.

A real server and the fake DeepSeek; a workspace with an allowed neighbor (the positive
control: its signatures must arrive, or the test proves nothing), and forbidden sources
each marked by a unique identifier: a symlink escaping the workspace, `..` imports
leaving it, an excluded file, a git-ignored file, an excluded file open in the editor,
a document outside every workspace folder. A seeded corpus of secret shapes is spread
over the edited file, the allowed neighbor and an open, recently edited buffer. Neither
a forbidden marker nor a secret may appear in any request body; the API key appears in
no log line, message, error or ledger.
"""

from __future__ import annotations

import json
import os
import random
import string
from dataclasses import dataclass
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from tests.conftest import base_settings, start_session
from tests.fake_deepseek import Reply
from tests.lsp_helpers import change, inline, open_doc

API_KEY = "sk-boundary-apikey-7f3a9c2e51d04b68"


# -- a seeded corpus of secret shapes ---------------------------------------------------
@dataclass(frozen=True)
class Secret:
    shape: str
    line: str  # how it appears in code or config
    value: str  # the part that must never leave the machine


def _rand(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def secret_corpus(seed: int = 1234) -> list[Secret]:
    rng = random.Random(seed)
    alnum = string.ascii_letters + string.digits
    upper = string.ascii_uppercase + string.digits
    b64 = alnum + "+/"
    out: list[Secret] = []
    for i in range(3):
        key = "sk-" + _rand(rng, alnum, 32 + i * 8)
        out.append(Secret("sk-key", f'DEEPSEEK_KEY_{i} = "{key}"', key))
        bare = "sk-" + _rand(rng, alnum, 40)
        out.append(Secret("sk-key-bare", f"# paste this: {bare}", bare))
        akia = "AKIA" + _rand(rng, upper, 16)
        out.append(Secret("aws-akia", f"aws_access_key_id = {akia}", akia))
        aws_secret = _rand(rng, b64, 40)
        out.append(Secret("aws-secret", f"aws_secret_access_key = {aws_secret}", aws_secret))
        body = [_rand(rng, b64, 64) for _ in range(4)]
        block = ("-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(body)
                 + "\n-----END RSA PRIVATE KEY-----")
        out.append(Secret("private-key", f'PEM_{i} = """{block}"""', body[1]))
        user_pw = _rand(rng, alnum, 14)
        out.append(Secret("url-userinfo",
                          f'DB_URL_{i} = "postgres://admin:{user_pw}@db.internal:5432/app"',
                          user_pw))
        token = _rand(rng, alnum, 28)
        out.append(Secret("url-query",
                          f'HOOK_{i} = "https://hooks.example.com/v1/send?token={token}&x=1"',
                          token))
        env_pw = _rand(rng, alnum, 18)
        out.append(Secret("env-line", f"DB_PASSWORD={env_pw}", env_pw))
        env_key = _rand(rng, alnum, 24)
        out.append(Secret("env-export", f"export STRIPE_API_KEY={env_key}", env_key))
        ghp = "ghp_" + _rand(rng, alnum, 36)
        out.append(Secret("github-token", f'gh_token_{i} = "{ghp}"', ghp))
        quoted = _rand(rng, alnum, 20)
        out.append(Secret("quoted-assignment", f'client_secret = "{quoted}"', quoted))
    return out


CORPUS = secret_corpus()


def _py_safe(lines: list[str]) -> str:
    """Secret lines as Python source (env-style lines become comments: still sent)."""
    out = []
    for line in lines:
        if line.startswith(("DB_PASSWORD=", "export ")):
            out.append(f"# {line}")
        else:
            out.append(line)
    return "\n".join(out) + "\n"


# -- the workspace ------------------------------------------------------------------------
MARKERS = {
    "symlink": "forbidden_symlink_marker",
    "dotdot": "forbidden_dotdot_marker",
    "excluded": "forbidden_excluded_marker",
    "custom-excluded": "forbidden_custom_excluded_marker",
    "gitignored": "forbidden_gitignored_marker",
    "open-excluded": "forbidden_open_env_marker",
    "outside-open": "forbidden_outside_open_marker",
    "js-dotdot": "forbiddenJsDotdotMarker",
}
ALLOWED_MARKER = "allowed_helper_marker"


def build_workspace(root: Path) -> tuple[Path, Path]:
    ws = root / "ws"
    outside = root / "outside_pkg"
    (ws / "app").mkdir(parents=True)
    (ws / "app" / "private").mkdir()
    (ws / "generated").mkdir()
    outside.mkdir()
    (ws / ".git").mkdir()  # a repository: .gitignore applies
    (ws / ".gitignore").write_text("generated/\nignored_mod.py\n")
    (ws / "app" / "__init__.py").write_text("")
    (ws / "app" / "helpers.py").write_text(
        f"def {ALLOWED_MARKER}(x: int) -> int:\n    return x + 1\n\n\n"
        + _py_safe([s.line for s in CORPUS[:12]])
        + "def connect(url: str = \"postgres://root:"
        + CORPUS[5].value + "@h/db\") -> None:\n    pass\n")
    (outside / "__init__.py").write_text("")
    (outside / "evil.py").write_text(f"def {MARKERS['dotdot']}():\n    return 1\n")
    (outside / "target.py").write_text(f"def {MARKERS['symlink']}():\n    return 1\n")
    (outside / "evil.js").write_text(f"export function {MARKERS['js-dotdot']}() {{}}\n")
    os.symlink(outside / "target.py", ws / "app" / "linked.py")
    (ws / "app" / "secrets.py").write_text(f"def {MARKERS['excluded']}():\n    return 1\n")
    (ws / "app" / "private" / "vault.py").write_text(
        f"def {MARKERS['custom-excluded']}():\n    return 1\n")
    (ws / "app" / "ignored_mod.py").write_text(f"def {MARKERS['gitignored']}():\n    return 1\n")
    (ws / "generated" / "gen.py").write_text(f"def {MARKERS['gitignored']}_2():\n    return 1\n")
    (ws / "app" / "web.js").write_text(
        'import * as evil from "../../outside_pkg/evil.js";\n'
        "const answer = \n")
    return ws, outside


MAIN = """from app import helpers, linked, secrets, ignored_mod
from app.helpers import {allowed}
from app.private import vault
from ..outside_pkg import evil
from ..outside_pkg.target import *
import generated.gen

{secrets}

def main() -> None:
    total = {allowed}(1)
    value = 
"""


def all_bodies(fake) -> str:
    return "\n".join(json.dumps(r.body, ensure_ascii=False) for r in fake.requests)


async def test_nothing_forbidden_and_no_secret_reaches_the_api(client, fake, tmp_path, capfd):
    fake.responder = lambda req: Reply(text="compute()")
    ws, outside = build_workspace(tmp_path)
    settings = {**base_settings(fake), "apiKey": API_KEY,
                "exclude": ["**/.env", "**/secrets.*", "**/private/**"],
                "usage": {"ledgerPath": str(tmp_path / "ledger.sqlite")}}
    client.set_configuration(settings, section="flashls")
    from tests.conftest import client_capabilities
    await client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities(),
        workspace_folders=[lsp.WorkspaceFolder(uri=ws.as_uri(), name="ws")],
        initialization_options=settings))

    # an excluded file open in the editor, edited (so "recent" would want it)
    env_text = "\n".join(s.line for s in CORPUS if s.shape.startswith("env")) + "\n"
    env_uri = open_doc(client, ws / ".env", f"# {MARKERS['open-excluded']}\n{env_text}",
                       language="dotenv")
    change(client, env_uri, 2, (1, 0), (1, 0), "X")
    # a document outside every workspace folder, open and edited
    out_uri = open_doc(client, outside / "scratch.py",
                       f"def {MARKERS['outside-open']}(value):\n    return value\n")
    change(client, out_uri, 2, (1, 0), (1, 0), " ")
    # an allowed open buffer full of secrets, recently edited (the "recent" tier)
    buf_text = ("def compute_value(value):\n    total = value\n"
                + _py_safe([s.line for s in CORPUS[12:24]]) + "    return total\n")
    buf_uri = open_doc(client, ws / "app" / "buffer.py", buf_text)
    change(client, buf_uri, 2, (1, 0), (1, 0), " ")

    text = MAIN.format(allowed=ALLOWED_MARKER,
                       secrets=_py_safe([s.line for s in CORPUS[24:]]))
    main_path = ws / "app" / "main.py"
    main_path.write_text(text)
    uri = open_doc(client, main_path, text)
    last = text.rstrip("\n").splitlines()
    items = await inline(client, uri, len(last) - 1, len(last[-1]), invoked=True)
    assert [i.insert_text for i in items] == ["compute()"]

    # also a completion in the JS file with a `..` import out of the workspace
    js = (ws / "app" / "web.js").read_text()
    js_uri = open_doc(client, ws / "app" / "web.js", js, language="javascript")
    await inline(client, js_uri, 1, len("const answer = "), invoked=True)
    # and a completion requested inside the excluded .env itself
    await inline(client, env_uri, 1, 3, invoked=True)

    sent = all_bodies(fake)
    assert ALLOWED_MARKER in sent  # positive control: neighbors are really sent
    assert "compute_value" in sent or "def main" in sent
    leaked_markers = [name for name, marker in MARKERS.items() if marker in sent]
    assert leaked_markers == []
    leaked = sorted({s.shape for s in CORPUS if s.value in sent})
    assert leaked == [], leaked
    assert API_KEY not in sent  # the key travels only in the Authorization header
    assert all(r.headers["authorization"] == f"Bearer {API_KEY}" for r in fake.requests)

    # the key never in logs, messages, errors, stderr, or the ledger (a request answered
    # after the ones above: every log line they caused has arrived before its answer)
    await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="flashls.showSettings"))
    logs = "\n".join(m.message for m in client.log_messages + client.messages)
    assert API_KEY not in logs
    assert API_KEY not in capfd.readouterr().err
    answer = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="flashls.showSettings"))
    assert API_KEY not in json.dumps(answer)
    for path in tmp_path.rglob("ledger.sqlite*"):
        assert API_KEY.encode() not in path.read_bytes()


async def test_excluded_current_file_is_never_sent(client, fake, tmp_path):
    """Completing inside `.env` or an excluded file sends nothing at all."""
    ws, _ = build_workspace(tmp_path)
    await start_session(client, fake, ws)
    env_uri = open_doc(client, ws / ".env", "DB_HOST=localhost\nDB_PASSWORD=\n",
                       language="dotenv")
    await inline(client, env_uri, 1, len("DB_PASSWORD="), invoked=True)
    excluded_uri = open_doc(client, ws / "app" / "secrets.py", "TOKEN = \n")
    await inline(client, excluded_uri, 0, 8, invoked=True)
    ignored_uri = open_doc(client, ws / "generated" / "gen.py", "x = \n")
    await inline(client, ignored_uri, 0, 4, invoked=True)
    assert fake.completion_requests() == []


async def test_error_messages_never_carry_the_key(client, fake, tmp_path, capfd):
    """The API echoing the key in an error body must not put it on screen or in logs."""
    fake.responder = lambda req: Reply(
        status=401, error_body=json.dumps({"error": {"message": f"bad key {API_KEY}"}}))
    settings = {**base_settings(fake), "apiKey": API_KEY}
    await start_session(client, fake, tmp_path, settings=settings)
    uri = open_doc(client, tmp_path / "k.py", "x = \n")
    assert await inline(client, uri, 0, 4, invoked=True) == []
    await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="flashls.showSettings"))  # everything said before it has arrived
    shown = "\n".join(m.message for m in client.messages + client.log_messages)
    assert "401" in shown  # the user is told...
    assert API_KEY not in shown  # ...without the key
    assert API_KEY not in capfd.readouterr().err


def test_corpus_covers_every_shape_asked_for():
    shapes = {s.shape for s in CORPUS}
    assert {"sk-key", "aws-akia", "private-key", "url-userinfo", "url-query",
            "env-line"} <= shapes
    assert len({s.value for s in CORPUS}) == len(CORPUS)  # seeded, distinct


# -- in process: wherever the cursor is, whatever the window cuts, nothing leaks -----------
def _long_pem(rng: random.Random) -> Secret:
    b64 = string.ascii_letters + string.digits + "+/"
    body = [_rand(rng, b64, 64) for _ in range(26)]  # an RSA 2048 key's length
    block = ("-----BEGIN PRIVATE KEY-----\n" + "\n".join(body)
             + "\n-----END PRIVATE KEY-----")
    return Secret("long-private-key", f'KEY = """\n{block}\n"""', "\n".join(body[10:12]))


def _secret_file(seed: int) -> tuple[str, list[Secret]]:
    rng = random.Random(seed)
    secrets = rng.sample(CORPUS, 10) + [_long_pem(rng)]
    lines: list[str] = []
    for i, s in enumerate(secrets):
        lines += [f"def handler_{i}(request):", f"    value = request.get('{i}')",
                  "    return value", "", _py_safe([s.line]).rstrip("\n"), ""]
    return "\n".join(lines) + "\n", secrets


@pytest.mark.parametrize("seed", range(3))
def test_no_secret_survives_any_cursor_position_or_budget(seed):
    from hypothesis import given, settings as hsettings, strategies as st

    from flashls.context.assemble import assemble_context
    from flashls.context.document import Document
    from flashls.context.syntax import ParsedDocument

    text, secrets = _secret_file(seed)
    pdoc = ParsedDocument.open(Document("file:///tmp/s.py", text, "python", 1))

    @hsettings(max_examples=60, deadline=None, derandomize=True)
    @given(where=st.floats(0, 1), budget=st.sampled_from([128, 300, 700, 2048, 8192]))
    def check(where, budget):
        ctx = assemble_context(pdoc, int(where * len(text)), budget_tokens=budget)
        sent = ctx.prefix + "\n" + ctx.suffix + "\n".join(p.text for p in ctx.parts)
        for s in secrets:
            for piece in s.value.split("\n"):
                assert piece not in sent, (s.shape, budget, where)

    check()
