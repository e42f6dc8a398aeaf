"""Keyword and hybrid retrieval on a Spanish knowledge base, English analyzer
against the Spanish one (stopwords + Snowball stemmer), same documents, same
questions, same embedder (MiniLM, an English model: the dense half is fixed).

The knowledge base (bench/spanish/docs, 24 short banking pages) and its 48
questions with the one page that answers each (bench/spanish/questions.jsonl)
were written for this measurement, before it was run.

    .venv/bin/python bench/spanish_keyword.py   # writes bench/spanish.json and bench/spanish.md
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from ragline.engine import Engine
from ragline.eval.metrics import mrr_at_k, ndcg_at_k, recall_at_k
from ragline.models import Scope
from ragline.settings import ChunkingSettings, SearchSettings, Settings

HERE = Path(__file__).resolve().parent
DATA = HERE / "spanish"
SCOPE = Scope("bench", ("es",))
K = 10


def measure(language: str, questions: list[dict[str, str]], embedder) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as home:
        settings = Settings(home=Path(home), search=SearchSettings(language=language),
                            chunking=ChunkingSettings(method="none"))  # one chunk per page: pages are short
        engine = Engine(settings, embedder=embedder)
        try:
            summary = engine.ingest([DATA / "docs"], SCOPE)
            assert summary.added == 24 and not summary.failed, summary.to_dict()
            out = {}
            for mode in ("keyword", "hybrid"):
                scores = {"ndcg@10": 0.0, "recall@1": 0.0, "recall@3": 0.0, "mrr@10": 0.0}
                for q in questions:
                    ranked = [Path(h.source).name for h in engine.search(q["question"], SCOPE, mode=mode, k=K).hits]
                    judged = {q["doc"]: 1}
                    scores["ndcg@10"] += ndcg_at_k(ranked, judged, K)
                    scores["recall@1"] += recall_at_k(ranked, judged, 1)
                    scores["recall@3"] += recall_at_k(ranked, judged, 3)
                    scores["mrr@10"] += mrr_at_k(ranked, judged, K)
                out[mode] = {name: round(total / len(questions), 4) for name, total in scores.items()}
            return out
        finally:
            engine.close()


def main() -> None:
    from ragline.embed.minilm import MiniLMEmbedder

    questions = [json.loads(line) for line in (DATA / "questions.jsonl").read_text().splitlines() if line.strip()]
    embedder = MiniLMEmbedder()
    results = {"questions": len(questions), "documents": 24, "embedder": embedder.model_id,
               "analyzers": {lang: measure(lang, questions, embedder) for lang in ("english", "spanish")}}
    (HERE / "spanish.json").write_text(json.dumps(results, indent=2) + "\n")
    lines = ["| mode | analyzer | nDCG@10 | recall@1 | recall@3 | MRR@10 |", "| --- | --- | --- | --- | --- | --- |"]
    for mode in ("keyword", "hybrid"):
        for lang in ("english", "spanish"):
            s = results["analyzers"][lang][mode]
            lines.append(f"| {mode} | {lang} | {s['ndcg@10']:.3f} | {s['recall@1']:.3f} | {s['recall@3']:.3f} "
                         f"| {s['mrr@10']:.3f} |")
    table = "\n".join(lines) + "\n"
    (HERE / "spanish.md").write_text(f"Spanish knowledge base: {len(questions)} questions, 24 pages "
                                     f"(`bench/spanish_keyword.py`).\n\n{table}")
    sys.stdout.write(table)


if __name__ == "__main__":
    main()
