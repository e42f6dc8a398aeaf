"""Local fake servers for tests (real HTTP on 127.0.0.1 threads)."""

from .llm import FakeLLMServer, Recorded, Reply, Slow, Status, quote_first_source

__all__ = ["FakeLLMServer", "Recorded", "Reply", "Slow", "Status", "quote_first_source"]
