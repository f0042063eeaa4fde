"""When flashls may call upstream at all: stop on bad key/balance, back off on overload.

Policy only: it sees typed `ModelError`s, never HTTP. 401/402 close the gate until the
settings change; 429/5xx/timeouts open a back-off window (Retry-After when given,
otherwise exponential with jitter) that one success resets. A rejected request
(400/404/422) is not retried, but the next keystroke would send the same kind of
request, so it backs off the same way instead of failing on every keystroke.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from .types import AuthError, BadRequestError, BalanceError, ModelError

BASE_BACKOFF_S = 0.5
MAX_BACKOFF_S = 60.0


@dataclass
class UpstreamGate:
    clock: callable = field(default=time.monotonic)
    blocked_reason: ModelError | None = None
    backoff_until: float = 0.0
    failures: int = 0

    def closed_reason(self) -> str | None:
        """Why no request may go out now, or None when one may."""
        if self.blocked_reason is not None:
            return str(self.blocked_reason)
        remaining = self.backoff_until - self.clock()
        if remaining > 0:
            return f"backing off for {remaining:.1f}s after upstream errors"
        return None

    def record_success(self) -> None:
        self.failures = 0
        self.backoff_until = 0.0

    def record_failure(self, error: ModelError) -> None:
        if isinstance(error, (AuthError, BalanceError)):
            self.blocked_reason = error
            return
        if not error.retryable and not isinstance(error, BadRequestError):
            return
        self.failures += 1
        if error.retry_after_s is not None:
            delay = min(error.retry_after_s, MAX_BACKOFF_S)
        elif self.failures < 2 and error.status is None:
            delay = 0.0  # one timeout or broken stream is not a reason to pause
        else:
            delay = min(MAX_BACKOFF_S, BASE_BACKOFF_S * 2 ** (self.failures - 1))
            delay *= random.uniform(0.5, 1.0)
        self.backoff_until = max(self.backoff_until, self.clock() + delay)

    def reset(self) -> None:
        """Settings changed (new key, new URL): try again from a clean slate."""
        self.blocked_reason = None
        self.backoff_until = 0.0
        self.failures = 0
