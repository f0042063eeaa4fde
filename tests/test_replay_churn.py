"""`benchmarks.real_context_replay --churn` tells where missed prompt tokens went: a
change in a context part (not structural) apart from what was typed in the window."""

from __future__ import annotations

from benchmarks.real_context_replay import add_churn
from tests.fake_deepseek import PrefixCache, Recorded, request_input, tokenize

HEAD = ("// --- from a.go ---\n// func A() {\n" + "// x\n" * 40 +
        "// --- outline of main.go ---\n// func main() {\n")


def _requests(prompts: list[str]) -> list[Recorded]:
    cache = PrefixCache(64)
    out = []
    for prompt in prompts:
        req = Recorded("/beta/completions", {}, {"prompt": prompt, "suffix": "}\n"}, 0.0)
        tokens = tokenize(request_input(req.path, req.body))
        hit = cache.lookup_and_store(tokens)
        req.usage = {"prompt_tokens": len(tokens), "prompt_cache_hit_tokens": hit}
        out.append(req)
    return out


def test_typing_in_the_window_is_structural_and_a_changed_part_is_named():
    window = "// --- main.go ---\nfunc main() {\n\tx := 1\n"
    prompts = [HEAD + window, HEAD + window + "\ty", HEAD + window + "\ty := 2",
               HEAD.replace("func A() {", "func A(b int) {") + window + "\ty := 2"]
    churn: dict = {}
    add_churn(churn, _requests(prompts), [0])
    assert churn["first request"] > 0
    assert churn["typed since"] > 0
    assert churn["changed: from"] > 0
    assert [r[:2] for r in churn["requests"]] == [(3, "from: a.go")]
    assert "changed: outline of" not in churn


def test_a_changed_outline_is_told_apart_from_a_neighbor_part():
    window = "// --- main.go ---\nfunc main() {\n"
    prompts = [HEAD + window, HEAD + "// func other() {\n" + window]
    churn: dict = {}
    add_churn(churn, _requests(prompts), [0])
    assert [r[:2] for r in churn["requests"]] == [(1, "outline of: main.go")]


def test_window_misses_split_into_suffix_window_start_and_typed_since():
    """The suffix (after the hole) never hits; a moved window start misses the whole
    window; the rest of a window miss is what was typed since."""
    window = "// --- main.go ---\nfunc main() {\n" + "\tx := 1\n" * 30
    moved = "// --- main.go ---\n\tx := 1\n" + "\tx := 1\n" * 30
    prompts = [HEAD + window, HEAD + window + "\ty", HEAD + moved + "\ty := 2"]
    churn: dict = {}
    requests = _requests(prompts)
    add_churn(churn, requests, [0])
    suffix = len(tokenize(request_input(requests[1].path, requests[1].body))) - \
        len(tokenize(requests[1].body["prompt"]))
    assert churn["suffix"] == 2 * suffix
    assert churn["window start"] > 60, "the whole window after its label"
    assert churn["typed since"] > 0
    assert sum(v for k, v in churn.items() if k != "requests") == sum(
        r.usage["prompt_tokens"] - r.usage["prompt_cache_hit_tokens"] for r in requests)
