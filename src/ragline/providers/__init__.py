"""Provider plumbing below ``embed/``, ``answer/`` and ``records/``: what the answer
generators, the remote embedders and the bank connector share.

    ProviderClient    HTTP calls with retries and backoff (``Retry-After`` honoured),
                      failures raised as the caller's error class
    CallPolicy        a call's timeout and retries: the one place they are decided
    Retry             raised by a caller's reply check to have the call attempted again
    resolve_endpoint  a provider's base URL and API key: settings, else its usual
                      environment variables, else its defaults (an ``Endpoint``)

It imports ``errors``, httpx and tenacity, and nothing of the stages that use it.
"""

from __future__ import annotations

from .client import ProviderClient, Retry, error_message, json_object
from .endpoint import Endpoint, checked_base_url, ollama_host, resolve_endpoint
from .policy import RETRY_STATUS, CallPolicy, retry_after

__all__ = [
    "RETRY_STATUS", "CallPolicy", "Endpoint", "ProviderClient", "Retry", "checked_base_url", "error_message",
    "json_object", "ollama_host", "resolve_endpoint", "retry_after",
]
