"""Retrieval evaluation on BEIR-format datasets, and speed benchmarks."""

from .beir import BeirDataset, load_dataset, load_qrels, load_queries
from .metrics import DEFAULT_METRICS, evaluate, mrr_at_k, ndcg_at_k, per_query, recall_at_k

__all__ = ["DEFAULT_METRICS", "BeirDataset", "evaluate", "load_dataset", "load_qrels", "load_queries",
           "mrr_at_k", "ndcg_at_k", "per_query", "recall_at_k"]
