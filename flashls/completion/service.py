"""The completion pipeline: cache → in-flight reuse → debounce → context → model → clean.

It knows nothing of LSP (positions arrive as string offsets into a ParsedDocument)
and nothing of DeepSeek's wire format (it speaks `CompletionModel`). Every step that
can avoid an upstream request comes before the ones that cannot.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Protocol

from ..context.document import Document
from ..context.syntax import ParsedDocument
from ..context.tokens import estimate_tokens
from ..model.gate import UpstreamGate
from ..model.guarded import guarded_generate
from ..model.types import CompletionModel, ModelError, ModelResult, UpstreamTimeout
from ..settings import Settings
from .cache import CachedSuggestion, CacheKey, SuggestionCache
from .debounce import Debouncer
from .multiline import Shape
from .postprocess import Cleaned
from .prompt import ContextLike, PromptInputs, build_request, sent_text
from .text_keys import KeyIndex, plain_keys

log = logging.getLogger(__name__)


# -- pluggable steps (context engine, shape decision, post-processing) -------------
# Shape and Cleaned are the post-processing modules' own types (one definition each).
ContextProvider = Callable[[ParsedDocument, int, int], ContextLike]
Shaper = Callable[[ParsedDocument, int, str, int], Shape]
Cleaner = Callable[[str, ParsedDocument, int, Shape], "Cleaned | None"]
Variants = Callable[[list[str], ParsedDocument, int, Shape], "list[Cleaned]"]


@dataclass(frozen=True)
class _Window:
    parts: tuple = ()
    prefix: str = ""
    suffix: str = ""


def window_only_context(pdoc: ParsedDocument, offset: int, budget_tokens: int) -> ContextLike:
    """Fallback context: characters around the cursor (about 3.5 per token)."""
    chars = int(budget_tokens * 3.5)
    text = pdoc.doc.text
    before = max(0, offset - int(chars * 0.75))
    before = text.find("\n", before) + 1 if before > 0 else 0
    after = min(len(text), offset + chars // 4)
    return _Window((), text[before:offset], text[offset:after])


def plain_shape(pdoc: ParsedDocument, offset: int, setting: str, max_tokens: int) -> Shape:
    multiline = setting == "always"
    return Shape(multiline, () if multiline else ("\n",), max_tokens)


def plain_clean(raw: str, pdoc: ParsedDocument, offset: int, shape: Shape) -> Cleaned | None:
    text = raw if shape.multiline else raw.split("\n", 1)[0]
    return Cleaned(text, offset) if text.strip() else None


def plain_variants(raws: list[str], pdoc: ParsedDocument, offset: int,
                   shape: Shape) -> list[Cleaned]:
    out: list[Cleaned] = []
    for raw in raws:
        cleaned = plain_clean(raw, pdoc, offset, shape)
        if cleaned is not None and cleaned not in out:
            out.append(cleaned)
    return out


def with_overlay(pdoc: ParsedDocument, overlay: tuple[int, int, str]) -> tuple[ParsedDocument, int]:
    """A private copy of the document with `overlay` applied, and the cursor after it."""
    start, end, inserted = overlay
    doc = pdoc.doc
    start = max(0, min(start, len(doc.text)))
    end = max(start, min(end, len(doc.text)))
    text = doc.text[:start] + inserted + doc.text[end:]
    virtual = ParsedDocument.open(Document(doc.uri, text, doc.language_id, doc.version,
                                           doc.encoding), doc.uri)
    virtual.background = pdoc.background  # a big one is not parsed on the request either
    return virtual, start + len(inserted)


# -- results ------------------------------------------------------------------------
@dataclass(frozen=True)
class Suggestion:
    id: str
    text: str  # inserted at the cursor...
    start: int  # ...replacing document offsets start..end (start == cursor)
    end: int
    model: str
    source: str  # "model" | "cache" | "inflight"


@dataclass
class Outcome:
    suggestions: list[Suggestion]
    source: str  # "model" | "cache" | "inflight" | "none"
    reason: str = ""  # why nothing, when nothing


class EngineEvents(Protocol):
    """Hooks for the usage ledger and editor status (all optional to implement)."""

    def request_started(self, kind: str, model: str) -> None: ...
    def request_finished(self, kind: str, result: ModelResult | None,
                         error: ModelError | None, outcome: str) -> None: ...
    def suggestion_shown(self, suggestion: Suggestion) -> None: ...


class NoEvents:
    def request_started(self, kind: str, model: str) -> None:
        pass

    def request_finished(self, kind, result, error, outcome) -> None:
        pass

    def suggestion_shown(self, suggestion: Suggestion) -> None:
        pass


@dataclass
class _Generation:
    """One upstream request, possibly awaited by several editor requests."""

    uri: str
    before: str
    after: str
    # the upstream task while it runs; None once it ended (`_produce`): a cancelled or
    # failed task keeps its exception, whose traceback holds `_produce`'s frame, which
    # holds this generation: kept, it would make the request's snapshot a cycle
    task: asyncio.Task | None = None
    partial: str = ""
    waiters: int = 0
    before_state: Any = None  # the hash state of `before` (`text_keys`): the cache's
    #                           forwarding entries extend a copy of it

    def can_serve(self, before: str, after: str) -> bool:
        if self.task is None or self.task.done() or after != self.after:
            return False
        if self.waiters <= 0:  # abandoned: its cancellation is under way
            return False
        if not before.startswith(self.before):
            return False
        typed = before[len(self.before):]
        return self.partial.startswith(typed) or typed.startswith(self.partial)


@dataclass
class _Job:
    task: asyncio.Task | None
    superseded: bool = False
    waiting_on_model: bool = False  # past debounce and context: the model is the wait
    arrived: float = 0.0  # when the request arrived (the debouncer's clock)


@dataclass
class EngineStats:
    requests: int = 0  # editor requests
    upstream: int = 0  # model requests started
    cache_served: int = 0
    inflight_served: int = 0
    shown: int = 0
    cancelled: int = 0
    errors: int = 0
    cache_hit_tokens: int = 0
    prompt_tokens: int = 0
    # time spent in the pipeline itself for the last request (snapshot, context and
    # prompt before the model; clean-up and caching after it), for the benchmarks
    last_prepare_ms: float = 0.0
    last_finish_ms: float = 0.0
    # requests built inside their debounce wait, and those whose build ended after the
    # wait did (the request then left late: `prepare_lead_ms` was too short)
    debounced_builds: int = 0
    spilled_builds: int = 0


def _second_largest(values: Iterable[float]) -> float:
    ordered = sorted(values)
    return ordered[-2] if len(ordered) > 1 else 0.0  # one outlier (a cold build) aside


def prepare_lead_ms(ema_ms: float, builds: Iterable[float],
                    wake_late: Iterable[float] = ()) -> float:
    """How long before the end of the debounce wait the request is built: the build's
    usual time with a margin, or its slowest recent one, plus how late the sleep
    before it woke recently. Without that, a loaded machine woke the sleep a few ms
    late, the build ran past the end of the wait, and the request left that late."""
    return max(ema_ms * 1.5, _second_largest(builds) * 1.25) + _second_largest(wake_late)


class CompletionEngine:
    def __init__(self, model: CompletionModel, *, settings: Callable[[], Settings],
                 documents: Mapping[str, ParsedDocument],
                 context: ContextProvider = window_only_context,
                 shaper: Shaper = plain_shape, cleaner: Cleaner = plain_clean,
                 variants: Variants = plain_variants,
                 path_of: Callable[[str], str] = lambda uri: uri,
                 events: EngineEvents | None = None, gate: UpstreamGate | None = None,
                 debouncer: Debouncer | None = None, cache: SuggestionCache | None = None,
                 reuse_inflight: bool = True):
        self.model = model
        self.settings = settings
        self.documents = documents
        self.context = context
        self.shaper = shaper
        self.cleaner = cleaner
        self.variants = variants
        self.path_of = path_of
        self.events: EngineEvents = events or NoEvents()
        self.gate = gate or UpstreamGate()
        self.debouncer = debouncer or Debouncer()
        self.cache = cache or SuggestionCache()
        self._text_keys = KeyIndex()
        self.stats = EngineStats()
        self.reuse_inflight = reuse_inflight
        self._prepare_ema_ms = 5.0  # how long building a request takes here, learned
        # ...and the slowest of the last few: the build starts that long before the
        # debounce ends, so a slow one (a collection, a busy machine) stays hidden
        self._prepare_recent: collections.deque[float] = collections.deque(maxlen=16)
        # how late the wait's first sleep woke (a loaded machine: several ms), added to
        # the lead: the build then still ends before the wait does
        self._wake_late: collections.deque[float] = collections.deque(maxlen=16)
        self._framing_tokens: dict[int, int] = {}  # budget -> reduction framing needed
        self.context_epoch = 0  # bumped when anything outside the edited file changes
        self._jobs: dict[str, _Job] = {}
        self._generations: dict[str, list[_Generation]] = {}
        self._ids = itertools.count(1)
        self._recent: dict[str, tuple[str, int, str]] = {}  # id -> (uri, start, text)
        self._prefetches: set[asyncio.Task] = set()

    # -- notifications from the editor ---------------------------------------------
    def note_edit(self, uri: str, line: int | None = None) -> None:
        self.debouncer.note_keystroke(uri)
        note = getattr(self.context, "note_edit", None)  # context engines that track edits
        if note is not None and line is not None:
            note(uri, line)

    def prepare(self, uri: str) -> None:
        """Idle time: let the context engine bring this document's tree and analysis
        up to date before the next request needs them."""
        pdoc = self.documents.get(uri)
        prepare = getattr(self.context, "prepare", None)
        if pdoc is not None and prepare is not None:
            prepare(pdoc)

    def note_context_change(self) -> None:
        self.context_epoch += 1

    def forget(self, uri: str) -> None:
        self.debouncer.forget(uri)
        self._text_keys.forget(uri)
        forget = getattr(self.context, "forget", None)
        if forget is not None:
            forget(uri)
        job = self._jobs.pop(uri, None)
        if job and job.task:
            job.superseded = True
            job.task.cancel()

    def accepted(self, suggestion_id: str) -> bool:
        """The user accepted a suggestion; with `completion.speculate`, prefetch the next.

        Returns whether a prefetch was started. The prefetch is an ordinary request at
        the position after the inserted text: its answer lands in the cache, and an
        editor request arriving meanwhile attaches to its stream.
        """
        found = self._recent.get(suggestion_id)
        if not found or not self.settings().completion.speculate:
            return False
        uri, start, text = found
        pdoc = self.documents.get(uri)
        if pdoc is None or pdoc.doc.text[start:start + len(text)] != text:
            return False  # the document moved on: nothing sensible to prefetch
        task = asyncio.ensure_future(self.complete(uri, start + len(text), immediate=True))
        self._prefetches.add(task)
        task.add_done_callback(self._prefetches.discard)
        return True

    # -- the request ---------------------------------------------------------------
    def _scope(self, uri: str, settings: Settings, shape_key: str) -> str:
        c = settings.completion
        return (f"{uri}|{settings.model}|{c.endpoint}|{c.max_tokens}|{c.context_tokens}|"
                f"{shape_key}|{self.context_epoch}")

    async def complete(self, uri: str, offset: int, *, invoked: bool = False,
                       immediate: bool = False,
                       overlay: tuple[int, int, str] | None = None) -> Outcome:
        """Suggestions at `offset`; never raises for upstream trouble, never blocks
        past `completion.timeoutMs`.

        `overlay` (start, end, text): complete as if `text` replaced start..end and the
        cursor stood after it — an editor's open completion popup whose selected item
        the suggestion must extend. Offsets in the result are in that virtual text.
        """
        self.stats.requests += 1
        arrived = self.debouncer.clock()
        settings = self.settings()
        pdoc = self.documents.get(uri)
        if pdoc is None:
            return Outcome([], "none", "document is not open")
        if not settings.completion.enable:
            return Outcome([], "none", "completions are disabled")
        if overlay is not None:
            pdoc, offset = with_overlay(pdoc, overlay)
        text = pdoc.doc.text
        offset = max(0, min(offset, len(text)))
        before, after = text[:offset], text[offset:]
        scope = self._scope(uri, settings, settings.completion.multiline)
        keys = plain_keys(before, after) if overlay is not None else \
            self._text_keys.keys(pdoc.doc, offset)  # the edited piece hashed only
        key = CacheKey(keys.before, keys.after, scope)
        cached = self.cache.get(key)  # even when Invoked: the answer here is known
        if cached is not None:
            self.stats.cache_served += 1
            return Outcome([self._from_cache(uri, cached, offset, "cache")], "cache")

        me = _Job(asyncio.current_task(), arrived=arrived)
        previous = self._jobs.get(uri)
        generation = self._attachable(uri, before, after)
        if generation:
            generation.waiters += 1  # before cancelling the old job, which may own it
        if previous is not None and previous.task is not me.task:
            previous.superseded = True
            if previous.task:
                previous.task.cancel()
        self._jobs[uri] = me
        timeout_s = settings.completion.timeout_ms / 1000.0
        try:
            return await asyncio.wait_for(
                self._work(me, uri, pdoc, offset, before, after, key, keys.before_state,
                           generation.task if generation else None,
                           settings, invoked, immediate), timeout_s)
        except asyncio.TimeoutError:
            if me.waiting_on_model:  # the API did not answer in time: back off like
                self.gate.record_failure(UpstreamTimeout(  # any other failure
                    f"no answer within {timeout_s:.1f}s"))
            return Outcome([], "none", "timed out")
        except asyncio.CancelledError:
            if me.superseded:
                self.stats.cancelled += 1
                return Outcome([], "none", "superseded by a newer request")
            raise
        finally:
            if generation:
                self._release(generation)
            if self._jobs.get(uri) is me:
                del self._jobs[uri]
            me.task = None  # (as `_Generation.task`: the cancelled task's traceback)

    def _attachable(self, uri: str, before: str, after: str) -> _Generation | None:
        if not self.reuse_inflight:
            return None
        for gen in self._generations.get(uri, []):
            if gen.can_serve(before, after):
                return gen
        return None

    def _release(self, gen: _Generation) -> None:
        gen.waiters -= 1
        if gen.waiters <= 0 and gen.task and not gen.task.done():
            gen.task.cancel()  # nobody wants it any more: close the stream

    def _remember(self, suggestion_id: str, uri: str, offset: int, text: str) -> None:
        """What each recent suggestion id inserts where (for acceptance/speculation)."""
        self._recent.pop(suggestion_id, None)
        self._recent[suggestion_id] = (uri, offset, text)
        while len(self._recent) > 64:
            del self._recent[next(iter(self._recent))]

    def _from_cache(self, uri: str, cached: CachedSuggestion, offset: int,
                    source: str) -> Suggestion:
        self._remember(cached.origin_id, uri, offset, cached.text)
        return Suggestion(cached.origin_id, cached.text, offset,
                          offset + cached.replace_suffix, cached.model, source)

    async def _work(self, me: _Job, uri: str, pdoc: ParsedDocument, offset: int, before: str,
                    after: str, key: CacheKey, before_state: Any,
                    attached: asyncio.Task | None,
                    settings: Settings, invoked: bool, immediate: bool) -> Outcome:
        """`attached`: the task of a generation in flight this request waits for
        (taken when attaching: the generation lets go of it when it ends)."""
        if attached is not None:
            me.waiting_on_model = True
            try:
                await asyncio.shield(attached)
            except ModelError:
                return Outcome([], "none", "upstream error")
            me.waiting_on_model = False
            cached = self.cache.get(key)
            if cached is not None:
                self.stats.inflight_served += 1
                return Outcome([self._from_cache(uri, cached, offset, "inflight")], "inflight")
            # the stream went elsewhere than the user typed: fall through to a new one
        closed = self.gate.closed_reason()
        if closed:
            return Outcome([], "none", closed)
        line_start = before.rfind("\n") + 1
        line_end = after.find("\n")
        delay_ms = 0.0 if invoked or immediate else self.debouncer.delay_ms(
            before[line_start:], after[: line_end if line_end >= 0 else len(after)],
            settings.completion.debounce_ms)
        if delay_ms:  # counted from the keystroke, not from here
            delay_ms = self.debouncer.remaining_ms(uri, delay_ms, me.arrived)
        # Build the context inside the end of the debounce wait, not after it: the
        # request then leaves when the wait ends. If the text changed meanwhile (an
        # edit that brought no new request) the cursor offset is stale: give up, the
        # editor asks again where it wants a suggestion.
        # The end of the wait is a moment, not a duration after the build: a sleep
        # that woke late used to push the send back by its lateness (the rest of the
        # lead was slept after the build anyway).
        early_ms = min(delay_ms, self._prepare_lead_ms())
        deadline = time.perf_counter() + delay_ms / 1000.0
        if delay_ms - early_ms > 0:
            await asyncio.sleep((delay_ms - early_ms) / 1000.0)
            self._wake_late.append(max(0.0, (time.perf_counter() - deadline) * 1000
                                       + early_ms))
        snapshot, (ctx, shape, request) = self._prepare(pdoc, offset, settings)
        remaining_ms = (deadline - time.perf_counter()) * 1000
        if delay_ms:
            self.stats.debounced_builds += 1
            self.stats.spilled_builds += remaining_ms <= 0
        if remaining_ms > 0:
            await asyncio.sleep(remaining_ms / 1000.0)
        if pdoc.doc.text is not snapshot.doc.text:
            return Outcome([], "none", "the document changed while waiting")
        gen = _Generation(uri, before, after, waiters=1, before_state=before_state)
        gen.task = asyncio.ensure_future(self._produce(
            gen, request, settings, snapshot, offset, shape, key, invoked))
        self._generations.setdefault(uri, []).append(gen)
        me.waiting_on_model = True
        try:
            suggestions = await asyncio.shield(gen.task)
        except ModelError:
            return Outcome([], "none", "upstream error")
        finally:
            self._release(gen)
        if not suggestions:
            return Outcome([], "none", "the model's answer was empty after cleaning")
        return Outcome(suggestions, "model")

    def _prepare_lead_ms(self) -> float:
        """How long before the end of the debounce wait the request is built."""
        return prepare_lead_ms(self._prepare_ema_ms, self._prepare_recent, self._wake_late)

    def _prepare(self, pdoc: ParsedDocument, offset: int, settings: Settings):
        """Snapshot the document and build the request, timing it."""
        started = time.perf_counter()
        snapshot = pdoc.snapshot()
        built = self._build(snapshot, offset, settings)
        elapsed = (time.perf_counter() - started) * 1000
        self.stats.last_prepare_ms = elapsed
        self._prepare_ema_ms += 0.2 * (elapsed - self._prepare_ema_ms)
        self._prepare_recent.append(elapsed)
        return snapshot, built

    def _build(self, snapshot: ParsedDocument, offset: int, settings: Settings):
        spec = snapshot.spec
        inputs = PromptInputs(self.path_of(snapshot.doc.uri), snapshot.doc.language_id,
                              spec.line_comment if spec else "")
        budget = settings.completion.context_tokens
        # start from the largest reduction a request needed at this budget: after the
        # first over-budget request, one pass per keystroke (a rebuild costs a context)
        context_budget = max(0, budget - self._framing_tokens.get(budget, 0))
        shape = None
        for _ in range(4):
            ctx = self.context(snapshot, offset, context_budget)
            if shape is None:  # after the context: a big document's edit is parsed there
                shape = self.shaper(snapshot, offset, settings.completion.multiline,
                                    settings.completion.max_tokens)
            # every request carries exactly `completion.maxTokens` (a promise to the user);
            # the shape's stop sequences are what end a single-line answer early
            request = build_request(settings.completion.endpoint, ctx, inputs,
                                    model=settings.model,
                                    max_tokens=settings.completion.max_tokens, stop=shape.stop)
            # the framing (comment prefixes, part labels, chat instructions) is not in
            # the tiers' accounting: a request over `contextTokens` is rebuilt smaller
            over = estimate_tokens(sent_text(request)) - budget
            if over <= 0 or context_budget == 0:
                break
            # tiers take whole entries: step by at least 1/32 of the budget
            context_budget = max(0, context_budget - max(over, budget // 32))
            self._framing_tokens[budget] = min(budget // 8, budget - context_budget)
        return ctx, shape, request

    def preview(self, uri: str, offset: int) -> dict:
        """Exactly what would be sent for a completion at `offset` (no request made)."""
        pdoc = self.documents[uri]
        settings = self.settings()
        ctx, shape, request = self._build(pdoc.snapshot(), offset, settings)
        out = {"endpoint": settings.completion.endpoint, "model": request.model,
               "maxTokens": request.max_tokens, "stop": list(request.stop),
               "multiline": shape.multiline,
               "tiers": [{"tier": p.tier, "source": p.source,
                          "tokens": getattr(p, "tokens", None)} for p in ctx.parts]}
        if hasattr(request, "prompt"):
            out.update(prompt=request.prompt, suffix=request.suffix)
        else:
            out["messages"] = [{"role": m.role, "content": m.content} for m in request.messages]
        render = getattr(self.context, "render", None)
        out["breakdown"] = render(ctx) if render else "\n".join(
            f"{t['tier']}: {t['source']}" for t in out["tiers"]) or "cursor window only"
        return out

    async def _produce(self, gen: _Generation, request, settings: Settings,
                       snapshot: ParsedDocument, offset: int, shape: Shape,
                       key: CacheKey, invoked: bool = False) -> list[Suggestion]:
        """Generate, clean and cache; runs to the end even if the job that started it
        was superseded, as long as another request waits for it. An Invoked request
        gets every distinct candidate the answer holds (a multi-line answer and its
        first line), the first one first; one request either way."""
        try:
            result = await self._generate(gen, request, settings)
        finally:
            self._unregister(gen)
            gen.task = None  # no cycle task -> exception -> this frame -> gen -> task
        finish_started = time.perf_counter()
        if invoked:
            cleaned_all = self.variants([result.text], snapshot, offset, shape)
        else:
            cleaned = self.cleaner(result.text, snapshot, offset, shape)
            cleaned_all = [cleaned] if cleaned is not None else []
        suggestions = []
        for index, cleaned in enumerate(cleaned_all):
            suggestion = Suggestion(f"s{next(self._ids)}", cleaned.text, offset,
                                    cleaned.replace_end, result.model, "model")
            if index == 0:
                self.cache.put_keyed(gen.before_state, key.after, key.scope, CachedSuggestion(
                    cleaned.text, cleaned.replace_end - offset, result.model, suggestion.id))
            self._remember(suggestion.id, gen.uri, offset, cleaned.text)
            self.events.suggestion_shown(suggestion)
            suggestions.append(suggestion)
        self.stats.shown += bool(suggestions)
        self.stats.last_finish_ms = (time.perf_counter() - finish_started) * 1000
        return suggestions

    def _unregister(self, gen: _Generation) -> None:
        gens = self._generations.get(gen.uri, [])
        if gen in gens:
            gens.remove(gen)
        if not gens:
            self._generations.pop(gen.uri, None)

    async def _generate(self, gen: _Generation | None, request,
                        settings: Settings) -> ModelResult:
        """One upstream call, reporting its partial text to `gen` for in-flight reuse."""
        self.stats.upstream += 1
        kind = "completion"

        def on_text(text: str) -> None:
            if gen is not None:
                gen.partial = text

        try:
            result = await guarded_generate(
                self.model, request, gate=self.gate, events=self.events, kind=kind,
                timeout_s=settings.completion.timeout_ms / 1000.0, on_text=on_text)
        except ModelError:
            self.stats.errors += 1
            raise
        self.debouncer.note_latency(result.total_s)
        self.stats.prompt_tokens += result.usage.prompt_tokens
        self.stats.cache_hit_tokens += result.usage.cache_hit_tokens
        if gen is not None:
            gen.partial = result.text
        self.events.request_finished(kind, result, None, "shown")
        return result
