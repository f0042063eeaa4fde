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
from ..model.deepseek import DeepSeekClient
from ..model.network import NetworkSettingError, choose, client_kwargs, tls_failure
from ..model.types import (AuthError, BadRequestError, BalanceError, ChatMessage, ChatRequest,
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
    parser.add_argument("--api-key", default="", help="API key (default: $DEEPSEEK_API_KEY)")
    parser.add_argument("--base-url", default=defaults.base_url,
                        help=f"API base URL (default {defaults.base_url})")
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
    if not args.base_url.startswith(("http://", "https://")):
        print(f"flashls doctor: --base-url {args.base_url!r} is not an http(s) URL",
              file=sys.stderr)
        return 2
    if not 0 < args.timeout <= 600:
        print("flashls doctor: --timeout must be between 0 and 600 seconds", file=sys.stderr)
        return 2
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
