"""Provider plumbing below ``embed/``, ``answer/`` and ``records/``: what the answer
generators, the remote embedders and the bank connector share.

- ``client.py``: ``ProviderClient``, HTTP calls with retries and backoff
  (``Retry-After`` honoured), every failure raised as the caller's error class;
  ``Retry``, raised by a caller's reply check to have a call attempted again.
- ``policy.py``: ``CallPolicy``, a call's timeout, retries, deadline and reply cap, decided in one place.
- ``endpoint.py``: ``resolve_endpoint``, a provider's base URL and API key (settings,
  else its usual environment variables, else its defaults).

The package imports nothing itself: building a registry (``endpoint.py``) must not
load the HTTP stack that only a remote call needs (``client.py``: httpx, tenacity).
Its modules import ``errors`` and third-party libraries, nothing of the stages.
"""
