"""The usage ledger: an SQLite file in the user's state directory.

One small table per concern (upstream requests, suggestions and their acceptance, eval
runs and results), a `schema_version` table and forward-only migrations. Rows hold
counts, timings and costs — never code or prompts unless `usage.storeCode` is on.

`Ledger` is plain synchronous access for one thread. `LedgerWriter` puts a daemon
thread in front of it so the editor's event loop only appends to a queue: completions
never wait for the disk and a broken ledger never raises into the engine.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import sqlite3
import threading
import time
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any, Iterable, Sequence

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2

# version -> statements that take the previous version to this one (never edit a
# released entry: add the next version instead)
MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        """CREATE TABLE requests (
            id INTEGER PRIMARY KEY,
            ts REAL NOT NULL,              -- unix seconds when the request started
            session TEXT NOT NULL,
            model TEXT NOT NULL,
            endpoint TEXT NOT NULL,        -- fim | chat
            kind TEXT NOT NULL,            -- completion | action | eval
            outcome TEXT NOT NULL,         -- shown | cancelled | error
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            cache_hit_tokens INTEGER NOT NULL DEFAULT 0,
            cache_miss_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            ttft_ms REAL,
            total_ms REAL,
            cost_usd REAL,                 -- NULL: the model is not in the price table
            error TEXT                     -- error class and HTTP status, never a body
        )""",
        "CREATE INDEX requests_ts ON requests(ts)",
        """CREATE TABLE suggestions (
            session TEXT NOT NULL,
            suggestion_id TEXT NOT NULL,
            ts REAL NOT NULL,
            model TEXT NOT NULL,
            chars INTEGER NOT NULL DEFAULT 0,
            lines INTEGER NOT NULL DEFAULT 0,
            accepted_ts REAL,
            text TEXT,                     -- only with usage.storeCode
            PRIMARY KEY (session, suggestion_id)
        )""",
        "CREATE INDEX suggestions_ts ON suggestions(ts)",
        """CREATE TABLE eval_runs (
            run_id TEXT PRIMARY KEY,
            ts REAL NOT NULL,
            root TEXT NOT NULL,
            options TEXT NOT NULL          -- JSON of what defines the run
        )""",
        """CREATE TABLE eval_results (
            run_id TEXT NOT NULL,
            case_id TEXT NOT NULL,
            model TEXT NOT NULL,
            ts REAL NOT NULL,
            path TEXT NOT NULL,
            line INTEGER NOT NULL,
            language TEXT NOT NULL,
            outcome TEXT NOT NULL,         -- shown | empty | timeout | error
            exact INTEGER NOT NULL,
            similarity REAL NOT NULL,
            latency_ms REAL,
            ttft_ms REAL,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            cache_hit_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL,
            prediction TEXT,               -- only with usage.storeCode
            PRIMARY KEY (run_id, case_id, model)
        )""",
    ),
    # characters of each suggestion the user kept: all of it on a full accept, the
    # accepted prefix after a partial one (word / line at a time)
    2: ("ALTER TABLE suggestions ADD COLUMN accepted_chars INTEGER NOT NULL DEFAULT 0",),
}


class LedgerError(Exception):
    """The ledger cannot be used (unwritable path, newer schema, corrupt file)."""


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"),
                                                            ".local", "state")
    return Path(base) / "flashls"


def resolve_path(setting: str = "") -> Path:
    """The ledger file: the `usage.ledgerPath` setting, else the state directory."""
    if setting and setting.strip():
        return Path(os.path.expanduser(setting.strip()))
    return state_dir() / "usage.sqlite3"


# -- rows ---------------------------------------------------------------------------
@dataclass(frozen=True)
class RequestRow:
    ts: float
    session: str
    model: str
    endpoint: str
    kind: str
    outcome: str
    prompt_tokens: int = 0
    cache_hit_tokens: int = 0
    cache_miss_tokens: int = 0
    completion_tokens: int = 0
    ttft_ms: float | None = None
    total_ms: float | None = None
    cost_usd: float | None = None
    error: str | None = None


@dataclass(frozen=True)
class SuggestionRow:
    session: str
    suggestion_id: str
    ts: float
    model: str
    chars: int = 0
    lines: int = 0
    accepted_ts: float | None = None
    text: str | None = None
    accepted_chars: int = 0


@dataclass(frozen=True)
class EvalRow:
    run_id: str
    case_id: str
    model: str
    ts: float
    path: str
    line: int
    language: str
    outcome: str
    exact: bool
    similarity: float
    latency_ms: float | None = None
    ttft_ms: float | None = None
    prompt_tokens: int = 0
    cache_hit_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    prediction: str | None = None


def _columns(cls: type) -> list[str]:
    return [f.name for f in fields(cls)]


def _insert_sql(table: str, cls: type, verb: str = "INSERT") -> str:
    cols = _columns(cls)
    return (f"{verb} INTO {table} ({', '.join(cols)}) "
            f"VALUES ({', '.join('?' for _ in cols)})")


_REQ_INSERT = _insert_sql("requests", RequestRow)
_SUG_INSERT = _insert_sql("suggestions", SuggestionRow, "INSERT OR IGNORE")
_EVAL_UPSERT = _insert_sql("eval_results", EvalRow, "INSERT OR REPLACE")


# -- synchronous access -------------------------------------------------------------
class Ledger:
    """One connection, one thread. Creates and migrates the file on open."""

    def __init__(self, path: str | os.PathLike, *, create: bool = True):
        self.path = Path(path)
        if not create and not self.path.exists():
            raise LedgerError(f"no ledger at {self.path}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(self.path), timeout=5.0, isolation_level=None)
        except (OSError, sqlite3.Error) as err:
            raise LedgerError(f"cannot open the usage ledger at {self.path}: {err}") from err
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA busy_timeout=5000")
            self._migrate()
        except sqlite3.Error as err:
            self.db.close()
            raise LedgerError(f"the usage ledger at {self.path} is unusable: {err}") from err
        except LedgerError:
            self.db.close()
            raise

    def _version(self) -> int:
        row = self.db.execute("SELECT name FROM sqlite_master WHERE type='table' "
                              "AND name='schema_version'").fetchone()
        if row is None:
            return 0
        row = self.db.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return int(row[0] or 0)

    def _migrate(self) -> None:
        if self._version() == SCHEMA_VERSION:
            return
        self.db.execute("BEGIN IMMEDIATE")  # one process migrates; others wait
        try:
            self.db.execute("CREATE TABLE IF NOT EXISTS schema_version ("
                            "version INTEGER NOT NULL, applied_ts REAL NOT NULL)")
            current = self._version()
            if current > SCHEMA_VERSION:
                raise LedgerError(
                    f"the usage ledger at {self.path} has schema {current}, newer than this "
                    f"flashls understands ({SCHEMA_VERSION}); upgrade flashls or point "
                    "flashls.usage.ledgerPath elsewhere")
            for version in range(current + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[version]:
                    self.db.execute(statement)
                self.db.execute("INSERT INTO schema_version VALUES (?, ?)",
                                (version, time.time()))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    @property
    def schema_version(self) -> int:
        return self._version()

    def close(self) -> None:
        self.db.close()

    # -- writes -------------------------------------------------------------------
    def write(self, requests: Sequence[RequestRow] = (),
              suggestions: Sequence[SuggestionRow] = (),
              accepted: Sequence[tuple[str, str, float]] = (),
              evals: Sequence[EvalRow] = (),
              partial: Sequence[tuple[str, str, int]] = ()) -> None:
        """Everything in one transaction (cheap: one fsync at most)."""
        self.db.execute("BEGIN")
        try:
            if requests:
                self.db.executemany(_REQ_INSERT, [astuple(r) for r in requests])
            if suggestions:
                self.db.executemany(_SUG_INSERT, [astuple(s) for s in suggestions])
            if accepted:
                self.db.executemany(
                    "UPDATE suggestions SET accepted_ts = ?, accepted_chars = chars "
                    "WHERE session = ? AND suggestion_id = ? AND accepted_ts IS NULL",
                    [(ts, session, sid) for session, sid, ts in accepted])
            if partial:  # acceptedLength is cumulative: keep the longest prefix seen
                self.db.executemany(
                    "UPDATE suggestions SET accepted_chars = MAX(accepted_chars, MIN(?, "
                    "chars)) WHERE session = ? AND suggestion_id = ? AND accepted_ts IS NULL",
                    [(chars, session, sid) for session, sid, chars in partial])
            if evals:
                self.db.executemany(_EVAL_UPSERT, [astuple(e) for e in evals])
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def record_eval_run(self, run_id: str, root: str, options_json: str) -> None:
        self.db.execute("INSERT OR IGNORE INTO eval_runs VALUES (?, ?, ?, ?)",
                        (run_id, time.time(), root, options_json))

    def delete_eval_run(self, run_id: str) -> None:
        self.db.execute("DELETE FROM eval_results WHERE run_id = ?", (run_id,))

    # -- reads --------------------------------------------------------------------
    def requests_between(self, since: float, until: float) -> list[RequestRow]:
        cur = self.db.execute(f"SELECT {', '.join(_columns(RequestRow))} FROM requests "
                              "WHERE ts >= ? AND ts < ? ORDER BY ts", (since, until))
        return [RequestRow(*row) for row in cur]

    def suggestions_between(self, since: float, until: float) -> list[SuggestionRow]:
        cur = self.db.execute(f"SELECT {', '.join(_columns(SuggestionRow))} FROM suggestions "
                              "WHERE ts >= ? AND ts < ? ORDER BY ts", (since, until))
        return [SuggestionRow(*row) for row in cur]

    def eval_results(self, run_id: str, model: str | None = None) -> list[EvalRow]:
        sql = f"SELECT {', '.join(_columns(EvalRow))} FROM eval_results WHERE run_id = ?"
        args: tuple[Any, ...] = (run_id,)
        if model is not None:
            sql += " AND model = ?"
            args += (model,)
        rows = [EvalRow(*row) for row in self.db.execute(sql + " ORDER BY case_id", args)]
        return [_fix_bool(r) for r in rows]


def _fix_bool(row: EvalRow) -> EvalRow:
    from dataclasses import replace
    return replace(row, exact=bool(row.exact))


# -- write-behind -------------------------------------------------------------------
_STOP = object()
COALESCE_S = 0.2


class LedgerWriter:
    """Callers enqueue rows; a daemon thread writes them in batches.

    `submit` never blocks on the disk and never raises. If the ledger cannot be
    opened the writer logs once and drops rows: usage accounting must never break
    completions.
    """

    def __init__(self, path: str | os.PathLike, *, max_batch: int = 500,
                 coalesce_s: float = COALESCE_S):
        self.path = Path(path)
        self.max_batch = max_batch
        self.coalesce_s = coalesce_s
        self.error: str | None = None
        self.written = 0
        self._queue: "queue.Queue[Any]" = queue.Queue()
        self._opened = threading.Event()
        self._thread = threading.Thread(target=self._run, name="flashls-ledger", daemon=True)
        self._closed = False
        self._thread.start()
        atexit.register(self.close)

    def submit(self, kind: str, item: Any) -> None:
        if self._closed:
            return
        try:
            self._queue.put_nowait((kind, item))
        except Exception:  # pragma: no cover - an unbounded queue does not refuse
            pass

    def flush(self, timeout_s: float = 5.0) -> bool:
        """Wait until everything submitted so far is on disk (or dropped)."""
        if self._closed or not self._thread.is_alive():
            return False
        done = threading.Event()
        self._queue.put(("flush", done))
        return done.wait(timeout_s)

    def close(self, timeout_s: float = 5.0) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            atexit.unregister(self.close)
        except Exception:
            pass
        if self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join(timeout_s)

    def wait_open(self, timeout_s: float = 5.0) -> bool:
        """True when the ledger opened; False (see `error`) when it could not."""
        self._opened.wait(timeout_s)
        return self.error is None and self._opened.is_set()

    def _run(self) -> None:
        try:
            ledger = Ledger(self.path)
        except LedgerError as err:
            self.error = str(err)
            log.warning("usage ledger disabled: %s", err)
            self._opened.set()
            self._drain_forever()
            return
        self._opened.set()
        try:
            while True:
                batch = [self._queue.get()]
                if batch[0] is not _STOP and batch[0][0] != "flush":
                    # rows arrive as an answer goes back to the editor: writing them
                    # right then would take the GIL from that answer. A moment later
                    # the loop is idle again, and the rows of a burst share one commit.
                    time.sleep(self.coalesce_s)
                while len(batch) < self.max_batch:
                    try:
                        batch.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                stop = self._write(ledger, batch)
                if stop:
                    return
        finally:
            ledger.close()

    def _write(self, ledger: Ledger, batch: list[Any]) -> bool:
        parts: dict[str, list[Any]] = {"request": [], "suggestion": [], "accepted": [],
                                       "eval": [], "partial": []}
        waiters: list[threading.Event] = []
        stop = False
        for entry in batch:
            if entry is _STOP:
                stop = True
                continue
            kind, item = entry
            if kind == "flush":
                waiters.append(item)
            elif kind in parts:
                parts[kind].append(item)
        if any(parts.values()):
            try:
                ledger.write(parts["request"], parts["suggestion"], parts["accepted"],
                             parts["eval"], parts["partial"])
                self.written += sum(len(v) for v in parts.values())
            except sqlite3.Error as err:
                if self.error is None:
                    log.warning("usage ledger write failed (rows dropped): %s", err)
                self.error = str(err)
        for waiter in waiters:
            waiter.set()
        return stop

    def _drain_forever(self) -> None:
        while True:
            entry = self._queue.get()
            if entry is _STOP:
                return
            if entry[0] == "flush":
                entry[1].set()


def write_all(path: str | os.PathLike, rows: Iterable[Any]) -> None:
    """Synchronous helper for tools and tests: write rows of any kind now."""
    ledger = Ledger(path)
    try:
        groups: dict[type, list[Any]] = {}
        for row in rows:
            groups.setdefault(type(row), []).append(row)
        ledger.write(groups.get(RequestRow, []), groups.get(SuggestionRow, []), (),
                     groups.get(EvalRow, []))
    finally:
        ledger.close()
