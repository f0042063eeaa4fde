"""One upstream call as every pipeline makes it: status events told, the gate fed.

Completions, code actions and next edits each call the model the same way: tell the
status sink a request started, stream the answer, and on the way out tell the sink how
it ended and the gate whether upstream failed (so 401/402/429/5xx back off everywhere).
What differs is what a failure means to the caller, so errors are re-raised here.
"""

from __future__ import annotations

import asyncio
from typing import Callable

from .gate import UpstreamGate
from .types import ModelError, ModelResult


async def guarded_generate(model, request, *, gate: UpstreamGate, events, kind: str,
                           timeout_s: float,
                           on_text: Callable[[str], None] | None = None) -> ModelResult:
    """`model.generate(request)` between `events.request_started` and
    `request_finished`; a `ModelError` is recorded on `gate` and re-raised. The
    finish of a success is the caller's to tell (it knows whether it was shown)."""
    events.request_started(kind, request.model)
    try:
        if on_text is None:
            result = await model.generate(request, timeout_s=timeout_s)
        else:
            result = await model.generate(request, timeout_s=timeout_s, on_text=on_text)
    except asyncio.CancelledError:
        events.request_finished(kind, None, None, "cancelled")
        raise
    except ModelError as err:
        gate.record_failure(err)
        events.request_finished(kind, None, err, "error")
        raise
    gate.record_success()
    return result
