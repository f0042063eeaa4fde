"""`flashls loadtest [PATH]`: the three load tests every deployment needs, against the
configured endpoint, with completion requests built from the repository at PATH.

1. Long input near the context limit: time to first token and errors.
2. Concurrency ramp 1, 2, 4, … N: throughput and p50/p99 per step; the knee where
   p99 turns up is the real capacity, and Little's law turns it into developers.
3. The same request repeated under load: how stable the output is.

Bounded in requests and time; refuses a paid endpoint unless `--allow-paid` (after
printing a cost estimate). Analysis lives in `loadtest_report.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import itertools
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

from ..cli import subcommand
from ..completion.prompt import PromptInputs, fim_request
from ..context.assemble import assemble_context
from ..context.document import Document
from ..context.syntax import ParsedDocument
from ..context.tokens import estimate_tokens
from ..context.workspace import Workspace
from ..model.catalog import API_KEY_ENV, DEFAULT_BASE_URLS, PROVIDERS, is_paid
from ..model.providers import ModelClient, ProviderConfig
from ..model.types import AuthError, BalanceError, ContextFile, FimRequest, ModelError
from ..settings import DEFAULT_EXCLUDE, DEFAULT_PRICES, SettingError, Settings, check_headers
from ..usage.ledger import Ledger, LedgerError, resolve_path
from ..usage.pricing import price_for
from . import loadtest_report as report_mod
from .eval_cases import build_cases, source_files
from .loadtest_report import Sample, Step

LONG_FILL = 0.9  # the long-input prompt fills this share of the context limit
REQUESTS_PER_WORKER = 4  # each ramp step sends concurrency × this many requests
MIN_STEP_REQUESTS = 8
STEPS_PAST_KNEE = 2  # the ramp stops this many steps after p99 turned up
MIN_LEDGER_REQUESTS = 50
LEDGER_DAYS = 30
MAX_LONG_FILES = 10_000


@dataclass
class LoadOptions:
    root: str
    provider: str = "deepseek"
    base_url: str = ""
    model: str = "deepseek-flash"
    api_key: str = field(default="", repr=False)
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    fim_template: Any = "auto"
    max_concurrency: int = 16
    max_requests: int = 400
    max_seconds: float = 300.0
    context_limit: int = 8192
    long_requests: int = 3
    repeat: int = 20
    max_tokens: int = 32
    timeout_s: float = 30.0
    p99_target_ms: float = 1000.0
    requests_per_dev_hour: float | None = None
    ledger: str = ""
    seed: int = 0
    exclude: list[str] = field(default_factory=list)

    def config(self) -> ProviderConfig:
        return ProviderConfig(self.provider, self.base_url, self.api_key,
                              tuple(sorted(self.headers.items())), self.fim_template)


class Budget:
    """Caps the whole run in requests and seconds; says why it stopped."""

    def __init__(self, max_requests: int, max_seconds: float,
                 clock: Callable[[], float] = time.monotonic):
        self.left = max_requests
        self.clock = clock
        self.deadline = clock() + max_seconds
        self.stopped: str | None = None
        self.sent = 0  # requests that actually went out

    def take(self, wanted: int) -> int:
        if self.clock() >= self.deadline:
            self.stopped = self.stopped or "time limit reached"
            return 0
        granted = max(0, min(wanted, self.left))
        self.left -= granted
        if granted < wanted:
            self.stopped = self.stopped or "request limit reached"
        return granted

    def out_of_time(self) -> bool:
        if self.clock() >= self.deadline:
            self.stopped = self.stopped or "time limit reached"
            return True
        return False


class Aborted(Exception):
    """A failure no further request can avoid (bad key, no balance)."""


# -- requests from the repository ---------------------------------------------------
def repository_requests(opts: LoadOptions, count: int) -> list[FimRequest]:
    """Completion requests at held-out lines of the repository, with the same context
    the editor would send (so prompts have realistic sizes and shared prefixes)."""
    root = os.path.realpath(opts.root)
    exclude = list(DEFAULT_EXCLUDE) + list(opts.exclude)
    workspace = Workspace([root], exclude)
    requests = []
    for case in build_cases(root, count, opts.seed, exclude):
        uri = Path(case.path).as_uri()
        pdoc = ParsedDocument.open(Document(uri, case.text, case.language_id, 1, "utf-16"),
                                   case.path)
        ctx = assemble_context(pdoc, case.offset, budget_tokens=2048, workspace=workspace,
                               open_docs={uri: pdoc})
        spec = pdoc.spec
        inputs = PromptInputs(case.rel, case.language_id, spec.line_comment if spec else "")
        requests.append(fim_request(ctx, inputs, model=opts.model, max_tokens=opts.max_tokens))
    return requests


def long_request(base: FimRequest, opts: LoadOptions) -> FimRequest:
    """`base` with other files of the repository added until the prompt is near the
    context limit (minus the answer)."""
    target = int((opts.context_limit - opts.max_tokens) * LONG_FILL)
    root = os.path.realpath(opts.root)
    workspace = Workspace([root], list(DEFAULT_EXCLUDE) + list(opts.exclude))
    paths = list(source_files(workspace, root))
    texts = [(os.path.relpath(p, root), workspace.read(p) or "") for p in paths]
    texts = [(rel, text) for rel, text in texts if text]
    files: list[ContextFile] = []
    total = estimate_tokens(base.prompt + base.suffix)
    # a small repository is repeated: the point is the length, not the variety
    for rel, text in itertools.islice(itertools.cycle(texts), MAX_LONG_FILES if texts else 0):
        if total >= target:
            break
        room = target - total
        tokens = estimate_tokens(text)
        if tokens > room:
            text = text[:max(0, int(len(text) * room / max(tokens, 1)))]
        if text:
            files.append(ContextFile(rel, text))
            total += estimate_tokens(text)
    head = "".join(f"--- {f.filename} ---\n{f.text}\n" for f in files)
    return dataclasses.replace(base, prompt=head + base.prompt, files=tuple(files) + base.files)


# -- running ------------------------------------------------------------------------
async def one(client: ModelClient, request: FimRequest, timeout_s: float) -> Sample:
    started = time.perf_counter()
    try:
        result = await client.generate(request, timeout_s=timeout_s)
    except (AuthError, BalanceError) as err:
        raise Aborted(f"{err}. {err.user_action or ''}".strip()) from err
    except ModelError as err:
        kind = type(err).__name__ + (f" {err.status}" if err.status else "")
        return Sample(None, error=f"{kind}: {str(err)[:160]}")
    latency = (time.perf_counter() - started) * 1000.0
    ttft = result.first_token_s * 1000.0 if result.first_token_s is not None else None
    return Sample(latency, ttft, result.text)


async def run_closed_loop(client: ModelClient, requests: Sequence[FimRequest], total: int,
                          concurrency: int, timeout_s: float,
                          budget: Budget | None = None) -> Step:
    """`concurrency` workers sending `total` requests back to back; they stop taking
    new ones once the run's time is up."""
    source = itertools.cycle(requests)
    queue: asyncio.Queue[FimRequest] = asyncio.Queue()
    for _ in range(total):
        queue.put_nowait(next(source))
    step = Step(concurrency, 0.0)

    async def worker() -> None:
        while budget is None or not budget.out_of_time():
            try:
                request = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            if budget is not None:
                budget.sent += 1
            step.samples.append(await one(client, request, timeout_s))

    started = time.perf_counter()
    workers = [asyncio.ensure_future(worker()) for _ in range(max(1, min(concurrency, total)))]
    try:
        await asyncio.gather(*workers)
    finally:
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    step.wall_s = time.perf_counter() - started
    return step


async def long_input_test(client, opts, base, budget, say) -> dict[str, Any] | None:
    n = budget.take(opts.long_requests)
    if not n:
        return None
    request = long_request(base, opts)
    tokens = estimate_tokens(request.prompt + request.suffix)
    say(f"loadtest: long input, ~{tokens} tokens, {n} request(s)")
    step = await run_closed_loop(client, [request], n, 1, opts.timeout_s, budget)
    summary = step.summary()
    errors = sorted({s.error for s in step.samples if s.error})
    return {"promptTokens": tokens, "requests": n, "errors": summary["errors"],
            "errorKinds": errors, "ttftP50Ms": summary["ttftP50Ms"],
            "ttftP99Ms": summary["ttftP99Ms"], "p50Ms": summary["p50Ms"],
            "p99Ms": summary["p99Ms"]}


async def ramp_test(client, opts, requests, budget, say) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    for concurrency in report_mod.ramp_steps(opts.max_concurrency):
        if budget.out_of_time():
            break
        n = budget.take(max(MIN_STEP_REQUESTS, concurrency * REQUESTS_PER_WORKER))
        if n < concurrency:
            break
        step = await run_closed_loop(client, requests, n, concurrency, opts.timeout_s, budget)
        summary = step.summary()
        steps.append(summary)
        say(f"loadtest: concurrency {concurrency:>3}: {summary['requests']} requests, "
            f"{summary['errors']} errors, {summary['throughputRps']} req/s, "
            f"p50 {summary['p50Ms']} ms, p99 {summary['p99Ms']} ms")
        knee = report_mod.find_knee(steps)
        past = [s for s in steps if knee is not None and s["concurrency"] > knee]
        if len(past) >= STEPS_PAST_KNEE:
            break  # the curve has turned: more steps only cost requests
    return steps


async def stability_test(client, opts, request, concurrency, budget, say) -> dict[str, Any] | None:
    n = budget.take(opts.repeat)
    if not n:
        return None
    say(f"loadtest: the same request x{n} at concurrency {concurrency}")
    step = await run_closed_loop(client, [request], n, concurrency, opts.timeout_s, budget)
    return report_mod.stability(step.samples)


def ledger_rate(path: str, *, now: float | None = None) -> float | None:
    """Requests per active developer-hour in the ledger (an active hour: an hour of one
    editor session with at least one request), None with too little data."""
    now = time.time() if now is None else now
    try:
        ledger = Ledger(path, create=False)
    except LedgerError:
        return None
    try:
        rows = [r for r in ledger.requests_between(now - LEDGER_DAYS * 86400, now)
                if r.kind in ("completion", "action")]
    finally:
        ledger.close()
    hours = {(r.session, int(r.ts // 3600)) for r in rows}
    if len(rows) < MIN_LEDGER_REQUESTS or not hours:
        return None
    return round(len(rows) / len(hours), 1)


def planned_requests(opts: LoadOptions) -> int:
    ramp = sum(max(MIN_STEP_REQUESTS, c * REQUESTS_PER_WORKER)
               for c in report_mod.ramp_steps(opts.max_concurrency))
    return min(opts.max_requests, opts.long_requests + ramp + opts.repeat)


def cost_estimate(opts: LoadOptions, prompt_tokens: int, prices: dict | None = None
                  ) -> float | None:
    """Upper bound in USD: every planned request at the full (cache-miss) price,
    the long ones at the context limit, each answer at max tokens."""
    price = price_for(prices if prices is not None else DEFAULT_PRICES, opts.model, time.time())
    if price is None:
        return None
    n = planned_requests(opts)
    long_n = min(opts.long_requests, n)
    prompt = (n - long_n) * prompt_tokens + long_n * opts.context_limit
    return (prompt * price.cache_miss + n * opts.max_tokens * price.output) / 1_000_000


async def loadtest(opts: LoadOptions, *, say: Callable[[str], None] | None = None
                   ) -> dict[str, Any]:
    say = say or (lambda text: print(text, file=sys.stderr, flush=True))
    requests = repository_requests(opts, 16)
    if not requests:
        raise ValueError(f"no usable source lines under {opts.root} (supported languages, "
                         "not excluded, not ignored by git)")
    budget = Budget(opts.max_requests, opts.max_seconds)
    rate = opts.requests_per_dev_hour
    source = "given"
    if rate is None:
        rate = ledger_rate(str(resolve_path(opts.ledger)))
        source = "measured in the ledger" if rate is not None else "default assumption"
        rate = rate or report_mod.DEFAULT_REQUESTS_PER_DEV_HOUR
    client = ModelClient(opts.config(), connect_timeout_s=min(opts.timeout_s, 10.0),
                         idle_timeout_s=opts.timeout_s)
    report: dict[str, Any] = {"provider": opts.provider, "baseUrl": opts.base_url,
                              "model": opts.model, "root": os.path.realpath(opts.root),
                              "maxTokens": opts.max_tokens, "contextLimit": opts.context_limit,
                              "requestsPerDevHourSource": source}
    try:
        report["longInput"] = await long_input_test(client, opts, requests[0], budget, say)
        ramp = await ramp_test(client, opts, requests, budget, say)
        report["ramp"] = ramp
        report["capacity"] = report_mod.capacity(ramp, opts.p99_target_ms, rate)
        knee = report["capacity"]["knee"] or 1
        report["stability"] = await stability_test(client, opts, requests[0], knee, budget, say)
    finally:
        await client.aclose()
    report["requestsSent"] = budget.sent
    report["stoppedEarly"] = budget.stopped
    return report


# -- command line -------------------------------------------------------------------
def _header(value: str) -> tuple[str, str]:
    name, sep, header = value.partition("=")
    name = name.strip()
    try:
        check_headers({name: header})
    except SettingError as err:
        raise argparse.ArgumentTypeError(str(err).replace("flashls.headers: ", "")) from None
    if not sep:
        raise argparse.ArgumentTypeError("expected NAME=VALUE")
    return name, header


def add_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = Settings()
    parser.add_argument("path", nargs="?", default=".",
                        help="repository to build requests from (default: current folder)")
    parser.add_argument("--provider", choices=PROVIDERS, default=defaults.provider)
    parser.add_argument("--base-url", default="",
                        help="endpoint (default: the provider's default URL)")
    parser.add_argument("--model", default=defaults.model)
    parser.add_argument("--api-key", default="", help="API key (default: the provider's "
                        "environment variable; none for local servers)")
    parser.add_argument("--header", action="append", type=_header, default=[],
                        metavar="NAME=VALUE", help="extra HTTP header (repeatable)")
    parser.add_argument("--fim-template", default="auto",
                        help="as flashls.completion.fimTemplate (a preset name or auto)")
    parser.add_argument("--max-concurrency", type=int, default=16,
                        help="last step of the ramp 1, 2, 4, ... (default 16)")
    parser.add_argument("--max-requests", type=int, default=400,
                        help="requests in the whole run at most (default 400)")
    parser.add_argument("--max-seconds", type=float, default=300.0,
                        help="time for the whole run at most (default 300)")
    parser.add_argument("--context-limit", type=int, default=8192,
                        help="the server's max context in tokens (default 8192)")
    parser.add_argument("--long-requests", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20,
                        help="how often the stability test repeats one request (default 20)")
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS")
    parser.add_argument("--p99-target-ms", type=float, default=1000.0)
    parser.add_argument("--requests-per-dev-hour", type=float, default=None,
                        help="default: measured in the ledger, else "
                        f"{report_mod.DEFAULT_REQUESTS_PER_DEV_HOUR:g}")
    parser.add_argument("--ledger", default="", metavar="PATH")
    parser.add_argument("--out", default="flashls-loadtest", metavar="DIR",
                        help="where loadtest.json and loadtest.png go")
    parser.add_argument("--allow-paid", action="store_true",
                        help="run against a paid API (hosted DeepSeek or Mistral, or any "
                        "non-local endpoint)")
    parser.add_argument("--json", action="store_true", help="print the JSON report")


def options_from_args(args: argparse.Namespace) -> LoadOptions:
    key = args.api_key or os.environ.get(API_KEY_ENV[args.provider], "")
    return LoadOptions(
        root=args.path, provider=args.provider,
        base_url=(args.base_url or DEFAULT_BASE_URLS[args.provider]).rstrip("/"),
        model=args.model, api_key=key.strip(), headers=dict(args.header),
        fim_template=args.fim_template, max_concurrency=args.max_concurrency,
        max_requests=args.max_requests, max_seconds=args.max_seconds,
        context_limit=args.context_limit, long_requests=args.long_requests,
        repeat=args.repeat, max_tokens=args.max_tokens, timeout_s=args.timeout,
        p99_target_ms=args.p99_target_ms, requests_per_dev_hour=args.requests_per_dev_hour,
        ledger=args.ledger)


def problem(opts: LoadOptions) -> str | None:
    if not os.path.isdir(opts.root):
        return f"{opts.root!r} is not a folder"
    if not opts.base_url.startswith(("http://", "https://")):
        return f"--base-url {opts.base_url!r} is not an http(s) URL"
    checks = [(1 <= opts.max_concurrency <= 1024, "--max-concurrency must be 1..1024"),
              (1 <= opts.max_requests <= 100_000, "--max-requests must be 1..100000"),
              (0 < opts.max_seconds <= 86_400, "--max-seconds must be 0..86400"),
              (256 <= opts.context_limit <= 2_000_000, "--context-limit must be 256..2000000"),
              (0 <= opts.long_requests <= 1000, "--long-requests must be 0..1000"),
              (0 <= opts.repeat <= 10_000, "--repeat must be 0..10000"),
              (1 <= opts.max_tokens <= 4096, "--max-tokens must be 1..4096"),
              (0 < opts.timeout_s <= 600, "--timeout must be 0..600 seconds"),
              (opts.p99_target_ms > 0, "--p99-target-ms must be positive"),
              (opts.requests_per_dev_hour is None or opts.requests_per_dev_hour > 0,
               "--requests-per-dev-hour must be positive"),
              (opts.fim_template == "auto" or opts.fim_template in
               ("deepseek", "qwen", "codellama", "starcoder", "codestral"),
               "--fim-template must be auto or a preset name")]
    return next((message for ok, message in checks if not ok), None)


def paid_notice(opts: LoadOptions, stream: TextIO) -> None:
    cost = cost_estimate(opts, 1500)
    estimate = f"about ${cost:.2f} at most" if cost is not None else "unknown (no price)"
    stream.write(f"flashls loadtest: {opts.base_url} is a paid API ({opts.provider}); up to "
                 f"{planned_requests(opts)} requests would cost {estimate}.\n")


def write_outputs(report: dict[str, Any], out_dir: str, stream: TextIO) -> None:
    os.makedirs(out_dir, exist_ok=True)
    json_path = os.path.join(out_dir, "loadtest.json")
    with open(json_path, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=2)
    why_not = report_mod.write_chart(report, os.path.join(out_dir, "loadtest.png"))
    stream.write(f"flashls loadtest: wrote {json_path}" +
                 (f" and {os.path.join(out_dir, 'loadtest.png')}\n" if why_not is None
                  else f"; {why_not}\n"))


@subcommand("loadtest", "Load-test a model endpoint with requests from your repository: "
            "long input, concurrency ramp (knee, developers served), output stability.",
            add_arguments)
def run(args: argparse.Namespace) -> int:
    opts = options_from_args(args)
    issue = problem(opts)
    if issue:
        print(f"flashls loadtest: {issue}", file=sys.stderr)
        return 2
    if is_paid(opts.provider, opts.base_url):
        paid_notice(opts, sys.stderr)
        if not args.allow_paid:
            print("flashls loadtest: refusing without --allow-paid.", file=sys.stderr)
            return 2
    try:
        report = asyncio.run(loadtest(opts))
    except Aborted as err:
        print(f"flashls loadtest: stopped: {err}", file=sys.stderr)
        return 1
    except ValueError as err:
        print(f"flashls loadtest: {err}", file=sys.stderr)
        return 2
    try:
        write_outputs(report, args.out, sys.stderr)
    except OSError as err:
        print(f"flashls loadtest: cannot write the report: {err}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=2) if args.json else report_mod.render_text(report))
    return 0
