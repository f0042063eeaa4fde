"""Client-side cost of each model adapter: time per streamed answer against a loopback
fake with no model latency, as a ratio to a bare httpx streaming loop measured in the
same run (the machine is noisy; only the ratios mean something).

    python -m benchmarks.adapter_overhead [--requests 200] [--chunks 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

import httpx

from flashls.model.providers import ModelClient, ProviderConfig
from flashls.model.types import ContextFile, FimRequest
from tests.fake_deepseek import FakeDeepSeek, Reply
from tests.fake_providers import FakeProvider, base_url_for

MODEL = "qwen2.5-coder-1.5b"


def request(model: str) -> FimRequest:
    prefix = "def add(a, b):\n    return "
    return FimRequest(model, "# --- util.py ---\n# def helper(): ...\n" + prefix, "\n", 64,
                      stop=("\n",), path="m.py", code_prefix=prefix,
                      files=(ContextFile("util.py", "def helper(): ..."),))


async def bare_loop(url: str, n: int) -> list[float]:
    """The floor: POST, read the SSE lines, nothing else."""
    times = []
    async with httpx.AsyncClient() as client:
        body = {"model": "deepseek-flash", "prompt": "x", "suffix": "", "stream": True}
        for _ in range(n):
            started = time.perf_counter()
            async with client.stream("POST", f"{url}/beta/completions", json=body) as resp:
                async for line in resp.aiter_lines():
                    if line == "data: [DONE]":
                        break
            times.append(time.perf_counter() - started)
    return times


async def adapter_loop(config: ProviderConfig, model: str, n: int) -> list[float]:
    client = ModelClient(config)
    times = []
    try:
        for _ in range(n):
            started = time.perf_counter()
            await client.generate(request(model), timeout_s=10)
            times.append(time.perf_counter() - started)
    finally:
        await client.aclose()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--chunks", type=int, default=16, help="stream events per answer")
    args = parser.parse_args()
    text = "x" * (4 * args.chunks)
    reply = lambda r: Reply(text=text, chunk_chars=4)  # noqa: E731
    results = {}
    with FakeDeepSeek(reply) as ds:
        bare = statistics.median(asyncio.run(bare_loop(ds.url, args.requests)))
        results["bare httpx"] = bare
        results["deepseek"] = statistics.median(asyncio.run(adapter_loop(
            ProviderConfig("deepseek", ds.url, "sk-bench"), "deepseek-flash", args.requests)))
    for kind in ("openai", "llamacpp", "ollama", "mistral"):
        with FakeProvider(kind, reply, models=(MODEL,)) as fake:
            results[kind] = statistics.median(asyncio.run(adapter_loop(
                ProviderConfig(kind, base_url_for(fake)), MODEL, args.requests)))
    out = {name: {"medianMs": round(v * 1000, 3), "ratioToBare": round(v / bare, 2)}
           for name, v in results.items()}
    print(json.dumps({"requests": args.requests, "chunks": args.chunks, "results": out},
                     indent=2))


if __name__ == "__main__":
    main()
