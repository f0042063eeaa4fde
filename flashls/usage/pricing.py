"""What a request cost: token counts × the price table in settings, peak or off-peak.

Pure functions (no I/O) so the ledger, `flashls stats` and `flashls eval` agree.
The table is USD per 1M tokens: `{model: {"offPeak": [hit, miss, output], "peak": [...]}}`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping

# DeepSeek's peak windows (UTC, weekdays): 01:00–04:00 and 06:00–10:00, end exclusive.
PEAK_HOURS_UTC: tuple[tuple[int, int], ...] = ((1, 4), (6, 10))


@dataclass(frozen=True)
class Price:
    """USD per 1M tokens."""

    cache_hit: float
    cache_miss: float
    output: float


def is_peak(when: float | datetime) -> bool:
    """Whether a moment (unix seconds or datetime) falls in DeepSeek's peak hours."""
    moment = (datetime.fromtimestamp(when, timezone.utc) if isinstance(when, (int, float))
              else when.astimezone(timezone.utc))
    if moment.weekday() >= 5:
        return False
    return any(start <= moment.hour < end for start, end in PEAK_HOURS_UTC)


def _price(raw: Any) -> Price | None:
    if not isinstance(raw, (list, tuple)) or len(raw) != 3:
        return None
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0
               for v in raw):
        return None
    return Price(float(raw[0]), float(raw[1]), float(raw[2]))


def price_for(prices: Mapping[str, Any], model: str, when: float | datetime) -> Price | None:
    """The price of `model` at `when`, or None when the table has no (valid) entry."""
    entry = prices.get(model) if isinstance(prices, dict) else None
    if not isinstance(entry, dict):
        return None
    peak = is_peak(when)
    chosen = _price(entry.get("peak" if peak else "offPeak"))
    if chosen is None:  # a table with only one tier applies it all day
        chosen = _price(entry.get("offPeak" if peak else "peak"))
    return chosen


def cost_usd(price: Price, *, cache_hit_tokens: int, cache_miss_tokens: int,
             completion_tokens: int) -> float:
    return (cache_hit_tokens * price.cache_hit + cache_miss_tokens * price.cache_miss
            + completion_tokens * price.output) / 1_000_000


def request_cost(prices: Mapping[str, Any], model: str, when: float | datetime, *,
                 prompt_tokens: int, cache_hit_tokens: int, cache_miss_tokens: int,
                 completion_tokens: int) -> float | None:
    """Cost of one request, None when the model is not priced."""
    price = price_for(prices, model, when)
    if price is None:
        return None
    miss = cache_miss_tokens or max(0, prompt_tokens - cache_hit_tokens)
    return cost_usd(price, cache_hit_tokens=cache_hit_tokens, cache_miss_tokens=miss,
                    completion_tokens=completion_tokens)
