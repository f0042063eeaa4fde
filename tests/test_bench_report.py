"""The benchmark report renders every section from a results file, so a long run
never ends in a KeyError (the figures themselves come from `python -m benchmarks`)."""

from benchmarks.__main__ import report


def _stats(p50: float, p99: float) -> dict:
    return {"p50": p50, "p99": p99, "mean": p50}


def _latency_row(debounce: int, before: float, e2e: float, ratio: float) -> dict:
    return {"debounce_ms": debounce, "added_before_upstream_ms": _stats(before + 2, before + 4),
            "added_after_upstream_ms": _stats(3.0, 4.0),
            "server_added_before_ms": _stats(before, before + 2),
            "server_added_after_ms": _stats(2.0, 3.0), "end_to_end_ms": _stats(e2e, e2e + 5),
            "pipeline_prepare_ms": _stats(2.5, 3.5), "pipeline_finish_ms": _stats(1.0, 1.5),
            "end_to_end_vs_bare": ratio}


RESULTS = {
    "machine": "Linux x86_64, 2 cores", "date": "2026-11-30T00:00:00+00:00", "quick": False,
    "seconds": {"latency": 60.0, "context": 90.0},
    "latency": {"model_latency_ms": 200.0, "rounds": 40, "bare_http": _stats(206.0, 208.0),
                "small": _latency_row(0, 2.4, 209.0, 1.015),
                "large_5000_lines": _latency_row(0, 13.7, 225.0, 1.093),
                "small_typing": _latency_row(75, 3.0, 285.0, 1.014),
                "large_5000_lines_typing": _latency_row(75, 2.9, 288.0, 1.023)},
    "memory": {"idle_rss_mb": 57.0, "files": 100, "lines_per_file": 300,
               "rss_with_files_mb": 104.0, "rss_ratio_vs_idle": 1.8},
    "soak": {"keystrokes": 7027, "rss_slope_mb_per_sim_hour": 10.3, "samples": []},
}


def test_report_shows_each_latency_scenario_against_its_own_baseline():
    text = report(RESULTS, ["latency.png"])
    assert "run time: 2.5 min (latency 60 s, context 90 s)" in text
    rows = [line for line in text.splitlines() if line.startswith("| invoked")
            or line.startswith("| typing")]
    assert len(rows) == 4
    # typing rows compare with debounce + bare call; invoked rows with the bare call
    assert rows[2].startswith("| typing, debounce 75 ms | small | 3.0 / 5.0 |")
    assert "| 281.0 | 1.014 |" in rows[2]
    assert "| 206.0 | 1.093 |" in rows[1]
    assert "| soak: keystrokes | 7027 |" in text and "![latency.png](latency.png)" in text


def test_report_survives_a_failed_benchmark():
    broken = {**RESULTS, "latency": {"error": "RuntimeError: boom"}, "context": {}}
    text = report(broken, [])
    assert "## Not measured" in text and "latency: RuntimeError: boom" in text
