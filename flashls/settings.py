"""The one typed definition of every `flashls.*` setting.

Defaults, types, allowed values and descriptions live here and nowhere else: the
server validates editor input against them and `scripts/gen_vscode_settings.py`
generates the VS Code schema from them.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, get_args, get_origin, get_type_hints

from .model import fim
from .model.catalog import API_KEY_ENV, DEFAULT_BASE_URLS, HOSTED, PROVIDERS

SECTION = "flashls"


def setting(
    default: Any,
    description: str,
    *,
    enum: tuple[str, ...] | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    secret: bool = False,
) -> Any:
    """Declare one setting: its default plus the metadata used to validate it."""
    meta = {"description": description, "enum": enum, "minimum": minimum,
            "maximum": maximum, "secret": secret}
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


CREDENTIAL_FILE = "credential_file"  # status reason: a file whose purpose is to hold secrets
EXCLUDED = "excluded"  # status reason: any other exclude (build output, dependencies)


@dataclass(frozen=True)
class ExcludeGroup:
    """Built-in exclude globs (gitignore syntax) that share a reason and a why.
    docs/security/credentials.md lists every group; a test keeps the two in step."""

    name: str
    reason: str  # CREDENTIAL_FILE or EXCLUDED: what the status tells the user
    why: str
    patterns: tuple[str, ...]


EXCLUDE_GROUPS: tuple[ExcludeGroup, ...] = (
    ExcludeGroup(
        "Package manager and registry credentials", CREDENTIAL_FILE,
        "Publish and install tokens for package registries live in these files.",
        ("**/.pypirc", "**/pip.conf", "**/pip.ini", "**/.npmrc", "**/.yarnrc",
         "**/.yarnrc.yml", "**/.gem/credentials", "**/.cargo/credentials",
         "**/.cargo/credentials.toml", "**/.m2/settings.xml", "**/.m2/settings-security.xml",
         "**/.gradle/gradle.properties", "**/.nuget/NuGet.Config",
         "**/.nuget/NuGet/NuGet.Config", "**/.composer/auth.json",
         "**/.config/composer/auth.json")),
    ExcludeGroup(
        "Cloud and cluster configuration", CREDENTIAL_FILE,
        "Cloud CLIs and cluster tools keep access keys, tokens and client certificates "
        "next to their configuration.",
        ("**/.aws/**", "**/.azure/**", "**/.config/gcloud/**", "**/.kube/**",
         "**/kubeconfig*", "**/*.kubeconfig", "**/.docker/config.json",
         "**/.terraform.d/credentials.tfrc.json")),
    ExcludeGroup(
        "Version control and shell secrets", CREDENTIAL_FILE,
        "Stored git passwords, machine logins, SSH and GnuPG material, CLI tokens, and "
        "shell histories (commands typed with tokens in them).",
        ("**/.git-credentials", "**/.netrc", "**/_netrc", "**/.ssh/**", "**/.gnupg/**",
         "**/*.gpg", "**/.config/gh/hosts.yml", "**/.config/hub", "**/.pgpass",
         "**/.my.cnf", "**/.htpasswd", "**/.bash_history", "**/.zsh_history")),
    ExcludeGroup(
        "Infrastructure state and variables", CREDENTIAL_FILE,
        "Terraform variables and state hold provider credentials and every secret a "
        "resource was created with, in plain text; Vault configuration holds its tokens.",
        ("**/*.tfvars", "**/*.tfvars.json", "**/*.tfstate*", "**/.terraform/**",
         "**/vault*.hcl")),
    ExcludeGroup(
        "Keys and certificates", CREDENTIAL_FILE,
        "Private keys and key stores, whatever their extension says.",
        ("**/*.pem", "**/*.key", "**/*.p12", "**/*.pfx", "**/*.jks", "**/*.keystore",
         "**/*.ppk", "**/*.keytab", "**/id_rsa*", "**/id_dsa*", "**/id_ecdsa*",
         "**/id_ed25519*")),
    ExcludeGroup(
        "Environment and secrets files", CREDENTIAL_FILE,
        "`.env` files (and direnv's `.envrc`) exist to keep secrets out of code; "
        "`secrets.*` and `credentials*` say what they hold.",
        ("**/.env*", "**/secrets.*", "**/credentials*")),
    ExcludeGroup(
        "Dependencies and build output", EXCLUDED,
        "Not secret, but not yours either: vendored or generated code would crowd out "
        "the code you are writing.",
        ("**/node_modules/**", "**/.git/**", "**/dist/**", "**/build/**", "**/target/**",
         "**/out/**", "**/.venv/**", "**/venv/**", "**/__pycache__/**", "**/*.min.js")),
)

DEFAULT_EXCLUDE: list[str] = [p for group in EXCLUDE_GROUPS for p in group.patterns]
CREDENTIAL_PATTERNS: tuple[str, ...] = tuple(
    p for group in EXCLUDE_GROUPS if group.reason == CREDENTIAL_FILE for p in group.patterns)


def effective_excludes(user: "list[str] | tuple[str, ...]") -> list[str]:
    """The built-in globs, then the user's `flashls.exclude` (later lines win, as in
    .gitignore: `!pattern` sends a file a built-in glob would exclude)."""
    return DEFAULT_EXCLUDE + list(user)


# USD per 1M tokens: [cache hit, cache miss, output], off-peak and peak.
DEFAULT_PRICES: dict[str, Any] = {
    "deepseek-flash": {"offPeak": [0.003, 0.15, 0.60], "peak": [0.006, 0.30, 1.20]},
    "deepseek-v4-pro": {"offPeak": [0.022, 0.66, 1.98], "peak": [0.044, 1.32, 3.96]},
}


@dataclass(frozen=True)
class CompletionSettings:
    enable: bool = setting(True, "Offer AI inline completions (ghost text).")
    endpoint: str = setting(
        "fim", "Upstream API used for completions: fill-in-the-middle or chat.",
        enum=("fim", "chat"))
    debounce_ms: int | None = setting(
        None, "Fixed delay before asking the model, in ms. Unset (null): adaptive, "
        "learned from your typing rhythm and the model's latency.",
        minimum=0, maximum=5000)
    max_tokens: int = setting(
        64, "Maximum tokens the model may generate for one completion.",
        minimum=1, maximum=4096)
    context_tokens: int = setting(
        2048, "Token budget for everything sent with a completion request.",
        minimum=128, maximum=131072)
    timeout_ms: int = setting(
        4000, "Longest time a completion request may take before it returns nothing.",
        minimum=100, maximum=120000)
    multiline: str = setting(
        "auto", "Multi-line suggestions: decided by syntax, always, or never.",
        enum=("auto", "always", "never"))
    speculate: bool = setting(
        False, "After a suggestion is accepted, prefetch the next one while idle.")
    fim_template: str | dict = setting(
        "auto", "FIM prompt template for providers that need one (openai; stops and "
        "token stripping for all): auto (from the model name), a preset (deepseek, qwen, "
        "codellama, starcoder, codestral) or {prefix, suffix, middle, fileSeparator}.")
    outside_workspace: str = setting(
        "deny", "Documents outside every workspace folder: deny sends nothing from them "
        "(completions, next edits, code actions); allow works in them, though their text "
        "is never context for other documents. Unsaved (untitled) buffers are allowed.",
        enum=("allow", "deny"))
    languages: dict = setting(
        {"*": True}, "Per-language switch for inline completions, next-edit and code "
        "actions: {languageId: true/false}; \"*\" is the default for languages not "
        "listed. Example: {\"*\": true, \"markdown\": false, \"plaintext\": false}.")


@dataclass(frozen=True)
class ActionsSettings:
    enable: bool = setting(True, "Offer AI code actions (rewrite, simplify, explain...).")
    max_tokens: int = setting(
        1024, "Maximum tokens the model may generate for one code action.",
        minimum=1, maximum=32768)


@dataclass(frozen=True)
class NextEditSettings:
    enable: bool = setting(
        True, "Offer next edit suggestions (textDocument/copilotInlineEdit): after a "
        "pause, the edit that follows the one you just made.")
    debounce_ms: int = setting(
        500, "Pause after the last keystroke or cursor move before a client asks for a "
        "next edit, in ms.", minimum=50, maximum=10000)
    max_tokens: int = setting(
        512, "Maximum tokens the model may generate for one next edit (the rewritten "
        "region).", minimum=16, maximum=4096)
    region_lines: int = setting(
        24, "Lines of the editable region around the cursor that a next edit may rewrite.",
        minimum=3, maximum=200)


@dataclass(frozen=True)
class UsageSettings:
    ledger_path: str = setting(
        "", "SQLite usage ledger path. Empty: the user's state directory.")
    store_code: bool = setting(
        False, "Also store prompts and suggestions in the ledger (off: only counts).")
    prices: dict = setting(
        DEFAULT_PRICES, "USD per 1M tokens per model: {model: {offPeak: [cacheHit, "
        "cacheMiss, output], peak: [...]}}. Self-hosted providers (openai, llamacpp, "
        "ollama) cost zero unless a table you set lists their model.")


@dataclass(frozen=True)
class Settings:
    provider: str = setting(
        "deepseek", "Wire format of the model server: deepseek (hosted API), openai "
        "(OpenAI-compatible: vLLM, SGLang, LM Studio, gateways), llamacpp (llama-server), "
        "ollama, mistral (Codestral).", enum=PROVIDERS)
    base_url: str = setting(
        "https://api.deepseek.com", "API base URL. Left at the DeepSeek default with "
        "another provider: that provider's default (openai http://127.0.0.1:8000/v1, "
        "llamacpp http://127.0.0.1:8080, ollama http://127.0.0.1:11434, mistral "
        "https://api.mistral.ai/v1).")
    api_key: str = setting(
        "", "API key. Empty: the provider's environment variable (DEEPSEEK_API_KEY, "
        "OPENAI_API_KEY, LLAMA_API_KEY, OLLAMA_API_KEY, MISTRAL_API_KEY); optional for "
        "local servers.", secret=True)
    headers: dict = setting(
        {}, "Extra HTTP headers sent with every model request (e.g. for a gateway): "
        "{name: value}.", secret=True)
    model: str = setting("deepseek-flash", "Model for completions and first-try actions.")
    strong_model: str = setting(
        "deepseek-v4-pro", "Model a failed code action escalates to.")
    completion: CompletionSettings = field(default_factory=CompletionSettings)
    actions: ActionsSettings = field(default_factory=ActionsSettings)
    next_edit: NextEditSettings = field(default_factory=NextEditSettings)
    usage: UsageSettings = field(default_factory=UsageSettings)
    exclude: list = setting(
        [], "More glob patterns (gitignore syntax) of files never read or sent to the "
        "model, added to the built-in list of credential files and build output; "
        "`!pattern` sends files a built-in pattern would exclude.")
    log_level: str = setting(
        "info", "Detail of window/logMessage output.",
        enum=("error", "warning", "info", "debug"))
    proxy: str = setting(
        "", "HTTP(S) proxy for model requests, e.g. http://proxy.corp:3128. Empty: the "
        "HTTPS_PROXY / HTTP_PROXY / NO_PROXY environment variables.")
    ca_file: str = setting(
        "", "PEM file of CA certificates to trust for model requests (a corporate TLS "
        "interception CA). Empty: SSL_CERT_FILE / SSL_CERT_DIR, else the bundled roots.")

    def language_enabled(self, language_id: str) -> bool:
        """Whether AI features run in documents of `language_id`
        (`completion.languages`, with "*" for every language not listed)."""
        languages = self.completion.languages
        return bool(languages.get(language_id, languages.get("*", True)))

    def effective_api_key(self) -> str:
        """The key from settings, else from the provider's environment variable."""
        return self.api_key or os.environ.get(API_KEY_ENV.get(self.provider,
                                                              "DEEPSEEK_API_KEY"), "")

    def effective_base_url(self) -> str:
        """`baseUrl`, or the provider's default while it is left at DeepSeek's."""
        if self.provider != "deepseek" and self.base_url == DEFAULT_BASE_URLS["deepseek"]:
            return DEFAULT_BASE_URLS.get(self.provider, self.base_url)
        return self.base_url

    def price_table(self) -> dict:
        """`usage.prices` for the ledger. A self-hosted provider's models cost zero
        unless the user set a price table that lists them (DeepSeek's default prices
        are for its hosted API, not for Flash served on your own GPUs)."""
        if self.provider in HOSTED:
            return dict(self.usage.prices)
        prices = {} if self.usage.prices == DEFAULT_PRICES else dict(self.usage.prices)
        zero = [0.0, 0.0, 0.0]
        for model in (self.model, self.strong_model):
            prices.setdefault(model, {"offPeak": zero, "peak": zero})
        return prices

    def __repr__(self) -> str:  # never print the key
        return f"Settings(model={self.model!r}, base_url={self.base_url!r}, ...)"


@dataclass(frozen=True)
class SettingSpec:
    """One leaf setting as editors see it."""

    key: str  # dotted camelCase, without the section: "completion.debounceMs"
    path: tuple[str, ...]  # attribute path: ("completion", "debounce_ms")
    type: Any
    default: Any
    description: str
    enum: tuple[str, ...] | None
    minimum: float | None
    maximum: float | None
    secret: bool


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _walk(cls: type, prefix: tuple[str, ...]) -> Iterator[SettingSpec]:
    hints = get_type_hints(cls)
    instance = cls()
    for f in dataclasses.fields(cls):
        path = prefix + (f.name,)
        hint = hints[f.name]
        if dataclasses.is_dataclass(hint):
            yield from _walk(hint, path)
            continue
        yield SettingSpec(
            key=".".join(camel(p) for p in path), path=path, type=hint,
            default=getattr(instance, f.name), description=f.metadata["description"],
            enum=f.metadata["enum"], minimum=f.metadata["minimum"],
            maximum=f.metadata["maximum"], secret=f.metadata["secret"])


SPECS: tuple[SettingSpec, ...] = tuple(_walk(Settings, ()))
SPECS_BY_KEY = {spec.key: spec for spec in SPECS}


class SettingError(ValueError):
    """A value that does not fit its setting; `key` names it for the user."""

    def __init__(self, key: str, message: str):
        super().__init__(f"flashls.{key}: {message}")
        self.key = key


def _check(spec: SettingSpec, value: Any) -> Any:
    """Return `value` converted to the setting's type, or raise SettingError."""
    base = spec.type
    optional = False
    if get_origin(base) is not None and type(None) in get_args(base):
        optional = True
        base = next(a for a in get_args(base) if a is not type(None))
    if value is None:
        if optional:
            return None
        raise SettingError(spec.key, "must not be null")
    if base is bool:
        if not isinstance(value, bool):
            raise SettingError(spec.key, f"expected true or false, got {value!r}")
        return value
    if base is int:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                isinstance(value, float) and not value.is_integer()):
            raise SettingError(spec.key, f"expected a whole number, got {value!r}")
        value = int(value)
    elif base is str:
        if not isinstance(value, str):
            raise SettingError(spec.key, f"expected a string, got {value!r}")
        if spec.enum and value not in spec.enum:
            raise SettingError(
                spec.key, f"{value!r} is not one of {', '.join(spec.enum)}")
        if spec.key == "baseUrl" and not re.match(r"^https?://[^\s/]+", value):
            raise SettingError(spec.key, f"{value!r} is not an http(s) URL")
    elif spec.key == "completion.fimTemplate":
        try:
            return fim.check_setting(value)
        except fim.TemplateError as err:
            raise SettingError(spec.key, str(err)) from None
        if spec.key == "proxy" and value and not re.match(r"^https?://[^\s/]+", value):
            raise SettingError(spec.key, f"{value!r} is not an http(s) proxy URL "
                               "(e.g. http://proxy.example:3128)")
    elif base is list:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SettingError(spec.key, "expected a list of strings")
        return list(value)
    elif base is dict:
        if not isinstance(value, dict):
            raise SettingError(spec.key, "expected an object")
        if spec.key == "headers":
            check_headers(value, spec.key)
        if spec.key == "completion.languages" and not all(
                isinstance(k, str) and k and isinstance(v, bool) for k, v in value.items()):
            raise SettingError(spec.key, "expected {languageId: true or false}, "
                               "e.g. {\"*\": true, \"markdown\": false}")
        return dict(value)
    if spec.minimum is not None and value < spec.minimum:
        raise SettingError(spec.key, f"{value} is below the minimum {spec.minimum:g}")
    if spec.maximum is not None and value > spec.maximum:
        raise SettingError(spec.key, f"{value} is above the maximum {spec.maximum:g}")
    return value


_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def check_headers(value: Mapping[str, Any], key: str = "headers") -> None:
    """Header names must be HTTP tokens and values single-line strings: anything else
    would fail every request (or smuggle a second header)."""
    for name, header in value.items():
        if not isinstance(name, str) or not _HEADER_NAME.match(name):
            raise SettingError(key, f"{name!r} is not a valid HTTP header name")
        if not isinstance(header, str) or "\r" in header or "\n" in header:
            raise SettingError(key, f"the value of {name} must be a one-line string")


def flatten(raw: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Turn nested `{"completion": {"enable": x}}` and dotted keys into dotted keys."""
    flat: dict[str, Any] = {}
    for name, value in raw.items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping) and key not in SPECS_BY_KEY:
            flat.update(flatten(value, key + "."))
        else:
            flat[key] = value
    return flat


def _replace(obj: Any, path: tuple[str, ...], value: Any) -> Any:
    if len(path) == 1:
        return dataclasses.replace(obj, **{path[0]: value})
    inner = _replace(getattr(obj, path[0]), path[1:], value)
    return dataclasses.replace(obj, **{path[0]: inner})


def apply_settings(
    previous: Settings, raw: Mapping[str, Any] | None
) -> tuple[Settings, list[SettingError]]:
    """Build new settings from an editor's object.

    Keys absent from `raw` take their defaults (the editor sent the whole section);
    a bad value keeps its previous valid value and is reported; unknown keys are
    reported too so typos are not silently ignored.
    """
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        return previous, [SettingError("", "settings must be an object")]
    errors: list[SettingError] = []
    result = Settings()
    for key, value in flatten(raw).items():
        spec = SPECS_BY_KEY.get(key)
        if spec is None:
            errors.append(SettingError(key, "unknown setting (ignored)"))
            continue
        try:
            checked = _check(spec, value)
        except SettingError as err:
            errors.append(err)
            checked = get_path(previous, spec.path)
        result = _replace(result, spec.path, checked)
    return result, errors


def get_path(obj: Any, path: tuple[str, ...]) -> Any:
    for name in path:
        obj = getattr(obj, name)
    return obj


def to_editor_dict(settings: Settings, *, include_secrets: bool = False) -> dict[str, Any]:
    """Dotted-key view of the settings, for `flashls.showSettings` and the CLI."""
    out = {}
    for spec in SPECS:
        value = get_path(settings, spec.path)
        if spec.secret and not include_secrets:
            value = "<set>" if value else ""
        out[spec.key] = value
    return out
