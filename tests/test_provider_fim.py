"""FIM templates: choice from the model name, prompt layout, repository context with
file separators, and no FIM token ever reaching the editor (per template)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from flashls.model import fim
from flashls.model.providers import ModelClient, ProviderConfig
from flashls.model.types import ContextFile, FimRequest
from flashls.settings import Settings, apply_settings
from tests.fake_deepseek import Reply
from tests.fake_providers import FakeProvider, base_url_for

REQ = FimRequest("m", "# --- a.py ---\ndef f(", "):\n    pass\n", 16, path="a.py",
                 code_prefix="def f(", files=(ContextFile("b.py", "X = 1"),))


@pytest.mark.parametrize("model,name", [
    ("Qwen/Qwen2.5-Coder-7B-Instruct", "qwen"), ("qwen2.5-coder:1.5b", "qwen"),
    ("bigcode/starcoder2-3b", "starcoder"), ("codellama:7b-code", "codellama"),
    ("codestral-latest", "codestral"), ("deepseek-coder-6.7b-base", "deepseek"),
    ("deepseek-flash", "deepseek"),
])
def test_auto_picks_the_template_from_the_model_name(model, name):
    assert fim.auto_template_name(model) == (name, True)
    assert fim.resolve("auto", model).name == name


def test_an_unknown_model_gets_the_fallback_and_says_it_guessed():
    assert fim.auto_template_name("my-finetune") == (fim.AUTO_FALLBACK, False)


def test_a_preset_overrides_the_model_name():
    assert fim.resolve("codellama", "Qwen2.5-Coder").name == "codellama"


def test_layouts_per_template():
    render = lambda name: fim.render_prompt(fim.PRESETS[name], REQ)  # noqa: E731
    assert render("qwen") == ("<|fim_prefix|><|file_sep|>b.py\nX = 1\n<|file_sep|>a.py\ndef f("
                              "<|fim_suffix|>):\n    pass\n<|fim_middle|>")
    assert render("starcoder") == ("<fim_prefix><file_sep>b.py\nX = 1\n<file_sep>a.py\ndef f("
                                   "<fim_suffix>):\n    pass\n<fim_middle>")
    # no file separator: the context stays the comment head of the prompt
    assert render("codellama") == "<PRE> # --- a.py ---\ndef f( <SUF>):\n    pass\n <MID>"
    assert render("deepseek") == ("<｜fim▁begin｜># --- a.py ---\ndef f(<｜fim▁hole｜>):\n"
                                  "    pass\n<｜fim▁end｜>")
    assert render("codestral") == "[SUFFIX]):\n    pass\n[PREFIX]# --- a.py ---\ndef f("


def test_custom_template_with_and_without_file_separator():
    custom = fim.custom_template({"prefix": "<P>", "suffix": "<S>", "middle": "<M>",
                                  "fileSeparator": "<F>"})
    assert fim.render_prompt(custom, REQ) == "<P><F>b.py\nX = 1\n<F>a.py\ndef f(<S>):\n    pass\n<M>"
    plain = fim.custom_template({"prefix": "<P>", "suffix": "<S>", "middle": "<M>"})
    assert fim.render_prompt(plain, REQ).startswith("<P># --- a.py ---\n")
    assert set(fim.stops_for(custom, ("\n",))) == {"\n", "<P>", "<S>", "<M>", "<F>"}


@pytest.mark.parametrize("value,message", [
    ("qwen3", "is not auto or one of"),
    ({"prefix": "<P>", "suffix": "<S>"}, "must all be set"),
    ({"prefix": "<P>", "suffix": "<S>", "middle": "<M>", "sep": "x"}, "unknown key"),
    ({"prefix": 1, "suffix": "<S>", "middle": "<M>"}, "must be a string"),
    (3, "expected"),
])
def test_bad_template_settings_are_reported_and_keep_the_previous_value(value, message):
    previous = Settings()
    settings_, errors = apply_settings(previous, {"completion": {"fimTemplate": value}})
    assert len(errors) == 1 and message in str(errors[0])
    assert "completion.fimTemplate" in str(errors[0])
    assert settings_.completion.fim_template == "auto"


@pytest.mark.parametrize("name", sorted(fim.PRESETS))
def test_no_special_token_survives_stripping(name):
    template = fim.PRESETS[name]
    for token in template.special_tokens():
        assert fim.strip_special(f"x = 1{token}garbage", template) == "x = 1"
        # a token cut off by the length limit at the very end
        if len(token) > fim.MIN_PARTIAL_TOKEN:
            assert fim.strip_special(f"x = 1{token[:-1]}", template) == "x = 1"


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(fim.PRESETS)), st.text(max_size=40), st.text(max_size=40))
def test_stripped_text_never_contains_a_special_token(name, before, after):
    template = fim.PRESETS[name]
    token = template.special_tokens()[len(before) % len(template.special_tokens())]
    out = fim.strip_special(before + token + after, template)
    assert not any(t in out for t in template.special_tokens())
    assert before.startswith(out)


# -- through the adapters: the fake model emits its own tokens ---------------------------
def _model_for(template: str) -> str:
    return {"qwen": "qwen2.5-coder-7b", "starcoder": "starcoder2-3b",
            "codellama": "codellama-7b-code", "codestral": "codestral-22b",
            "deepseek": "deepseek-coder-6.7b-base"}[template]


@pytest.mark.parametrize("kind", ["openai", "llamacpp", "ollama"])
@pytest.mark.parametrize("template", sorted(fim.PRESETS))
async def test_adapters_never_pass_a_fim_token_to_the_caller(kind, template):
    model = _model_for(template)
    tokens = fim.PRESETS[template].special_tokens()
    leak = f"total = a + b{tokens[-1]}{tokens[0]}def other():"
    with FakeProvider(kind, lambda r: Reply(text=leak, chunk_chars=3), models=(model,)) as fake:
        client = ModelClient(ProviderConfig(kind, base_url_for(fake)))
        partials: list[str] = []
        try:
            result = await client.generate(FimRequest(model, "def f(a, b):\n    ", "", 32),
                                           timeout_s=5, on_text=partials.append)
        finally:
            await client.aclose()
        body = fake.completion_requests()[0].body
    assert result.text == "total = a + b"
    assert not any(t in p for p in partials for t in tokens)
    stops = body.get("stop") or body.get("options", {}).get("stop")
    assert set(tokens) <= set(stops)  # and the server is asked to stop at them


async def test_ollama_sends_a_raw_prompt_when_the_template_is_chosen_explicitly():
    with FakeProvider("ollama", lambda r: Reply(text="1"), models=("mymodel",)) as fake:
        client = ModelClient(ProviderConfig("ollama", fake.url, fim_template="starcoder"))
        try:
            await client.generate(REQ.__class__(**{**REQ.__dict__, "model": "mymodel"}),
                                  timeout_s=5)
        finally:
            await client.aclose()
        body = fake.completion_requests()[0].body
    assert body["raw"] is True and "suffix" not in body
    assert body["prompt"].startswith("<fim_prefix><file_sep>b.py\n")


async def test_deepseek_hosted_answers_are_stripped_but_requests_unchanged():
    from tests.fake_deepseek import FakeDeepSeek
    from flashls.model.deepseek import DeepSeekClient
    with FakeDeepSeek(lambda r: Reply(text="x = 1<｜fim▁hole｜>junk")) as fake:
        client = DeepSeekClient(fake.url, "sk-test")
        try:
            result = await client.generate(FimRequest("deepseek-flash", "a", "b", 8,
                                                      stop=("\n",)), timeout_s=5)
        finally:
            await client.aclose()
        body = fake.completion_requests()[0].body
    assert result.text == "x = 1" and body["stop"] == ["\n"]
