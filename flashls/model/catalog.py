"""The providers flashls can talk to and facts about them: pure data, no I/O, cheap to
import (settings validation and the CLI read it)."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

PROVIDERS: tuple[str, ...] = ("deepseek", "openai", "llamacpp", "ollama", "mistral")
DEFAULT_BASE_URLS = {
    "deepseek": "https://api.deepseek.com", "openai": "http://127.0.0.1:8000/v1",
    "llamacpp": "http://127.0.0.1:8080", "ollama": "http://127.0.0.1:11434",
    "mistral": "https://api.mistral.ai/v1",
}
API_KEY_ENV = {
    "deepseek": "DEEPSEEK_API_KEY", "openai": "OPENAI_API_KEY", "llamacpp": "LLAMA_API_KEY",
    "ollama": "OLLAMA_API_KEY", "mistral": "MISTRAL_API_KEY",
}
HOSTED = frozenset({"deepseek", "mistral"})  # billed per token by their operator
KEY_REQUIRED = HOSTED  # local servers usually run without one


def is_local_url(url: str) -> bool:
    """Loopback or a private-network address: a server the team runs itself."""
    host = (urlsplit(url).hostname or "").strip("[]")
    if host in ("localhost",) or host.endswith(".local") or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def is_paid(provider: str, base_url: str) -> bool:
    """Whether requests may cost money: hosted providers, or any non-local endpoint."""
    return provider in HOSTED or not is_local_url(base_url)
