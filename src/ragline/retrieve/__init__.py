"""Retrieval: keyword analysis, fusion, and the hybrid searcher."""
