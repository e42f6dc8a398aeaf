"""Embedding throughput: ragline's MiniLMEmbedder (and sentence-transformers when
available) on 2,000 SciFact-derived texts of ~200 wordpiece tokens.

    .venv/bin/python scripts/bench_embed.py                   # ragline only
    HF_HUB_OFFLINE=1 /work/refvenv/bin/python scripts/bench_embed.py  # + sentence-transformers fp32, ratio

``measure(texts)`` is importable for ``make bench``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def _import_minilm():
    """Import ragline.embed.minilm; in the reference venv, which lacks ragline's
    other runtime deps, load it without running the package ``__init__``s."""
    try:
        import ragline.embed.minilm as mod
    except ImportError:
        import types

        for name in [m for m in sys.modules if m == "ragline" or m.startswith("ragline.")]:
            del sys.modules[name]
        for name in ("ragline", "ragline.embed"):
            stub = types.ModuleType(name)
            stub.__path__ = [str(ROOT / "src" / name.replace(".", "/"))]
            sys.modules[name] = stub
        import ragline.embed.minilm as mod
    return mod


_minilm = _import_minilm()
MiniLMEmbedder, load_tokenizer, default_model_dir = _minilm.MiniLMEmbedder, _minilm.load_tokenizer, _minilm.default_model_dir

CORPUS = ROOT.parent / "shared" / "datasets" / "scifact" / "corpus.jsonl"


def make_texts(n: int = 2000, tokens: int = 200, corpus: Path = CORPUS) -> list[str]:
    """``n`` texts of ~``tokens`` wordpieces: SciFact title + abstract, cut at
    token ``tokens`` (short abstracts are joined with the next one)."""
    tok = load_tokenizer()
    texts, buf = [], ""
    with corpus.open(encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            buf = f"{buf} {doc.get('title', '')}. {doc.get('text', '')}".strip()
            enc = tok.encode(buf, add_special_tokens=False)
            if len(enc.ids) < tokens:
                continue
            texts.append(buf[: enc.offsets[tokens - 1][1]])
            buf = ""
            if len(texts) == n:
                return texts
    raise SystemExit(f"{corpus}: only {len(texts)} texts of {tokens} tokens available")


def _timed(embed, texts: Sequence[str]) -> tuple[float, object]:
    embed(list(texts[:64]))  # warm-up: lazy load, thread pools, allocator
    t0 = time.perf_counter()
    out = embed(list(texts))
    return time.perf_counter() - t0, out


def measure(texts: Sequence[str], embedder: MiniLMEmbedder | None = None) -> dict:
    """Throughput of ``embedder`` (default: a fresh MiniLMEmbedder) on ``texts``."""
    embedder = embedder or MiniLMEmbedder()
    secs, out = _timed(embedder.embed_documents, texts)
    return {
        "embedder": "ragline-onnx-fp32",
        "model_id": embedder.model_id,
        "n_texts": len(texts),
        "batch_size": embedder.batch_size,
        "threads": embedder.threads,
        "seconds": round(secs, 3),
        "texts_per_s": round(len(texts) / secs, 1),
        "_embeddings": out,
    }


def measure_sentence_transformers(texts: Sequence[str], batch_size: int = 32) -> dict:
    """Same measurement for sentence-transformers + torch fp32 (reference venv only)."""
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(default_model_dir()), device="cpu")
    secs, out = _timed(lambda t: model.encode(t, batch_size=batch_size, normalize_embeddings=True), texts)
    return {
        "embedder": f"sentence-transformers fp32 (torch {torch.__version__}, {torch.get_num_threads()} threads)",
        "n_texts": len(texts),
        "seconds": round(secs, 3),
        "texts_per_s": round(len(texts) / secs, 1),
        "_embeddings": out,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=2000)
    ap.add_argument("--tokens", type=int, default=200)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()

    texts = make_texts(args.n, args.tokens)
    ours = measure(texts, MiniLMEmbedder(batch_size=args.batch_size, threads=args.threads))
    results = [ours]
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        pass
    else:
        import numpy as np

        ref = measure_sentence_transformers(texts, args.batch_size)
        cos = (np.asarray(ours["_embeddings"]) * np.asarray(ref["_embeddings"])).sum(axis=1)
        ref["speedup_ragline_vs_st"] = round(ours["texts_per_s"] / ref["texts_per_s"], 2)
        ref["cosine_min"], ref["cosine_mean"] = round(float(cos.min()), 6), round(float(cos.mean()), 6)
        results.append(ref)
    for r in results:
        print(json.dumps({k: v for k, v in r.items() if not k.startswith("_")}))


if __name__ == "__main__":
    main()
