"""Where a provider is called and with which key: its base URL and API key from the
settings, else from the provider's usual environment variables (``OPENAI_API_KEY``,
``OLLAMA_HOST``…), else its defaults.

This is the edge where those variables are read: the registries that build
generators and embedders pass ``os.environ`` (or a test's mapping) in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import RaglineError


@dataclass(frozen=True)
class Endpoint:
    """A provider's resolved base URL (no trailing slash) and API key. ``missing_key``
    is the message to raise at the first call when a key is needed and absent."""

    base_url: str
    api_key: str | None
    missing_key: str | None = None


def resolve_endpoint(*, label: str, default_url: str | None, base_url: str | None = None,
                     api_key: str | None = None, url_env: Sequence[str] = (), key_env: Sequence[str] = (),
                     key_setting: str, needs_key: bool = True, env: Mapping[str, str],
                     url_form: Callable[[str], str] | None = None) -> Endpoint:
    """The endpoint of one provider.

    ``base_url`` and ``api_key`` are the operator's settings (None when unset, or when
    they belong to another provider); the first of ``url_env`` / ``key_env`` set in
    ``env`` comes next (a URL from there passed through ``url_form``, e.g. Ollama's
    ``host:port``); then ``default_url``. A key is missing only when ``needs_key``
    and the URL is the provider's own: a self-hosted server may need none. The
    message names ``key_setting`` and the variables that would supply it, under
    ``label`` ("openai", "the openai embedder").
    """
    if base_url is None:
        from_env = next((env[name] for name in url_env if env.get(name)), None)
        if from_env is not None:
            base_url = url_form(from_env) if url_form is not None else from_env
    default = (default_url or "").rstrip("/")
    resolved = (base_url or default).rstrip("/")
    key = api_key or next((env[name] for name in key_env if env.get(name)), None)
    missing = None
    if key is None and needs_key and resolved == default:
        missing = f"no API key for {label}: set {' or '.join([key_setting, *key_env])}"
    return Endpoint(resolved, key, missing)


def ollama_host(value: str, path: str = "") -> str:
    """``OLLAMA_HOST`` (``host:port`` or a URL) as a URL ending in ``path``."""
    value = value.strip().rstrip("/")
    if "://" not in value:
        value = f"http://{value}"
    return value if value.endswith(path) else f"{value}{path}"


def checked_base_url(name: str, base_url: str, error: type[RaglineError]) -> str:
    """``base_url`` without its trailing slash, or ``error`` if it is not http(s)."""
    if not base_url.startswith(("http://", "https://")):
        raise error(f"{name}: base_url must start with http:// or https://, got {base_url!r}")
    return base_url.rstrip("/")
