"""Redact secret-shaped text before anything leaves the machine.

Applied to every piece of context (window, outline, neighbors, recent). The patterns
are deliberately greedy about what counts as a secret: a redacted non-secret costs a
worse suggestion, a leaked key costs the user. Redaction keeps line structure (a
private key block becomes one marker line) so whole-line trimming still works.
"""

from __future__ import annotations

import re

MARK = "<redacted>"

_PRIVATE_KEY = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----.*?"
    r"(?:-----END \1-----|\Z)", re.S)
# (pattern, replacement, needles): a pattern runs only if one of its needles occurs
# (plain substring tests are ~100x cheaper than a regex scan of every position).
_PATTERNS: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    # OpenAI / DeepSeek / Anthropic style keys: sk-..., sk-proj-..., sk-ant-...
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"), MARK, ("sk-",)),
    # AWS access key ids.
    (re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"), MARK,
     ("AKIA", "ASIA", "ABIA", "ACCA")),
    # GitHub, GitLab, Slack, Google, Stripe tokens.
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"), MARK,
     ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}\b"), MARK, ("github_pat_",)),
    (re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}\b"), MARK, ("glpat-",)),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}\b"), MARK, ("xox",)),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b"), MARK, ("AIza",)),
    (re.compile(r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b"), MARK, ("k_live_", "k_test_")),
    # JWTs.
    (re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), MARK,
     ("eyJ",)),
    # Credentials inside URLs: scheme://user:secret@host
    (re.compile(r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@'\"]*:)[^\s@/'\"]+(?=@)"),
     r"\g<head>" + MARK, ("://",)),
    # Secret-looking query parameters: ?token=..., &api_key=...
    (re.compile(r"(?P<head>[?&](?:[A-Za-z0-9_\-]*(?:token|key|secret|password|passwd|pwd|"
                r"signature|sig|auth|credential)[A-Za-z0-9_\-]*)=)[^&\s'\"#]+", re.I),
     r"\g<head>" + MARK, ("?", "&")),
    # AWS secret access keys assigned anywhere.
    (re.compile(r"(?P<head>aws_secret_access_key\s*[=:]\s*['\"]?)[A-Za-z0-9/+=]{40}", re.I),
     r"\g<head>" + MARK, ("aws_secret", "AWS_SECRET", "Aws_Secret")),
)
# Lower-case needles of secret-looking names: only lines holding one are examined
# for `name = value` assignments.
_NAME_NEEDLES = ("pass", "secret", "token", "key", "auth", "credential", "pwd", "dsn",
                 "conn")
# KEY=value / KEY: value / "key": "value" for secret-looking key names.
_SECRET_NAME = (r"[A-Za-z0-9_.\-]*(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|API_?KEY|"
                r"ACCESS_?KEY|PRIVATE_?KEY|AUTH|CREDENTIALS?|CLIENT_?SECRET|PWD|DSN|"
                r"CONN(?:ECTION)?_?STRING)[A-Za-z0-9_.\-]*")
_ASSIGNMENT = re.compile(
    r"(?P<head>(?<![A-Za-z0-9_])(?:export\s+)?['\"]?" + _SECRET_NAME + r"['\"]?\s*(?:=|:(?!:))\s*)"
    r"(?:(?P<q>['\"])(?P<quoted>[^'\"\n]{4,})(?P=q)|(?P<bare>[^'\"\s,;#}&<>()]{4,}))",
    re.I)
# .env / shell lines: `DB_PASSWORD=hunter2` (upper-case key, no spaces) are always secrets.
_ENV_LINE = re.compile(
    r"(?m)^(?P<head>[ \t]*(?:export[ \t]+)?[A-Z0-9_]*(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|"
    r"TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTH|CREDENTIALS?|PWD|DSN)[A-Z0-9_]*=)"
    r"(?P<value>[^\s#].*)$")
# The tail of a private key block whose BEGIN line is in another piece (cursor inside it).
_KEY_TAIL = re.compile(r"\A[A-Za-z0-9+/=\s]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_NOT_A_VALUE = re.compile(
    r"^(?:None|null|nil|undefined|true|false|os\.environ.*|process\.env.*|getenv.*|"
    r"[A-Za-z_][A-Za-z0-9_.]*\(.*|self\.[A-Za-z_].*|this\.[A-Za-z_].*|<redacted>)$")
_BLANK_RUN = re.compile(r"\n(?:[ \t]*\n){2,}")


def _redact_assignment(m: re.Match[str]) -> str:
    quote = m.group("q")
    if quote:
        return m.group("head") + quote + MARK + quote
    value = m.group("bare")
    # Keep code that merely names or fetches a secret: `token = get_token()`,
    # `password: str`, `API_KEY = os.environ[...]`.
    if _NOT_A_VALUE.match(value) or _is_identifier_like(value):
        return m.group(0)
    return m.group("head") + MARK


def _is_identifier_like(value: str) -> bool:
    """Bare identifiers and type names (`str`, `Optional[str]`) are code, not secrets."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\[\]]*", value):
        return False
    if "." in value:  # attribute access: req.headers.authorization
        return True
    return not ((any(c.isdigit() for c in value) and len(value) >= 8) or len(value) >= 24)


_BLOB_LINE = re.compile(r"[ \t]*[A-Za-z0-9+/=]+[ \t]*")
_BLOB_MIN = 40
# a line of nothing but 40+ base64 characters: necessary for a blob run to exist
_BLOB_CANDIDATE = re.compile(r"(?m)^[ \t]*[A-Za-z0-9+/=]{40,}[ \t]*$")


def _is_blob(line: str) -> bool:
    s = line.strip()
    return (len(s) >= _BLOB_MIN and any(c.isdigit() for c in s)
            and any(c.isupper() for c in s) and any(c.islower() for c in s))


def _redact_blobs(text: str) -> str:
    """Runs of lines that are nothing but base64, one of them long: a key body cut off
    from its BEGIN/END lines by a window or chunk edge, a certificate, a blob."""
    if not _BLOB_CANDIDATE.search(text):  # one C-level scan decides the usual case
        return text
    lines = text.split("\n")
    if not any(_is_blob(line) for line in lines):
        return text
    out: list[str] = []
    run: list[str] = []
    for line in lines + [None]:
        if line is not None and _BLOB_LINE.fullmatch(line):
            run.append(line)
            continue
        if any(_is_blob(r) for r in run):
            out.append(MARK)
        else:
            out.extend(run)
        run = []
        if line is not None:
            out.append(line)
    return "\n".join(out)


def redact(text: str) -> str:
    """`text` with every secret-shaped substring replaced by `<redacted>`."""
    if not text:
        return text
    if "PRIVATE KEY" in text:
        text = _PRIVATE_KEY.sub(MARK, text)
        text = _KEY_TAIL.sub(MARK, text)
    if len(text) >= _BLOB_MIN:
        text = _redact_blobs(text)
    for pattern, replacement, needles in _PATTERNS:
        if any(n in text for n in needles):
            text = pattern.sub(replacement, text)
    return _redact_assignments(text)


def _redact_assignments(text: str) -> str:
    """Apply the `name = value` rules to the lines that mention a secret-looking name."""
    lower = text.lower()
    starts: set[int] = set()
    for needle in _NAME_NEEDLES:
        at = lower.find(needle)
        while at != -1:
            starts.add(text.rfind("\n", 0, at) + 1)
            at = lower.find(needle, at + 1)
    if not starts:
        return text
    out = []
    pos = 0
    for start in sorted(starts):
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        line = text[start:end]
        line = _ENV_LINE.sub(lambda m: m.group("head") + MARK, line)
        line = _ASSIGNMENT.sub(_redact_assignment, line)
        out.append(text[pos:start])
        out.append(line)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def collapse_blank_lines(text: str) -> str:
    """Runs of two or more blank lines become one blank line."""
    return _BLANK_RUN.sub("\n\n", text)


def clean(text: str) -> str:
    """What every piece of context goes through before it is sent."""
    return collapse_blank_lines(redact(text))


# Marks the cursor in the redacted window, to find where to split it (letters only, so
# that alone it reads as an identifier, not a value).
_CURSOR = "qZxFlashlsCursorXzq"


def clean_split(prefix: str, suffix: str, *, collapse: bool = True) -> tuple[str, str]:
    """`clean` for text split by the cursor. Redacting each side alone would miss a
    secret the cursor cuts (`https://user:pass‸@host`: the `@` that identifies it is on
    the other side), so the window is redacted as one text and split again. Both halves
    always come from that redaction; when the cursor sits inside a secret, the split
    falls right after its `<redacted>` marker. `collapse=False` keeps runs of blank
    lines (the cursor window is sent verbatim)."""
    squeeze = collapse_blank_lines if collapse else (lambda text: text)
    joint = prefix + suffix
    red = redact(joint)
    if red == joint:  # nothing to redact: the usual case
        return squeeze(prefix), squeeze(suffix)
    marked = redact(prefix + _CURSOR + suffix)
    if marked.count(_CURSOR) == 1 and marked.replace(_CURSOR, "") == red:
        head, tail = marked.split(_CURSOR)  # the cursor changed nothing: split there
    else:
        cut = _split_point(joint, red, len(prefix))
        head, tail = red[:cut], red[cut:]
    return squeeze(head), squeeze(tail)


def _split_point(original: str, redacted: str, at: int) -> int:
    """Where position `at` of `original` lands in `redacted` (right after the marker
    of a replacement that covers it). Walks the equal runs and the markers between
    them; any split point would be safe, as both halves come from the redacted text."""
    i = j = 0
    n, m = len(original), len(redacted)
    while True:
        k = _equal_run(original, i, redacted, j)
        if i + k > at:
            return j + (at - i)  # the cursor lies in unchanged text
        i, j = i + k, j + k
        if i >= n or j >= m or not redacted.startswith(MARK, j):
            return j
        j += len(MARK)
        probe = redacted[j:j + 24]  # where the text resumes after the replaced part
        resume = original.find(probe, i) if probe else n
        if resume == -1 or resume > at:
            return j  # the cursor is inside the replaced part
        i = resume


def _equal_run(a: str, i: int, b: str, j: int) -> int:
    """Length of the common run of a[i:] and b[j:] (block compares, then bisection)."""
    n = min(len(a) - i, len(b) - j)
    k = 0
    step = 256
    while k + step <= n and a[i + k:i + k + step] == b[j + k:j + k + step]:
        k += step
    hi = min(n, k + step)
    while k < hi:
        mid = (k + hi + 1) // 2
        if a[i + k:i + mid] == b[j + k:j + mid]:
            k = mid
        else:
            hi = mid - 1
    return k
