"""Token estimate properties and secret redaction over a seeded corpus of shapes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from flashls.context.secrets import MARK, clean, collapse_blank_lines, redact
from flashls.context.tokens import estimate_tokens

line_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",),
                                           blacklist_characters="\n\r"), max_size=60)


def test_estimate_basics():
    assert estimate_tokens("") == 0
    assert estimate_tokens("x") == 1
    code = "    def __init__(self, name: str) -> None:\n        self._name = name\n"
    # the DeepSeek-V4 tokenizer gives 21 for this snippet
    assert 17 <= estimate_tokens(code) <= 25


@settings(max_examples=200, deadline=None)
@given(st.lists(line_text, min_size=1, max_size=8), st.lists(line_text, min_size=1, max_size=8))
def test_estimate_is_subadditive_over_whole_lines(a, b):
    """Budgets sum per-entry costs; the joined text must never cost more."""
    ta = "".join(x + "\n" for x in a)
    tb = "".join(x + "\n" for x in b)
    assert estimate_tokens(ta + tb) <= estimate_tokens(ta) + estimate_tokens(tb)


@settings(max_examples=100, deadline=None)
@given(line_text, line_text)
def test_estimate_is_monotone_in_appended_lines(a, b):
    assert estimate_tokens(a + "\n") <= estimate_tokens(a + "\n" + b + "\n")


# (text, secret that must disappear)
SECRETS = [
    ('DEEPSEEK_API_KEY = "sk-3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"', "sk-3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"),
    ("client = OpenAI(api_key='sk-proj-AbCdEfGhIjKlMnOpQrStUv')", "sk-proj-AbCdEfGhIjKlMnOpQrStUv"),
    ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("token: ghp_0123456789abcdefghijABCDEFGHIJ012345", "ghp_0123456789abcdefghijABCDEFGHIJ012345"),
    ("SLACK=xoxb-123456789012-abcdefghijkl", "xoxb-123456789012-abcdefghijkl"),
    ("const key = 'AIzaSyA-1234567890abcdefghijklmnopqrstu';", "AIzaSyA-1234567890abcdefghijklmnopqrstu"),
    ("stripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("DATABASE_URL=postgres://admin:Sup3rS3cret@db.internal:5432/app", "Sup3rS3cret"),
    ('git clone https://oauth2:glpat-AbCdEf1234567890xyz@gitlab.com/x/y.git', "glpat-AbCdEf1234567890xyz"),
    ('fetch("https://api.example.com/v1/items?limit=10&access_token=abc123def456")', "abc123def456"),
    ("curl 'https://hooks.example.com/x?sig=0a1b2c3d4e5f&x=1'", "0a1b2c3d4e5f"),
    ("DB_PASSWORD=hunter2", "hunter2"),
    ("export GITHUB_TOKEN=notarealtoken42", "notarealtoken42"),
    ("SECRET_KEY='django-insecure-0123456789'", "django-insecure-0123456789"),
    ('password = "correct horse battery staple"', "correct horse battery staple"),
    ('{"client_secret": "9d8c7b6a5f4e3d2c1b0a"}', "9d8c7b6a5f4e3d2c1b0a"),
    ("jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'",
     "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----",
     "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU="),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nAnother0Line==", "MIIEowIBAAKCAQEA7"),
    ("MIIEowIBAAKCAQEA7tail==\n-----END PRIVATE KEY-----\nnext = 1", "MIIEowIBAAKCAQEA7tail=="),
]


def test_seeded_secrets_are_redacted():
    for text, secret in SECRETS:
        out = redact(text)
        assert secret not in out, (text, out)
        assert MARK in out


def test_redaction_keeps_code_that_only_names_secrets():
    keep = [
        "token = get_token()",
        "password: str",
        "def login(user, password):",
        "api_key = os.environ['DEEPSEEK_API_KEY']",
        "const auth = require('./auth');",
        "let authorization = req.headers.authorization;",
        "if token is None:",
        "secret_name = SECRET_NAME_FROM_CONFIG",
        "https://example.com/docs?page=2",
    ]
    for text in keep:
        assert redact(text) == text


def test_redaction_keeps_line_structure_outside_key_blocks():
    text = "a = 1\nDB_PASSWORD=hunter2\nb = 2\n"
    assert redact(text) == f"a = 1\nDB_PASSWORD={MARK}\nb = 2\n"


def test_blank_line_runs_collapse():
    assert collapse_blank_lines("a\n\n\n\n  \t\nb\n\nc") == "a\n\nb\n\nc"
    assert clean("x\n\n\n\ny = 'AKIAIOSFODNN7EXAMPLE'") == f"x\n\ny = '{MARK}'"


def test_a_secret_cut_by_the_cursor_is_still_redacted():
    from flashls.context.secrets import clean_split
    url = 'DB = "https://admin:Sup3rS3cretPass@db.internal:5432/app"\n'
    for cut in range(len(url)):
        prefix, suffix = clean_split("x = 1\n" + url[:cut], url[cut:] + "y = 2\n")
        assert "Sup3rS3cretPass" not in prefix + suffix, cut
        assert "S3cretPass" not in prefix and "Sup3rS3cret" not in suffix, cut
        assert prefix.startswith("x = 1\n") and suffix.endswith("y = 2\n")
    key = "k = 'sk-3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c'\n"
    at = key.index("6d5e")
    prefix, suffix = clean_split(key[:at], key[at:])
    assert "3f9a8b7c" not in prefix and "4f3a2b1c" not in suffix
    assert prefix.endswith(MARK)


def test_the_cursor_alone_never_triggers_redaction():
    from flashls.context.secrets import clean_split
    for before, after in [("password = ", "\n"), ("api_key = get_", "key()\n"),
                          ("token: str = ", ""), ("url = 'https://example.com/a?page=", "2'\n")]:
        assert clean_split(before, after) == (before, after)
