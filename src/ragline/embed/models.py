"""The facts of the embedding models ragline knows: native dimension, input limit
in tokens, measured abstain floor; and the bundled default model's id and how to
install its weights. The registry and the implementations both read them here.
"""

from __future__ import annotations

from dataclasses import dataclass

MINILM = "sentence-transformers/all-MiniLM-L6-v2"  # the bundled default model
MINILM_INSTALL_HINT = "ragline models install"  # how its weights are installed


@dataclass(frozen=True)
class ModelFacts:
    """What is known of one model id: its native dimension, the input length it
    reads before cutting (tokens), and the cosine floor below which ragline abstains
    (measured by scripts/measure_abstain_floor.py; None: not measured, so abstain only
    when nothing is found unless ``answer.relevance_floor`` is set)."""

    dimension: int
    max_tokens: int | None
    abstain_floor: float | None = None


MODELS: dict[str, ModelFacts] = {
    # SciFact train, table in docs/answers.md. The lexical hashing embedder separates
    # in-corpus from off-topic questions with AUC 0.73 only: no floor.
    MINILM: ModelFacts(384, 254, 0.39),  # 256 with [CLS] and [SEP]
    "ragline/hashing-v1": ModelFacts(256, None),
    # Providers' published limits; floors not measured (no network here).
    "openai/text-embedding-3-small": ModelFacts(1536, 8191),
    "openai/text-embedding-3-large": ModelFacts(3072, 8191),
    "openai/text-embedding-ada-002": ModelFacts(1536, 8191),
    "gemini/text-embedding-004": ModelFacts(768, 2048),
    "gemini/gemini-embedding-001": ModelFacts(3072, 2048),
    "ollama/nomic-embed-text": ModelFacts(768, 2048),  # Ollama's default context, not the model's 8192
}


def model_facts(model_id: str) -> ModelFacts | None:
    """What is known of ``model_id`` (None for models without facts here)."""
    return MODELS.get(model_id)
