"""Which adapter answers: the one place that maps `flashls.provider` to a wire format.

Pipelines hold a `ModelClient` and call `generate` (and doctor `list_models`); it
forwards to the current adapter and swaps it when the provider, URL, headers or
template change, so nothing above this module knows which provider is in use.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Mapping

import httpx

from .catalog import DEFAULT_BASE_URLS, PROVIDERS
from .deepseek import DeepSeekClient
from .network import client_kwargs
from .llamacpp import LlamaCppClient
from .mistral import MistralClient
from .ollama import OllamaClient
from .openai_compat import OpenAICompatClient
from .streaming import StreamingClient
from .types import ModelRequest, ModelResult, OnText

ADAPTERS: dict[str, type[StreamingClient]] = {
    "deepseek": DeepSeekClient, "openai": OpenAICompatClient, "llamacpp": LlamaCppClient,
    "ollama": OllamaClient, "mistral": MistralClient,
}
assert set(ADAPTERS) == set(PROVIDERS)


@dataclass(frozen=True)
class ProviderConfig:
    provider: str = "deepseek"
    base_url: str = DEFAULT_BASE_URLS["deepseek"]
    api_key: str = field(default="", repr=False)
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    fim_template: Any = "auto"
    proxy: str = ""  # flashls.proxy ("": the environment decides)
    ca_file: str = ""  # flashls.caFile ("": the environment decides)

    def adapter_key(self) -> tuple:
        """What needs a new adapter (and connection pool) when it changes."""
        template = self.fim_template
        if isinstance(template, Mapping):
            template = tuple(sorted(template.items()))
        return (self.provider, self.headers, template, self.proxy, self.ca_file)


def config_from_settings(settings: Any, api_key: str | None = None) -> ProviderConfig:
    """The adapter configuration a `Settings` object asks for."""
    provider = getattr(settings, "provider", "deepseek")
    base_url = (settings.effective_base_url() if hasattr(settings, "effective_base_url")
                else settings.base_url)
    key = settings.effective_api_key() if api_key is None else api_key
    headers = tuple(sorted((str(k), str(v)) for k, v in
                           (getattr(settings, "headers", None) or {}).items()))
    template = getattr(getattr(settings, "completion", None), "fim_template", "auto")
    return ProviderConfig(provider, base_url, key, headers, template,
                          getattr(settings, "proxy", ""), getattr(settings, "ca_file", ""))


def build_client(config: ProviderConfig, **kwargs: Any) -> StreamingClient:
    """The adapter for `config`. Raises NetworkSettingError for a CA file that cannot
    be loaded (the session checks that before applying new settings)."""
    cls = ADAPTERS.get(config.provider, DeepSeekClient)
    return cls(config.base_url, config.api_key, headers=dict(config.headers),
               fim_template=config.fim_template,
               network=client_kwargs(config.proxy, config.ca_file), **kwargs)


class ModelClient:
    """`CompletionModel` for whichever provider the settings name (see module doc)."""

    def __init__(self, config: ProviderConfig, *,
                 transport: httpx.AsyncBaseTransport | None = None, **kwargs: Any):
        self.config = config
        self._kwargs = dict(kwargs, transport=transport)
        self.adapter = build_client(config, **self._kwargs)
        self._retired: set[asyncio.Task] = set()

    @classmethod
    def from_settings(cls, settings: Any, api_key: str | None = None, **kwargs: Any
                      ) -> "ModelClient":
        return cls(config_from_settings(settings, api_key), **kwargs)

    def __repr__(self) -> str:
        return f"ModelClient({self.config.provider}, {self.config.base_url!r})"  # never the key

    @property
    def provider(self) -> str:
        return self.config.provider

    @property
    def base_url(self) -> str:
        return self.adapter.base_url

    def apply(self, config: ProviderConfig) -> None:
        """Use new settings: same adapter when only the URL or key changed (the
        connection pool survives), a new one otherwise (the old one closes)."""
        if config == self.config:
            return
        if config.adapter_key() == self.config.adapter_key():
            self.adapter.configure(config.base_url, config.api_key)
        else:
            old, self.adapter = self.adapter, build_client(config, **self._kwargs)
            self._retire(old)
        self.config = config

    def configure(self, base_url: str, api_key: str) -> None:
        """The DeepSeek adapter's method, kept for callers that only change URL/key."""
        import dataclasses
        self.apply(dataclasses.replace(self.config, base_url=base_url, api_key=api_key))

    def _retire(self, adapter: StreamingClient) -> None:
        try:
            task = asyncio.get_running_loop().create_task(adapter.aclose())
        except RuntimeError:
            return  # no loop: nothing is in flight either
        self._retired.add(task)
        task.add_done_callback(self._retired.discard)

    async def generate(self, request: ModelRequest, *, timeout_s: float,
                       on_text: OnText | None = None) -> ModelResult:
        return await self.adapter.generate(request, timeout_s=timeout_s, on_text=on_text)

    async def list_models(self, *, timeout_s: float = 10.0) -> list[str]:
        return await self.adapter.list_models(timeout_s=timeout_s)

    async def aclose(self) -> None:
        await asyncio.gather(*self._retired, return_exceptions=True)
        await self.adapter.aclose()
