"""`flashls doctor`: is the key, endpoint and model usable — and if not, what to fix.

Every check goes through the DeepSeek adapter (the only code that knows the wire
format) so doctor sees exactly what the editor would. Checks that cannot mean
anything after an earlier failure are reported as skipped, not as more failures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
from dataclasses import asdict, dataclass

from ..cli import subcommand
from ..model import fim as fim_templates
from ..model.catalog import API_KEY_ENV, DEFAULT_BASE_URLS, KEY_REQUIRED, PROVIDERS
from ..model.deepseek import DeepSeekClient
from ..model.network import NetworkSettingError, choose, client_kwargs, tls_failure
from ..model.providers import ModelClient, ProviderConfig
from ..model.types import (AuthError, BalanceError, ChatMessage, ChatRequest,
                           ConnectError, FimRequest, ModelError, UpstreamTimeout)
from ..settings import Settings

FIX_KEY = ("Set the DEEPSEEK_API_KEY environment variable (or the flashls.apiKey setting in "
           "your editor; --api-key here) to a key from https://platform.deepseek.com/api_keys.")
FIX_BAD_KEY = ("The API rejected the key (401). Create a new key at "
               "https://platform.deepseek.com/api_keys and set DEEPSEEK_API_KEY or "
               "flashls.apiKey to it; check for stray spaces or quotes.")
FIX_UNREACHABLE = ("Check flashls.baseUrl / --base-url (default https://api.deepseek.com), your "
                   "network, and HTTPS_PROXY if you are behind a proxy.")
FIX_BALANCE = "Top up your balance at https://platform.deepseek.com (the API answered 402)."
SLOW_ROUND_TRIP_MS = 1500.0


@dataclass
class Check:
    name: str
    status: str  # ok | fail | warn | skip
    detail: str
    fix: str = ""


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _fail_for(name: str, err: ModelError, fallback_fix: str) -> Check:
    if isinstance(err, AuthError):
        return Check(name, "fail", str(err), FIX_BAD_KEY)
    if isinstance(err, BalanceError):
        return Check(name, "fail", str(err), FIX_BALANCE)
    if isinstance(err, (ConnectError, UpstreamTimeout)):
        return Check(name, "fail", str(err), FIX_UNREACHABLE)
    return Check(name, "fail", str(err), fallback_fix)


def network_check(base_url: str, proxy: str, ca_file: str) -> tuple[Check, dict | None]:
    """Which proxy and CA requests use, and why; the client options, or None when the
    CA file cannot be loaded."""
    chosen = choose(base_url, proxy, ca_file)
    via = chosen.proxy or "direct (no proxy)"
    detail = (f"proxy: {via} [{chosen.proxy_source}]; CA: {chosen.ca} "
              f"[{chosen.ca_source}]")
    try:
        options = client_kwargs(proxy, ca_file)
    except NetworkSettingError as err:
        return Check("Proxy and CA", "fail", f"{detail}; {err}",
                     "Point flashls.caFile / --ca-file at a readable PEM file of CA "
                     "certificates."), None
    return Check("Proxy and CA", "ok", detail), options


def _unreachable(err: ModelError) -> Check:
    tls = tls_failure(err)
    if tls:
        return Check("Endpoint reachable", "fail", f"TLS handshake failed: {tls}",
                     "Set flashls.caFile / --ca-file (or SSL_CERT_FILE) to the CA bundle "
                     "your network uses; ask your IT for it if a proxy inspects TLS.")
    return Check("Endpoint reachable", "fail", str(err), FIX_UNREACHABLE)


async def run_checks(base_url: str, api_key: str, key_source: str, model: str, *,
                     timeout_s: float = 10.0, rounds: int = 3, proxy: str = "",
                     ca_file: str = "") -> list[Check]:
    checks: list[Check] = []
    network, options = network_check(base_url, proxy, ca_file)
    checks.append(network)
    if api_key:
        checks.append(Check("API key", "ok", f"set (from {key_source})"))
    else:
        checks.append(Check("API key", "fail", "no key: neither --api-key nor DEEPSEEK_API_KEY "
                                               "is set", FIX_KEY))
    if options is None:
        for name in ("Endpoint reachable", "Key accepted", "Model name",
                     "Chat (thinking disabled)", "FIM endpoint", "Round trip"):
            checks.append(Check(name, "skip", "the CA file cannot be loaded"))
        return checks
    client = DeepSeekClient(base_url, api_key, connect_timeout_s=min(timeout_s, 5.0),
                            idle_timeout_s=timeout_s, network=options)
    try:
        await _remote_checks(client, checks, base_url, bool(api_key), model, timeout_s, rounds)
    finally:
        await client.aclose()
    return checks


async def _remote_checks(client: DeepSeekClient, checks: list[Check], base_url: str,
                         have_key: bool, model: str, timeout_s: float, rounds: int) -> None:
    loop = asyncio.get_running_loop()
    started = loop.time()
    models: list[str] | None = None
    list_error: ModelError | None = None
    try:
        models = await client.list_models(timeout_s=timeout_s)
    except ModelError as err:
        list_error = err
    elapsed = loop.time() - started
    if isinstance(list_error, (ConnectError, UpstreamTimeout)):
        checks.append(_unreachable(list_error))
        for name in ("Key accepted", "Model name", "Chat (thinking disabled)", "FIM endpoint",
                     "Round trip"):
            checks.append(Check(name, "skip", "endpoint unreachable"))
        return
    checks.append(Check("Endpoint reachable", "ok", f"{base_url} answered in {_ms(elapsed)}"))
    if not have_key:
        for name in ("Key accepted", "Model name", "Chat (thinking disabled)", "FIM endpoint",
                     "Round trip"):
            checks.append(Check(name, "skip", "needs an API key"))
        return
    if isinstance(list_error, (AuthError, BalanceError)):
        checks.append(_fail_for("Key accepted", list_error, FIX_BAD_KEY))
        for name in ("Model name", "Chat (thinking disabled)", "FIM endpoint", "Round trip"):
            checks.append(Check(name, "skip", "the key was not accepted"))
        return
    key_known_good = models is not None
    if key_known_good:
        checks.append(Check("Key accepted", "ok", "GET /models answered 200"))
    if models is not None:
        if model in models:
            checks.append(Check("Model name", "ok", f"{model!r} is offered"))
        else:
            offered = ", ".join(models) or "none"
            checks.append(Check("Model name", "fail",
                                f"the API does not offer {model!r} (it offers: {offered})",
                                "Set flashls.model (or --model) to one of the offered models."))
    # a tiny real chat request: the model answers with thinking disabled
    chat = ChatRequest(model, (ChatMessage("user", "Reply with OK."),), max_tokens=1)
    try:
        result = await client.generate(chat, timeout_s=timeout_s)
        if not key_known_good:
            checks.append(Check("Key accepted", "ok", "a chat request succeeded"))
            key_known_good = True
        if models is None:
            checks.append(Check("Model name", "ok", f"{model!r} answered (model list "
                                                    f"unavailable: {list_error})"))
        checks.append(Check("Chat (thinking disabled)", "ok",
                            f"answered in {_ms(result.total_s)} with max_tokens 1"))
    except ModelError as err:
        if isinstance(err, (AuthError, BalanceError)):
            checks.append(_fail_for("Key accepted", err, FIX_BAD_KEY))
            for name in ("Chat (thinking disabled)", "FIM endpoint", "Round trip"):
                checks.append(Check(name, "skip", "the key was not accepted"))
            return
        if models is None:
            checks.append(Check("Model name", "skip", "could not be checked"))
        checks.append(_fail_for(
            "Chat (thinking disabled)", err,
            f"The API rejected a chat request for {model!r} with thinking disabled: check "
            "flashls.model and flashls.baseUrl (DeepSeek's API accepts "
            "\"thinking\": {\"type\": \"disabled\"})."))
    fim = FimRequest(model, "def add(a, b):\n    return ", "\n", max_tokens=1)
    totals: list[float] = []
    firsts: list[float] = []
    try:
        for _ in range(max(1, rounds)):
            result = await client.generate(fim, timeout_s=timeout_s)
            totals.append(result.total_s)
            if result.first_token_s is not None:
                firsts.append(result.first_token_s)
        checks.append(Check("FIM endpoint", "ok", f"/beta/completions answered in "
                                                  f"{_ms(totals[0])}"))
    except ModelError as err:
        checks.append(_fail_for(
            "FIM endpoint", err,
            "Completions use FIM (/beta/completions) by default. If your endpoint has none, "
            "set flashls.completion.endpoint to \"chat\"."))
    if not totals:
        checks.append(Check("Round trip", "skip", "no successful request to time"))
        return
    median = statistics.median(totals)
    detail = f"median {_ms(median)} over {len(totals)} tiny FIM requests"
    if firsts:
        detail += f" (first token {_ms(statistics.median(firsts))})"
    if median * 1000 > SLOW_ROUND_TRIP_MS:
        checks.append(Check("Round trip", "warn", detail,
                            "Completions will feel slow: check your network, proxy or VPN."))
    else:
        checks.append(Check("Round trip", "ok", detail))


def render(checks: list[Check], base_url: str, model: str) -> str:
    width = max(len(c.name) for c in checks)
    lines = [f"flashls doctor: {base_url}, model {model}"]
    for c in checks:
        lines.append(f"  {c.status.upper():<5} {c.name:<{width}}  {c.detail}")
        if c.fix and c.status in ("fail", "warn"):
            lines.append(f"  {'':<5} {'':<{width}}  fix: {c.fix}")
    failed = [c.name for c in checks if c.status == "fail"]
    lines.append("")
    lines.append(f"{len(failed)} check(s) failed: {', '.join(failed)}" if failed
                 else "All checks passed.")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = Settings()
    parser.add_argument("--provider", choices=PROVIDERS, default=defaults.provider,
                        help="wire format of the server, as flashls.provider (default deepseek)")
    parser.add_argument("--api-key", default="", help="API key (default: the provider's "
                        "environment variable, e.g. $DEEPSEEK_API_KEY)")
    parser.add_argument("--base-url", default="",
                        help=f"API base URL (default {defaults.base_url}, or the provider's "
                        "default)")
    parser.add_argument("--fim-template", default="auto",
                        help="as flashls.completion.fimTemplate (auto or a preset name)")
    parser.add_argument("--model", default=defaults.model,
                        help=f"model to check (default {defaults.model})")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                        help="per-request timeout (default 10)")
    parser.add_argument("--proxy", default="", help="HTTP(S) proxy URL, as flashls.proxy "
                        "(default: HTTPS_PROXY / NO_PROXY)")
    parser.add_argument("--ca-file", default="", metavar="PEM",
                        help="CA certificates to trust, as flashls.caFile (default: "
                        "SSL_CERT_FILE, else the bundled roots)")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")


@subcommand("doctor", "Check the API key, endpoint, model and round trip; say what to fix.",
            add_arguments)
def run(args: argparse.Namespace) -> int:
    args.base_url = args.base_url or DEFAULT_BASE_URLS[args.provider]
    if not args.base_url.startswith(("http://", "https://")):
        print(f"flashls doctor: --base-url {args.base_url!r} is not an http(s) URL",
              file=sys.stderr)
        return 2
    if not 0 < args.timeout <= 600:
        print("flashls doctor: --timeout must be between 0 and 600 seconds", file=sys.stderr)
        return 2
    if args.provider != "deepseek":
        return run_provider(args)
    key = args.api_key or os.environ.get("DEEPSEEK_API_KEY", "")
    source = "--api-key" if args.api_key else "DEEPSEEK_API_KEY"
    if args.proxy and not args.proxy.startswith(("http://", "https://")):
        print(f"flashls doctor: --proxy {args.proxy!r} is not an http(s) URL", file=sys.stderr)
        return 2
    checks = asyncio.run(run_checks(args.base_url, key.strip(), source, args.model,
                                    timeout_s=args.timeout, proxy=args.proxy,
                                    ca_file=args.ca_file))
    if args.json:
        print(json.dumps({"baseUrl": args.base_url, "model": args.model,
                          "ok": not any(c.status == "fail" for c in checks),
                          "checks": [asdict(c) for c in checks]}, indent=2))
    else:
        print(render(checks, args.base_url, args.model))
    return 1 if any(c.status == "fail" for c in checks) else 0


# -- other providers ----------------------------------------------------------------------
START_HINTS = {
    "openai": "Start the server (e.g. `vllm serve MODEL --port 8000` or `python -m "
              "sglang.launch_server --model-path MODEL --port 8000`) and set flashls.baseUrl "
              "to its URL ending in /v1.",
    "llamacpp": "Start `llama-server -m MODEL.gguf --port 8080` and set flashls.baseUrl to its "
                "URL (without /v1).",
    "ollama": "Start Ollama (`ollama serve`) and set flashls.baseUrl (default "
              "http://127.0.0.1:11434).",
    "mistral": "Check flashls.baseUrl (https://api.mistral.ai/v1 or "
               "https://codestral.mistral.ai/v1), your network and HTTPS_PROXY.",
}
MODEL_HINTS = {
    "openai": "Set flashls.model to a served model id (vLLM: --served-model-name).",
    "ollama": "Run `ollama pull {model}` or set flashls.model to one of the local models.",
    "mistral": "Set flashls.model to a Codestral model (e.g. codestral-latest).",
}


def _key_check(provider: str, api_key: str, key_source: str) -> Check:
    if api_key:
        return Check("API key", "ok", f"set (from {key_source})")
    if provider in KEY_REQUIRED:
        return Check("API key", "fail", f"no key: neither --api-key nor {API_KEY_ENV[provider]} "
                     "is set", f"Set {API_KEY_ENV[provider]} or flashls.apiKey.")
    return Check("API key", "ok", "none set (a local server usually needs none)")


def _template_check(setting: str, model: str) -> Check:
    name, known = fim_templates.auto_template_name(model)
    if setting != "auto":
        return Check("FIM template", "ok", f"{setting} (set explicitly)")
    if known:
        return Check("FIM template", "ok", f"{name} (from the model name {model!r})")
    return Check("FIM template", "warn", f"{name} is a guess: {model!r} names no known family",
                 "Set flashls.completion.fimTemplate to the model's preset or a custom "
                 "{prefix, suffix, middle, fileSeparator}.")


async def _probe(client: ModelClient, request, timeout_s: float):
    try:
        return await client.generate(request, timeout_s=timeout_s), None
    except ModelError as err:
        return None, err


async def run_provider_checks(provider: str, base_url: str, api_key: str, key_source: str,
                              model: str, *, fim_template: str = "auto",
                              timeout_s: float = 10.0, rounds: int = 3) -> list[Check]:
    """Doctor for a non-DeepSeek provider: reachable, key, model present, template, FIM
    and chat answering, round trip; each failure says what to fix for that server."""
    checks = [_key_check(provider, api_key, key_source)]
    client = ModelClient(ProviderConfig(provider, base_url, api_key, (), fim_template),
                         connect_timeout_s=min(timeout_s, 5.0), idle_timeout_s=timeout_s)
    try:
        await _provider_remote(client, checks, provider, base_url, model, fim_template,
                               timeout_s, rounds)
    finally:
        await client.aclose()
    return checks


async def _provider_remote(client: ModelClient, checks: list[Check], provider: str,
                           base_url: str, model: str, fim_template: str, timeout_s: float,
                           rounds: int) -> None:
    later = ("Model present", "FIM completion", "Chat (code actions)", "Round trip")
    try:
        models: list[str] | None = await client.list_models(timeout_s=timeout_s)
        checks.append(Check("Endpoint reachable", "ok", f"{base_url} answered"))
    except (ConnectError, UpstreamTimeout) as err:
        checks.append(Check("Endpoint reachable", "fail", str(err), START_HINTS[provider]))
        checks.extend(Check(name, "skip", "endpoint unreachable") for name in later)
        return
    except AuthError as err:
        checks.append(Check("Endpoint reachable", "ok", f"{base_url} answered"))
        checks.append(Check("Key accepted", "fail", str(err), err.user_action or FIX_BAD_KEY))
        checks.extend(Check(name, "skip", "the key was not accepted") for name in later)
        return
    except ModelError as err:
        checks.append(Check("Endpoint reachable", "warn", f"no model list: {err}"))
        models = None
    checks.append(_model_check(provider, model, models))
    checks.append(_template_check(fim_template, model))
    fim = FimRequest(model, "def add(a, b):\n    return ", "\n", max_tokens=4)
    result, err = await _probe(client, fim, timeout_s)
    totals = [result.total_s] if result else []
    if err is None:
        checks.append(Check("FIM completion", "ok", f"answered in {_ms(result.total_s)}"))
    else:
        checks.append(Check("FIM completion", "fail", str(err), err.user_action or
                            "Completions need FIM; if the server has none, set "
                            "flashls.completion.endpoint to \"chat\"."))
    chat = ChatRequest(model, (ChatMessage("user", "Reply with OK."),), max_tokens=2)
    result, err = await _probe(client, chat, timeout_s)
    if err is None:
        checks.append(Check("Chat (code actions)", "ok", f"answered in {_ms(result.total_s)}"))
    else:
        checks.append(Check("Chat (code actions)", "fail", str(err), err.user_action or
                            "Code actions need the chat endpoint (/v1/chat/completions or "
                            "/api/chat)."))
    for _ in range(max(0, rounds - 1) if totals else 0):
        result, err = await _probe(client, fim, timeout_s)
        if result:
            totals.append(result.total_s)
    if not totals:
        checks.append(Check("Round trip", "skip", "no successful request to time"))
        return
    median = statistics.median(totals)
    status = "warn" if median * 1000 > SLOW_ROUND_TRIP_MS else "ok"
    checks.append(Check("Round trip", status, f"median {_ms(median)} over {len(totals)} tiny "
                        "FIM requests", "Completions will feel slow: a smaller or quantized "
                        "model, or a GPU, would help." if status == "warn" else ""))


def _model_check(provider: str, model: str, models: list[str] | None) -> Check:
    if models is None:
        return Check("Model present", "skip", "the server gave no model list")
    if provider == "llamacpp":
        served = ", ".join(models) or "one model"
        return Check("Model present", "ok", f"llama-server serves {served} (it answers "
                     "whatever flashls.model says)")
    if model in models:
        return Check("Model present", "ok", f"{model!r} is served")
    offered = ", ".join(models[:12]) or "none"
    return Check("Model present", "fail", f"{model!r} is not served (offered: {offered})",
                 MODEL_HINTS.get(provider, "Set flashls.model to a served model.")
                 .format(model=model))


def run_provider(args: argparse.Namespace) -> int:
    """`run` for the other providers (arguments already checked there)."""
    if args.fim_template != "auto" and args.fim_template not in fim_templates.PRESETS:
        print("flashls doctor: --fim-template must be auto or a preset name", file=sys.stderr)
        return 2
    env = API_KEY_ENV[args.provider]
    key = (args.api_key or os.environ.get(env, "")).strip()
    source = "--api-key" if args.api_key else env
    model = args.model
    checks = asyncio.run(run_provider_checks(args.provider, args.base_url, key, source, model,
                                             fim_template=args.fim_template,
                                             timeout_s=args.timeout))
    if args.json:
        print(json.dumps({"provider": args.provider, "baseUrl": args.base_url, "model": model,
                          "ok": not any(c.status == "fail" for c in checks),
                          "checks": [asdict(c) for c in checks]}, indent=2))
    else:
        print(render(checks, f"{args.provider} {args.base_url}", model))
    return 1 if any(c.status == "fail" for c in checks) else 0
