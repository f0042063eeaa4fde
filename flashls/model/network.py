"""Which proxy and which CA certificates model requests use, as httpx client options.

Pure apart from reading the environment and the CA file. The setting wins over the
environment: `flashls.proxy` over HTTPS_PROXY / HTTP_PROXY / ALL_PROXY (NO_PROXY still
applies to it), `flashls.caFile` over SSL_CERT_FILE / SSL_CERT_DIR. With neither, httpx
reads the environment itself (`trust_env`). `describe` tells `flashls doctor` what was
chosen and why; `tls_failure` turns a failed handshake into a sentence.
"""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import urlsplit

PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")
HTTP_PROXY_VARIABLES = ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")


@dataclass(frozen=True)
class NetworkChoice:
    proxy: str | None  # the proxy requests to base_url go through, None: direct
    proxy_source: str  # "flashls.proxy", "HTTPS_PROXY", "NO_PROXY (…)", "none"
    ca: str  # a file or directory, or "system/certifi roots"
    ca_source: str  # "flashls.caFile", "SSL_CERT_FILE", "SSL_CERT_DIR", "default"


def _env(env: Mapping[str, str], names: tuple[str, ...]) -> tuple[str, str] | None:
    for name in names:
        if env.get(name):
            return name, env[name]
    return None


def no_proxy_patterns(env: Mapping[str, str]) -> list[str]:
    """NO_PROXY entries as httpx mount patterns that go direct."""
    raw = env.get("NO_PROXY") or env.get("no_proxy") or ""
    patterns = []
    for host in (h.strip() for h in raw.split(",")):
        if not host:
            continue
        if host == "*":
            return ["all://"]
        if "://" in host:
            patterns.append(host)
        elif host.startswith("."):
            patterns.append(f"all://*{host}")
        else:
            patterns.append(f"all://{host}")
            patterns.append(f"all://*.{host}")
    return patterns


def bypassed(url: str, env: Mapping[str, str]) -> str | None:
    """The NO_PROXY entry that makes `url` go direct, if any."""
    host = (urlsplit(url).hostname or "").lower()
    raw = env.get("NO_PROXY") or env.get("no_proxy") or ""
    for entry in (e.strip().lower() for e in raw.split(",")):
        if not entry:
            continue
        bare = entry.split("://")[-1].split(":")[0].lstrip(".")
        if entry == "*" or host == bare or host.endswith("." + bare):
            return entry
    return None


def choose(base_url: str, proxy_setting: str = "", ca_setting: str = "",
           env: Mapping[str, str] | None = None) -> NetworkChoice:
    env = os.environ if env is None else env
    https = urlsplit(base_url).scheme == "https"
    found = ("flashls.proxy", proxy_setting) if proxy_setting else _env(
        env, PROXY_VARIABLES if https else HTTP_PROXY_VARIABLES)
    skip = bypassed(base_url, env)
    if found is None:
        proxy, proxy_source = None, "none"
    elif skip is not None:
        proxy, proxy_source = None, f"NO_PROXY ({skip}) over {found[0]}"
    else:
        proxy, proxy_source = found[1], found[0]
    if ca_setting:
        ca, ca_source = os.path.expanduser(ca_setting), "flashls.caFile"
    elif env.get("SSL_CERT_FILE"):
        ca, ca_source = env["SSL_CERT_FILE"], "SSL_CERT_FILE"
    elif env.get("SSL_CERT_DIR"):
        ca, ca_source = env["SSL_CERT_DIR"], "SSL_CERT_DIR"
    else:
        ca, ca_source = "bundled roots (certifi)", "default"
    return NetworkChoice(proxy, proxy_source, ca, ca_source)


class NetworkSettingError(ValueError):
    """`flashls.caFile` names no usable certificate file."""


def client_kwargs(proxy_setting: str = "", ca_setting: str = "",
                  env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Options for `httpx.AsyncClient(...)`; empty when the environment decides."""
    env = os.environ if env is None else env
    options: dict[str, Any] = {}
    if ca_setting:
        path = os.path.expanduser(ca_setting)
        try:
            options["verify"] = ssl.create_default_context(cafile=path)
        except (OSError, ssl.SSLError) as err:
            raise NetworkSettingError(
                f"flashls.caFile: cannot load CA certificates from {path}: {err}") from err
    if proxy_setting:
        options["proxy"] = proxy_setting
        direct = no_proxy_patterns(env)
        if direct:
            options["mounts"] = {pattern: None for pattern in direct}  # None: no proxy
    return options


def tls_failure(error: BaseException) -> str | None:
    """Why a TLS handshake failed, in words, when `error` (or its cause) is one."""
    seen = 0
    current: BaseException | None = error
    while current is not None and seen < 8:
        if isinstance(current, ssl.SSLCertVerificationError):
            reason = current.verify_message or current.reason or str(current)
            return (f"the server's certificate was not trusted ({reason}); behind a TLS-"
                    "intercepting proxy set flashls.caFile (or SSL_CERT_FILE) to its CA")
        if isinstance(current, ssl.SSLError):
            return f"the TLS handshake failed ({current.reason or current})"
        text = str(current)
        if "CERTIFICATE_VERIFY_FAILED" in text:
            return (f"the server's certificate was not trusted ({text}); set "
                    "flashls.caFile (or SSL_CERT_FILE) to the CA that signed it")
        current = current.__cause__ or current.__context__
        seen += 1
    return None
