"""Records: typed rows kept queryable as data (bank transactions), each with a
one-line text summary that is embedded and searched like any other text.

- ``model``: ``Transaction``, ``TransactionQuery``, ``Aggregate``, money formatting.
- ``importers``: CSV (column mapping, EU/US formats), JSON, OFX/QFX → transactions.
- ``documents``: transactions → searchable documents (statement lines, monthly summaries).
- ``router``: is a question a money question, and which one.
- ``exact``: answer a money question from the records, to the cent.
- ``truelayer``: the TrueLayer Data API connector.
- ``service``: what the Engine exposes (import, list, answer).

This package imports nothing at import time beyond ``model``'s standard library.
"""
