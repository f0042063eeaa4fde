"""`flashls eval [PATH]`: how well would a model complete *your* code, and at what cost?

Cases come from the repository at PATH (`eval_cases.py`). Each one runs through the
same pipeline the editor uses (`build_engine`: context, prompt, model, cleaning)
against the configured endpoint, one engine per worker so no case sees another's
hidden line. Results go to the ledger keyed by (run, case, model): a rerun with the
same arguments only runs what is missing or failed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import dataclasses
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence, TextIO

from ..cli import subcommand
from ..completion.factory import build_engine
from ..context.document import Document
from ..context.syntax import ParsedDocument
from ..context.workspace import path_from_uri
from ..model.catalog import API_KEY_ENV, DEFAULT_BASE_URLS, PROVIDERS
from ..model.providers import ModelClient, ProviderConfig
from ..model.types import AuthError, BalanceError, ModelError, ModelResult
from ..settings import DEFAULT_EXCLUDE, Settings
from ..usage.ledger import EvalRow, Ledger, LedgerError, LedgerWriter, resolve_path
from ..usage.pricing import request_cost
from ..usage.sink import LedgerSink
from .eval_cases import EvalCase, build_cases
from .eval_metrics import aggregate, head_to_head, render_markdown, render_text, score


# -- options ------------------------------------------------------------------------
@dataclass
class EvalOptions:
    root: str
    models: list[str]
    cases: int = 100
    seed: int = 0
    concurrency: int = 4
    base_url: str = Settings().base_url
    api_key: str = ""
    ledger: str = ""
    timeout_ms: int = 10_000
    endpoint: str = "fim"
    exclude: list[str] = field(default_factory=list)  # added to the default globs
    fresh: bool = False
    store_code: bool = False
    provider: str = "deepseek"
    targets: list["Target"] = field(default_factory=list)  # empty: `models` on `provider`


@dataclass(frozen=True)
class Target:
    """One side of a comparison: a model on a provider's endpoint. `label` names it in
    the report and the ledger (the model alone unless two providers are compared)."""

    label: str
    provider: str
    base_url: str
    model: str
    api_key: str = field(default="", repr=False)


def eval_targets(opts: EvalOptions) -> list[Target]:
    if opts.targets:
        return list(opts.targets)
    return [Target(m, opts.provider, opts.base_url, m, opts.api_key) for m in opts.models]


def eval_settings(opts: EvalOptions, model: str, provider: str | None = None) -> Settings:
    base = Settings()
    completion = dataclasses.replace(base.completion, endpoint=opts.endpoint, debounce_ms=0,
                                     timeout_ms=opts.timeout_ms)
    usage = dataclasses.replace(base.usage, ledger_path=str(resolve_path(opts.ledger)),
                                store_code=opts.store_code)
    return dataclasses.replace(base, provider=provider or opts.provider,
                               base_url=opts.base_url, api_key=opts.api_key, model=model, completion=completion, usage=usage,
                               exclude=list(DEFAULT_EXCLUDE) + list(opts.exclude))


def run_definition(opts: EvalOptions) -> dict[str, Any]:
    """Everything that decides which cases exist and how they are asked (not the model:
    adding a model to a comparison reuses the other models' results)."""
    s = eval_settings(opts, "")
    return {"root": os.path.realpath(opts.root), "seed": opts.seed, "cases": opts.cases,
            "endpoint": s.completion.endpoint, "contextTokens": s.completion.context_tokens,
            "maxTokens": s.completion.max_tokens, "multiline": s.completion.multiline,
            "timeoutMs": s.completion.timeout_ms, "exclude": s.exclude}


def run_id_for(opts: EvalOptions) -> str:
    blob = json.dumps(run_definition(opts), sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:12]


# -- progress -----------------------------------------------------------------------
class Progress:
    """A plain-text progress bar on stderr; a line per 10% when not a terminal."""

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30):
        self.total = max(total, 0)
        self.done = 0
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last_decile = -1

    def advance(self, label: str = "") -> None:
        self.done += 1
        if not self.total:
            return
        if self.tty:
            filled = int(self.width * self.done / self.total)
            bar = "#" * filled + "." * (self.width - filled)
            self.stream.write(f"\r[{bar}] {self.done}/{self.total} {label[:30]:<30}")
        else:
            decile = self.done * 10 // self.total
            if decile == self._last_decile:
                return
            self._last_decile = decile
            self.stream.write(f"eval: {self.done}/{self.total} cases ({label})\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.tty and self.total:
            self.stream.write("\n")
            self.stream.flush()


# -- engine events for one case -----------------------------------------------------
@dataclass
class _Probe:
    started: int = 0
    result: ModelResult | None = None
    error: ModelError | None = None


_CURRENT: contextvars.ContextVar[_Probe | None] = contextvars.ContextVar(
    "flashls_eval_probe", default=None)


class _Events:
    """Forwards engine events to the ledger sink and to the case being run (found
    through a context variable: the engine's tasks inherit it from the worker)."""

    def __init__(self, sink: LedgerSink):
        self.sink = sink

    def request_started(self, kind: str, model: str) -> None:
        self.sink.request_started(kind, model)
        probe = _CURRENT.get()
        if probe is not None:
            probe.started += 1

    def request_finished(self, kind: str, result: ModelResult | None,
                         error: ModelError | None, outcome: str) -> None:
        self.sink.request_finished(kind, result, error, outcome)
        probe = _CURRENT.get()
        if probe is not None:
            probe.result = result or probe.result
            probe.error = error or probe.error

    def suggestion_shown(self, suggestion: Any) -> None:
        pass  # eval suggestions are not shown to anyone


class EvalAborted(Exception):
    """A failure no further case can avoid (bad key, no balance)."""


# -- running ------------------------------------------------------------------------
async def _run_case(engine: Any, documents: dict, case: EvalCase, run_id: str, model: str,
                    settings: Settings) -> tuple[EvalRow, ModelError | None]:
    uri = Path(case.path).as_uri()
    documents.clear()
    engine.cache.clear()
    engine.note_context_change()
    documents[uri] = ParsedDocument.open(
        Document(uri, case.text, case.language_id, 1, "utf-16"), case.path)
    probe = _Probe()
    token = _CURRENT.set(probe)
    ts = time.time()
    started = time.perf_counter()
    try:
        outcome = await engine.complete(uri, case.offset, invoked=True)
    finally:
        _CURRENT.reset(token)
    latency_ms = (time.perf_counter() - started) * 1000.0
    prediction = outcome.suggestions[0].text if outcome.suggestions else ""
    if outcome.suggestions:
        kind = "shown"
    elif probe.error is not None or probe.started == 0:
        kind = "error"  # failed, or never asked (e.g. backing off after failures)
    elif outcome.reason == "timed out":
        kind = "timeout"
    else:
        kind = "empty"
    exact, similarity = score(prediction, case.expected)
    result = probe.result
    usage = result.usage if result else None
    cost = None
    if usage is not None:
        cost = request_cost(settings.price_table(), settings.model, ts,
                            prompt_tokens=usage.prompt_tokens,
                            cache_hit_tokens=usage.cache_hit_tokens,
                            cache_miss_tokens=usage.cache_miss_tokens,
                            completion_tokens=usage.completion_tokens)
    row = EvalRow(
        run_id=run_id, case_id=case.case_id, model=model, ts=ts, path=case.rel,
        line=case.line + 1, language=case.language_id, outcome=kind, exact=exact,
        similarity=similarity, latency_ms=latency_ms if kind != "error" else None,
        ttft_ms=(result.first_token_s * 1000.0
                 if result and result.first_token_s is not None else None),
        prompt_tokens=usage.prompt_tokens if usage else 0,
        cache_hit_tokens=usage.cache_hit_tokens if usage else 0,
        completion_tokens=usage.completion_tokens if usage else 0, cost_usd=cost,
        prediction=prediction if settings.usage.store_code else None)
    return row, probe.error


async def run_model(opts: EvalOptions, model: str, cases: Sequence[EvalCase], run_id: str,
                    client: Any, writer: LedgerWriter, progress: Progress, *,
                    label: str | None = None, provider: str | None = None) -> list[EvalRow]:
    settings = eval_settings(opts, model, provider)
    label = label or model
    root = Path(os.path.realpath(opts.root))
    sink = LedgerSink(lambda: settings, kind="eval", writer_factory=lambda _path: writer)
    queue: asyncio.Queue[EvalCase] = asyncio.Queue()
    for case in cases:
        queue.put_nowait(case)
    rows: list[EvalRow] = []

    def path_of(uri: str) -> str:
        path = Path(path_from_uri(uri))
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            return path.name

    async def worker() -> None:
        documents: dict[str, ParsedDocument] = {}
        engine = build_engine(client, settings=lambda: settings, documents=documents,
                              roots=lambda: [root], path_of=path_of, events=_Events(sink))
        while True:
            try:
                case = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            row, error = await _run_case(engine, documents, case, run_id, label, settings)
            if isinstance(error, (AuthError, BalanceError)):
                raise EvalAborted(f"{error}. {error.user_action}")
            rows.append(row)
            writer.submit("eval", row)
            progress.advance(label)

    workers = [asyncio.ensure_future(worker())
               for _ in range(max(1, min(opts.concurrency, len(cases))))]
    try:
        await asyncio.gather(*workers)
    finally:
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    return rows


async def evaluate(opts: EvalOptions, *, progress_stream: TextIO | None = None
                   ) -> dict[str, Any]:
    """Build the cases, run what is missing for each model, and report on all of them."""
    run_id = run_id_for(opts)
    definition = run_definition(opts)
    targets = eval_targets(opts)
    names = [t.label for t in targets]
    cases = build_cases(opts.root, opts.cases, opts.seed, eval_settings(opts, "").exclude)
    if not cases:
        raise ValueError(f"no usable source lines under {opts.root} (supported languages, "
                         "not excluded, not ignored by git)")
    ledger_path = str(resolve_path(opts.ledger))
    ledger = Ledger(ledger_path)
    try:
        if opts.fresh:
            ledger.delete_eval_run(run_id)
        ledger.record_eval_run(run_id, definition["root"], json.dumps(definition))
        done = {m: {r.case_id: r for r in ledger.eval_results(run_id, m) if r.outcome != "error"}
                for m in names}
    finally:
        ledger.close()
    wanted = {c.case_id for c in cases}
    todo = {m: [c for c in cases if c.case_id not in done[m]] for m in names}
    stream = progress_stream or sys.stderr
    for m in names:
        reused = len(wanted & done[m].keys())
        if reused:
            stream.write(f"eval: {m}: {reused} of {len(cases)} cases already done "
                         f"(run {run_id}), running {len(todo[m])}\n")
    progress = Progress(sum(len(t) for t in todo.values()), stream)
    writer = LedgerWriter(ledger_path)
    clients = {t.label: ModelClient(ProviderConfig(t.provider, t.base_url, t.api_key))
               for t in targets}
    fresh_rows: dict[str, list[EvalRow]] = {}
    try:
        for t in targets:
            fresh_rows[t.label] = await run_model(opts, t.model, todo[t.label], run_id,
                                                  clients[t.label], writer, progress,
                                                  label=t.label, provider=t.provider)
    finally:
        progress.finish()
        for client in clients.values():
            await client.aclose()
        writer.flush()
        writer.close()
    per_model: dict[str, list[EvalRow]] = {}
    for m in names:
        by_case = {**done[m], **{r.case_id: r for r in fresh_rows[m]}}
        per_model[m] = [by_case[c.case_id] for c in cases if c.case_id in by_case]
    report: dict[str, Any] = {
        "run": {"runId": run_id, "root": definition["root"], "seed": opts.seed,
                "cases": len(cases), "endpoint": definition["endpoint"],
                "contextTokens": definition["contextTokens"],
                "maxTokens": definition["maxTokens"], "baseUrl": opts.base_url,
                "targets": [{"label": t.label, "provider": t.provider, "baseUrl": t.base_url,
                             "model": t.model} for t in targets],
                "ledger": ledger_path},
        "models": {m: aggregate(rows) for m, rows in per_model.items()},
        "perCase": [{"caseId": r.case_id, "model": r.model, "outcome": r.outcome,
                     "exact": r.exact, "similarity": round(r.similarity, 4),
                     "latencyMs": r.latency_ms} for rows in per_model.values() for r in rows],
    }
    if len(names) >= 2:
        report["headToHead"] = head_to_head(per_model[names[0]], per_model[names[1]])
    return report


# -- command line -------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = Settings()
    parser.add_argument("path", nargs="?", default=".",
                        help="repository to take cases from (default: current folder)")
    parser.add_argument("--model", action="append", dest="models", metavar="MODEL",
                        help=f"model to evaluate; twice to compare (default {defaults.model})")
    parser.add_argument("--cases", type=int, default=100, help="number of cases (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="case selection seed (default 0)")
    parser.add_argument("--concurrency", type=int, default=4,
                        help="requests in flight at once (default 4)")
    parser.add_argument("--provider", choices=PROVIDERS, default=defaults.provider,
                        help="wire format of the server, as flashls.provider (default deepseek)")
    parser.add_argument("--base-url", default="",
                        help=f"API base URL (default {defaults.base_url}, or the provider's "
                        "default)")
    parser.add_argument("--api-key", default="", help="API key (default: the provider's "
                        "environment variable, e.g. $DEEPSEEK_API_KEY)")
    parser.add_argument("--vs-provider", choices=PROVIDERS, default=None,
                        help="compare against a model on another provider (side by side)")
    parser.add_argument("--vs-base-url", default="", help="its base URL (default: its "
                        "provider's default)")
    parser.add_argument("--vs-model", default=None, help="its model (default: the first "
                        "--model)")
    parser.add_argument("--vs-api-key", default="", help="its key (default: its provider's "
                        "environment variable)")
    parser.add_argument("--endpoint", choices=("fim", "chat"), default="fim",
                        help="completion endpoint, as flashls.completion.endpoint")
    parser.add_argument("--timeout-ms", type=int, default=10_000,
                        help="per-case time limit (default 10000)")
    parser.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                        help="more files never to read (added to the default excludes)")
    parser.add_argument("--ledger", metavar="PATH", default="",
                        help="ledger file (default: $XDG_STATE_HOME/flashls/usage.sqlite3)")
    parser.add_argument("--fresh", action="store_true",
                        help="forget stored results of this run and start over")
    parser.add_argument("--store-code", action="store_true",
                        help="also store the predictions in the ledger")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.add_argument("--report", metavar="FILE", help="also write a Markdown report")
    from .nextedit_cli import add_arguments as add_next_edit_arguments
    add_next_edit_arguments(parser)  # --next-edit, --commits


def _targets(args: argparse.Namespace, models: list[str], key: str) -> list[Target]:
    """The compared sides: each --model on --provider, plus the --vs-* one."""
    if not args.vs_provider:
        return []
    first = Target(f"{args.provider}:{models[0]}", args.provider, args.base_url, models[0], key)
    vs_model = args.vs_model or models[0]
    vs_url = (args.vs_base_url or DEFAULT_BASE_URLS[args.vs_provider]).rstrip("/")
    vs_key = (args.vs_api_key or os.environ.get(API_KEY_ENV[args.vs_provider], "")).strip()
    label = f"{args.vs_provider}:{vs_model}"
    if label == first.label:  # the same model on two endpoints
        label += f"@{vs_url}"
    return [first, Target(label, args.vs_provider, vs_url, vs_model, vs_key)]


def _problem(args: argparse.Namespace, key: str) -> str | None:
    if not os.path.isdir(args.path):
        return f"{args.path!r} is not a folder"
    if not 1 <= args.cases <= 100_000:
        return "--cases must be between 1 and 100000"
    if not 1 <= args.concurrency <= 64:
        return "--concurrency must be between 1 and 64"
    if not 100 <= args.timeout_ms <= 600_000:
        return "--timeout-ms must be between 100 and 600000"
    if not args.base_url.startswith(("http://", "https://")):
        return f"--base-url {args.base_url!r} is not an http(s) URL"
    if not key and args.provider in ("deepseek", "mistral"):
        return (f"no API key: set {API_KEY_ENV[args.provider]} or pass --api-key "
                "(`flashls doctor` checks the setup)")
    return None


@subcommand("eval", "Measure models on held-out lines of your own repository.",
            add_arguments)
def run(args: argparse.Namespace) -> int:
    key = (args.api_key or os.environ.get(API_KEY_ENV[args.provider], "")).strip()
    args.base_url = (args.base_url or DEFAULT_BASE_URLS[args.provider]).rstrip("/")
    problem = _problem(args, key)
    if problem:
        print(f"flashls eval: {problem}", file=sys.stderr)
        return 2
    if getattr(args, "next_edit", False):
        from .nextedit_cli import run_cli
        return run_cli(args, key)
    models = list(dict.fromkeys(args.models or [Settings().model]))
    opts = EvalOptions(root=args.path, models=models, cases=args.cases, seed=args.seed,
                       concurrency=args.concurrency, base_url=args.base_url, api_key=key,
                       ledger=args.ledger, timeout_ms=args.timeout_ms, endpoint=args.endpoint,
                       exclude=args.exclude, fresh=args.fresh, store_code=args.store_code,
                       provider=args.provider, targets=_targets(args, models, key))
    try:
        report = asyncio.run(evaluate(opts))
    except EvalAborted as err:
        print(f"flashls eval: stopped: {err}", file=sys.stderr)
        return 1
    except (ValueError, LedgerError) as err:
        print(f"flashls eval: {err}", file=sys.stderr)
        return 2
    if args.report:
        try:
            Path(args.report).write_text(render_markdown(report), encoding="utf-8")
        except OSError as err:
            print(f"flashls eval: cannot write the report: {err}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(render_text(report))
        errors = sum(m["outcomes"].get("error", 0) for m in report["models"].values())
        if errors:
            print(f"\n{errors} case(s) failed upstream; rerun the same command to retry "
                  "only those.")
    return 0
