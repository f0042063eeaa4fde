"""Engine events → ledger rows. Cheap on the event loop, and it never raises.

A sink is attached to `Session.events.sinks`; it turns `request_started` /
`request_finished` pairs, shown suggestions and acceptances into rows for the
write-behind `LedgerWriter`, and keeps the running cost of this editor session
(`session_cost_usd`, shown in the `flashls/status` notification).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import Any, Callable

from ..model.types import ModelError, ModelResult
from .ledger import LedgerWriter, RequestRow, SuggestionRow, resolve_path
from .pricing import request_cost

log = logging.getLogger(__name__)

WriterFactory = Callable[[str], LedgerWriter]


def _task_key() -> int | None:
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return None
    return id(task) if task is not None else None


def error_label(error: ModelError | None) -> str | None:
    """What the ledger keeps of an error: its class and status, never its text."""
    if error is None:
        return None
    status = getattr(error, "status", None)
    return type(error).__name__ + (f" {status}" if status else "")


class LedgerSink:
    """One per editor session (or eval run). `settings` is read at each event, so a
    changed `usage.ledgerPath` or price table applies without a restart."""

    def __init__(self, settings: Callable[[], Any], *, kind: str | None = None,
                 clock: Callable[[], float] = time.time,
                 writer_factory: WriterFactory | None = None):
        self.settings = settings
        self.kind = kind  # overrides the engine's kind (eval requests are "eval")
        self.clock = clock
        self.session = uuid.uuid4().hex[:12]
        self.session_cost_usd: float = 0.0
        self.requests = 0
        self._writer_factory = writer_factory or (lambda path: LedgerWriter(path))
        self._writer: LedgerWriter | None = None
        self._writer_path: str | None = None
        self._writer_setting: str | None = None
        self._started: dict[int | None, list[tuple[str, str, float, float]]] = {}
        self._failed = False

    # -- the writer, opened lazily at the configured path ---------------------------
    def writer(self) -> LedgerWriter | None:
        try:
            raw = self.settings().usage.ledger_path
            if self._writer is not None and raw == self._writer_setting:
                return self._writer  # the common case: no path work per event
            path = str(resolve_path(raw))
        except Exception as err:
            self._fail_once(err)
            return None
        self._writer_setting = raw
        if self._writer is None or path != self._writer_path:
            if self._writer is not None:
                self._writer.close(timeout_s=1.0)
            try:
                self._writer = self._writer_factory(path)
                self._writer_path = path
            except Exception as err:
                self._fail_once(err)
                self._writer = None
        return self._writer

    def _fail_once(self, err: Exception) -> None:
        if not self._failed:
            self._failed = True
            log.warning("usage ledger unavailable: %s", err)

    def _submit(self, kind: str, item: Any) -> None:
        writer = self.writer()
        if writer is not None:
            writer.submit(kind, item)

    def flush(self, timeout_s: float = 5.0) -> bool:
        return self._writer.flush(timeout_s) if self._writer is not None else True

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    # -- engine events ----------------------------------------------------------------
    def request_started(self, kind: str, model: str) -> None:
        try:
            settings = self.settings()
            endpoint = "chat" if kind in ("action", "nextEdit") else settings.completion.endpoint
            self._started.setdefault(_task_key(), []).append(
                (model, endpoint, self.clock(), time.perf_counter()))
        except Exception as err:  # never into the engine
            log.debug("ledger: request_started failed: %s", err)

    def request_finished(self, kind: str, result: ModelResult | None,
                         error: ModelError | None, outcome: str) -> None:
        try:
            self._finished(kind, result, error, outcome)
        except Exception as err:
            log.debug("ledger: request_finished failed: %s", err)

    def _finished(self, kind: str, result: ModelResult | None, error: ModelError | None,
                  outcome: str) -> None:
        key = _task_key()  # start and finish run in the same task; else oldest first
        if not self._started.get(key):
            key = next((k for k, v in self._started.items() if v), key)
        pending = self._started.get(key)
        if pending:
            model, endpoint, ts, t0 = pending.pop(0)
            if not pending:
                del self._started[key]
            elapsed_ms = (time.perf_counter() - t0) * 1000.0
        else:
            model, endpoint, ts, elapsed_ms = "unknown", "fim", self.clock(), None
        settings = self.settings()
        row_kind = self.kind or kind
        if result is not None:
            usage = result.usage
            cost = request_cost(settings.price_table(), result.model, ts,
                                prompt_tokens=usage.prompt_tokens,
                                cache_hit_tokens=usage.cache_hit_tokens,
                                cache_miss_tokens=usage.cache_miss_tokens,
                                completion_tokens=usage.completion_tokens)
            miss = usage.cache_miss_tokens or max(0, usage.prompt_tokens - usage.cache_hit_tokens)
            row = RequestRow(
                ts=ts, session=self.session, model=result.model, endpoint=result.endpoint,
                kind=row_kind, outcome=outcome, prompt_tokens=usage.prompt_tokens,
                cache_hit_tokens=usage.cache_hit_tokens, cache_miss_tokens=miss,
                completion_tokens=usage.completion_tokens,
                ttft_ms=None if result.first_token_s is None else result.first_token_s * 1000,
                total_ms=result.total_s * 1000, cost_usd=cost)
            self.session_cost_usd += cost or 0.0
        else:
            row = RequestRow(ts=ts, session=self.session, model=model, endpoint=endpoint,
                             kind=row_kind, outcome=outcome, total_ms=elapsed_ms,
                             error=error_label(error))
        self.requests += 1
        self._submit("request", row)

    def suggestion_shown(self, suggestion: Any) -> None:
        try:
            text = suggestion.text
            store = bool(self.settings().usage.store_code)
            self._submit("suggestion", SuggestionRow(
                session=self.session, suggestion_id=str(suggestion.id), ts=self.clock(),
                model=suggestion.model, chars=len(text), lines=text.count("\n") + 1,
                text=text if store else None))
        except Exception as err:
            log.debug("ledger: suggestion_shown failed: %s", err)

    def suggestion_partially_accepted(self, suggestion_id: str, chars: int) -> None:
        """The user kept the first `chars` characters (a word or line at a time)."""
        try:
            if suggestion_id and chars > 0:
                self._submit("partial", (self.session, str(suggestion_id), int(chars)))
        except Exception as err:
            log.debug("ledger: suggestion_partially_accepted failed: %s", err)

    def suggestion_accepted(self, suggestion_id: str) -> None:
        try:
            if suggestion_id:
                self._submit("accepted", (self.session, str(suggestion_id), self.clock()))
        except Exception as err:
            log.debug("ledger: suggestion_accepted failed: %s", err)
