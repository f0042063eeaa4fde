"""What `flashls loadtest` concludes from its measurements: pure functions, no I/O
except the optional chart.

The knee is the last concurrency step whose p99 latency stays within KNEE_RATIO of
the unloaded p99 (the lowest p99 of the steps before it: one noisy first step must
not hide the turn): past it requests queue and p99 turns up, so it is the endpoint's
real capacity. Little's law turns the throughput there (requests
per second with that many in flight) into developers: each active developer sends
`requests_per_dev_hour` requests per hour.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..usage.stats import percentile

KNEE_RATIO = 1.5  # p99 this much above the unloaded p99: queueing has started
DEFAULT_REQUESTS_PER_DEV_HOUR = 300.0  # assumption when the ledger has too little data


@dataclass
class Sample:
    """One request of a load test."""

    latency_ms: float | None  # None: it failed
    ttft_ms: float | None = None
    text: str = ""
    error: str | None = None


@dataclass
class Step:
    concurrency: int
    wall_s: float
    samples: list[Sample] = field(default_factory=list)

    @property
    def ok(self) -> list[Sample]:
        return [s for s in self.samples if s.error is None and s.latency_ms is not None]

    def summary(self) -> dict[str, Any]:
        latencies = [s.latency_ms for s in self.ok]
        ttfts = [s.ttft_ms for s in self.ok if s.ttft_ms is not None]
        return {
            "concurrency": self.concurrency, "requests": len(self.samples),
            "errors": len(self.samples) - len(self.ok),
            "throughputRps": round(len(self.ok) / self.wall_s, 3) if self.wall_s > 0 else 0.0,
            "p50Ms": _round(percentile(latencies, 50)), "p99Ms": _round(percentile(latencies, 99)),
            "ttftP50Ms": _round(percentile(ttfts, 50)), "ttftP99Ms": _round(percentile(ttfts, 99)),
            "wallS": round(self.wall_s, 3),
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def ramp_steps(max_concurrency: int) -> list[int]:
    """1, 2, 4, … up to and including `max_concurrency`."""
    steps, c = [], 1
    while c < max_concurrency:
        steps.append(c)
        c *= 2
    steps.append(max(1, max_concurrency))
    return sorted(set(steps))


def find_knee(steps: Sequence[dict[str, Any]], ratio: float = KNEE_RATIO) -> int | None:
    """The last step before p99 turns up (see module doc); None without usable steps."""
    usable = [s for s in steps if s.get("p99Ms") is not None]
    if not usable:
        return None
    base = usable[0]["p99Ms"]
    knee = usable[0]["concurrency"]
    for step in usable[1:]:
        if step["p99Ms"] > ratio * base or step["errors"]:
            break
        knee = step["concurrency"]
        base = min(base, step["p99Ms"])
    return knee


def at_target(steps: Sequence[dict[str, Any]], p99_target_ms: float) -> dict[str, Any] | None:
    """The highest-throughput error-free step whose p99 meets the target."""
    good = [s for s in steps if s.get("p99Ms") is not None and s["p99Ms"] <= p99_target_ms
            and not s["errors"]]
    return max(good, key=lambda s: s["throughputRps"]) if good else None


def developers_served(throughput_rps: float, requests_per_dev_hour: float) -> int:
    """Little's law: in-flight = arrival rate × latency, so the rate a step sustains
    at its concurrency, divided by one developer's rate, is how many it serves."""
    if requests_per_dev_hour <= 0:
        return 0
    return int(math.floor(throughput_rps * 3600.0 / requests_per_dev_hour))


def stability(samples: Sequence[Sample]) -> dict[str, Any]:
    """How often the same request got the same answer."""
    texts = [s.text for s in samples if s.error is None]
    counts = Counter(texts)
    top = counts.most_common(1)[0][1] if counts else 0
    return {"requests": len(samples), "errors": len(samples) - len(texts),
            "distinctOutputs": len(counts),
            "mostCommonShare": round(top / len(texts), 3) if texts else None}


def capacity(steps: Sequence[dict[str, Any]], p99_target_ms: float,
             requests_per_dev_hour: float) -> dict[str, Any]:
    knee = find_knee(steps)
    knee_step = next((s for s in steps if s["concurrency"] == knee), None)
    target = at_target(steps, p99_target_ms)
    return {
        "knee": knee,
        "kneeThroughputRps": knee_step["throughputRps"] if knee_step else None,
        "kneeP99Ms": knee_step["p99Ms"] if knee_step else None,
        "p99TargetMs": p99_target_ms,
        "atTarget": target["concurrency"] if target else None,
        "requestsPerDevHour": requests_per_dev_hour,
        "developersAtKnee": developers_served(knee_step["throughputRps"],
                                              requests_per_dev_hour) if knee_step else 0,
        "developersAtTarget": developers_served(target["throughputRps"],
                                                requests_per_dev_hour) if target else 0,
    }


def render_text(report: dict[str, Any]) -> str:
    lines = [f"flashls loadtest: {report['provider']} {report['baseUrl']}, model "
             f"{report['model']}"]
    long = report.get("longInput")
    if long:
        lines.append(f"  long input (~{long['promptTokens']} tokens): TTFT p50 "
                     f"{long['ttftP50Ms']} ms, total p50 {long['p50Ms']} ms, "
                     f"{long['errors']} error(s) of {long['requests']}")
        for error in long.get("errorKinds", []):
            lines.append(f"    error: {error}")
    lines.append("  concurrency  requests  errors  rps      p50 ms   p99 ms")
    for s in report.get("ramp", []):
        lines.append(f"  {s['concurrency']:>11}  {s['requests']:>8}  {s['errors']:>6}  "
                     f"{s['throughputRps']:<7}  {s['p50Ms']!s:>7}  {s['p99Ms']!s:>7}")
    cap = report.get("capacity") or {}
    if cap.get("knee") is not None:
        lines.append(f"  knee: {cap['knee']} concurrent requests ({cap['kneeThroughputRps']} "
                     f"req/s, p99 {cap['kneeP99Ms']} ms)")
    src = report.get("requestsPerDevHourSource", "")
    lines.append(f"  at {cap.get('requestsPerDevHour')} requests per active developer-hour "
                 f"({src}): ~{cap.get('developersAtKnee', 0)} developers at the knee; "
                 f"~{cap.get('developersAtTarget', 0)} at p99 <= {cap.get('p99TargetMs')} ms")
    stab = report.get("stability")
    if stab:
        lines.append(f"  same request x{stab['requests']}: {stab['distinctOutputs']} distinct "
                     f"output(s), most common {stab['mostCommonShare']}, {stab['errors']} "
                     "error(s)")
    if report.get("stoppedEarly"):
        lines.append(f"  stopped early: {report['stoppedEarly']}")
    return "\n".join(lines)


def write_chart(report: dict[str, Any], path: str) -> str | None:
    """Latency vs concurrency PNG; returns why not when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return ("matplotlib is not installed (pip install 'flashls[bench]'): wrote the "
                "JSON report only")
    ramp = [s for s in report.get("ramp", []) if s.get("p99Ms") is not None]
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [s["concurrency"] for s in ramp]
    ax.plot(xs, [s["p50Ms"] for s in ramp], marker="o", label="p50")
    ax.plot(xs, [s["p99Ms"] for s in ramp], marker="o", label="p99")
    knee = (report.get("capacity") or {}).get("knee")
    if knee is not None:
        ax.axvline(knee, linestyle="--", color="grey", label=f"knee ({knee})")
    target = (report.get("capacity") or {}).get("p99TargetMs")
    if target:
        ax.axhline(target, linestyle=":", color="red", label=f"p99 target ({target:g} ms)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("concurrent requests")
    ax.set_ylabel("latency (ms)")
    ax.set_title(f"{report['model']} on {report['provider']}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return None
