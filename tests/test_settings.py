"""Settings: one definition, validated editor input, previous values kept on error."""

from flashls.settings import SPECS_BY_KEY, Settings, apply_settings, flatten, to_editor_dict

ISSUE_KEYS = ["baseUrl", "apiKey", "model", "strongModel", "completion.enable",
              "completion.endpoint", "completion.debounceMs", "completion.maxTokens",
              "completion.contextTokens", "completion.timeoutMs", "completion.multiline",
              "actions.enable", "actions.maxTokens", "exclude", "logLevel"]


def test_every_documented_key_exists():
    assert set(ISSUE_KEYS) <= set(SPECS_BY_KEY)


def test_defaults():
    s = Settings()
    assert s.base_url == "https://api.deepseek.com" and s.model == "deepseek-flash"
    assert s.strong_model == "deepseek-v4-pro" and s.completion.endpoint == "fim"
    assert s.completion.max_tokens == 64 and s.completion.multiline == "auto"


def test_nested_and_dotted_keys_are_the_same():
    assert flatten({"completion": {"maxTokens": 9}}) == flatten({"completion.maxTokens": 9})
    s, errors = apply_settings(Settings(), {"completion.maxTokens": 9, "actions": {"enable": False}})
    assert not errors and s.completion.max_tokens == 9 and s.actions.enable is False


def test_bad_values_keep_the_previous_value_and_name_the_key():
    previous, _ = apply_settings(Settings(), {"completion": {"maxTokens": 32, "endpoint": "chat"}})
    s, errors = apply_settings(previous, {"completion": {
        "maxTokens": -1, "endpoint": "carrier-pigeon", "debounceMs": "soon"}, "baseUrl": "ftp:x"})
    assert s.completion.max_tokens == 32 and s.completion.endpoint == "chat"
    assert s.completion.debounce_ms is None and s.base_url == Settings().base_url
    keys = sorted(e.key for e in errors)
    assert keys == ["baseUrl", "completion.debounceMs", "completion.endpoint", "completion.maxTokens"]
    assert all(str(e).startswith("flashls.") for e in errors)


def test_unknown_keys_and_non_objects_are_reported():
    s, errors = apply_settings(Settings(), {"compleshun": {"enable": False}})
    assert [e.key for e in errors] == ["compleshun.enable"]
    s2, errors2 = apply_settings(s, ["not", "an", "object"])
    assert s2 is s and errors2


def test_booleans_are_not_numbers():
    _, errors = apply_settings(Settings(), {"completion": {"maxTokens": True, "enable": 1}})
    assert {e.key for e in errors} == {"completion.maxTokens", "completion.enable"}


def test_api_key_never_shown():
    s, _ = apply_settings(Settings(), {"apiKey": "sk-secret-value"})
    assert "sk-secret" not in repr(s)
    assert to_editor_dict(s)["apiKey"] == "<set>"
