"""The provider settings: defaults per provider, keys from each provider's variable,
headers validated, and self-hosted models priced at zero unless the user set prices."""

from __future__ import annotations

import pytest

from flashls.model.catalog import is_local_url, is_paid
from flashls.model.providers import config_from_settings
from flashls.settings import DEFAULT_PRICES, Settings, apply_settings, to_editor_dict


def settings(**raw) -> Settings:
    result, errors = apply_settings(Settings(), raw)
    assert errors == []
    return result


def test_default_is_deepseek_and_unchanged():
    s = Settings()
    assert s.provider == "deepseek" and s.effective_base_url() == "https://api.deepseek.com"
    assert s.price_table() == DEFAULT_PRICES


@pytest.mark.parametrize("provider,url", [
    ("openai", "http://127.0.0.1:8000/v1"), ("llamacpp", "http://127.0.0.1:8080"),
    ("ollama", "http://127.0.0.1:11434"), ("mistral", "https://api.mistral.ai/v1")])
def test_each_provider_has_its_default_url_unless_one_is_set(provider, url):
    assert settings(provider=provider).effective_base_url() == url
    assert settings(provider=provider, baseUrl="http://gpu:9000/v1").effective_base_url() == \
        "http://gpu:9000/v1"


def test_the_key_comes_from_the_providers_own_variable(monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-deepseek")
    monkeypatch.setenv("MISTRAL_API_KEY", "mk-mistral")
    monkeypatch.delenv("OLLAMA_API_KEY", raising=False)
    assert settings().effective_api_key() == "sk-deepseek"
    assert settings(provider="mistral").effective_api_key() == "mk-mistral"
    assert settings(provider="ollama").effective_api_key() == ""  # never DeepSeek's key
    assert settings(provider="ollama", apiKey="explicit").effective_api_key() == "explicit"


def test_headers_are_validated_and_never_shown():
    good = settings(headers={"X-Team": "blue"})
    assert good.headers == {"X-Team": "blue"}
    assert to_editor_dict(good)["headers"] == "<set>"
    assert dict(config_from_settings(good, "").headers) == {"X-Team": "blue"}
    for bad in ({"X Team": "a"}, {"X-Team": "a\r\nX-Evil: 1"}, {"X-Team": 3}, ["x"]):
        result, errors = apply_settings(good, {"headers": bad})
        assert len(errors) == 1 and "flashls.headers" in str(errors[0])
        assert result.headers == {"X-Team": "blue"}  # the previous value is kept


def test_provider_must_be_known():
    result, errors = apply_settings(Settings(), {"provider": "bedrock"})
    assert len(errors) == 1 and "is not one of" in str(errors[0])
    assert result.provider == "deepseek"


def test_self_hosted_models_cost_zero_unless_priced():
    local = settings(provider="ollama", model="qwen2.5-coder:1.5b")
    table = local.price_table()
    assert table["qwen2.5-coder:1.5b"]["offPeak"] == [0.0, 0.0, 0.0]
    # Flash served on your own GPUs is not billed at DeepSeek's hosted price
    flash = settings(provider="openai", model="deepseek-flash").price_table()
    assert flash["deepseek-flash"]["peak"] == [0.0, 0.0, 0.0]
    priced = settings(provider="openai", model="flash",
                      usage={"prices": {"flash": {"offPeak": [0.01, 0.1, 0.2]}}}).price_table()
    assert priced["flash"] == {"offPeak": [0.01, 0.1, 0.2]}
    # a hosted provider keeps the table as it is: unknown models stay unpriced
    assert "codestral-latest" not in settings(provider="mistral",
                                              model="codestral-latest").price_table()


@pytest.mark.parametrize("url,local", [
    ("http://127.0.0.1:8000/v1", True), ("http://localhost:11434", True),
    ("http://10.0.0.7:8000", True), ("http://[::1]:8080", True),
    ("https://api.deepseek.com", False), ("https://gateway.example.com/v1", False)])
def test_local_endpoints(url, local):
    assert is_local_url(url) is local
    assert is_paid("openai", url) is (not local)
    assert is_paid("deepseek", url) is True
