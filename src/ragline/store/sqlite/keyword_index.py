"""The keyword side index of a large SQLite collection: BM25 over the chunks' terms
in tantivy (Rust, via ``tantivy`` from PyPI).

FTS5 scores every row a query term matches before it can order them, so a query
costs time in proportion to its terms' posting lists: at a million chunks that is
hundreds of milliseconds (docs/scaling.md has the figures). Tantivy's block-max
WAND skips the postings that cannot reach the top k, and answers the same query in
about a millisecond with nearly the same top 10 (BM25 with k1 = 1.2, b = 0.75, like
FTS5; lengths are quantised, so near-ties may swap).

The terms are the ones ragline's analyzer made at ingest (stored in the collection's
FTS5 table, which stays the system of record and the fallback), indexed with
tantivy's whitespace tokenizer so both see exactly the same tokens. Documents are
labelled by chunk rowid (a fast field); one index per collection, so IDF and
average length stay per collection, as in FTS5. Kept in step and persisted like
the HNSW index (``ann``): the manifest names the index directory.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import cast

import numpy as np


class TantivyIndex:
    """One collection's tantivy index, in its own directory."""

    def __init__(self, directory: Path, *, create: bool) -> None:
        import tantivy

        self._tantivy = tantivy
        self.directory = directory
        self.lock = threading.RLock()
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("terms", stored=False, tokenizer_name="whitespace")
        builder.add_integer_field("rid", stored=False, indexed=True, fast=True)
        self.schema = builder.build()
        if create:
            directory.mkdir(parents=True, exist_ok=True)
        self.index = tantivy.Index(self.schema, path=str(directory), reuse=not create)
        self.index.reload()

    @classmethod
    def load(cls, directory: Path) -> TantivyIndex | None:
        """The index in ``directory``, or None when it is missing or unreadable."""
        if not (directory / "meta.json").is_file():
            return None
        try:
            return cls(directory, create=False)
        except (ValueError, OSError, RuntimeError):
            return None

    @property
    def entries(self) -> int:
        return self.index.searcher().num_docs

    def update(self, added: list[tuple[int, str]], removed: np.ndarray, *, threads: int = 1) -> None:
        """Delete ``removed`` rowids, add (rowid, terms) pairs, commit once."""
        if not added and not len(removed):
            return
        with self.lock:
            writer = self.index.writer(heap_size=64_000_000 * max(1, threads), num_threads=threads)
            try:
                for rowid in removed.tolist():
                    writer.delete_documents_by_term("rid", int(rowid))
                for rowid, terms in added:
                    writer.add_document(self._tantivy.Document(terms=terms, rid=int(rowid)))
                writer.commit()
                writer.wait_merging_threads()
            except BaseException:
                writer.rollback()
                raise
            self.index.reload()

    def search(self, terms: list[str], k: int) -> tuple[list[int], list[float]]:
        """(rowids, BM25 scores), best first, any term matching."""
        tantivy = self._tantivy
        if not terms or k <= 0:
            return [], []
        clauses = [(tantivy.Occur.Should, tantivy.Query.term_query(self.schema, "terms", t)) for t in terms]
        query = tantivy.Query.boolean_query(clauses)
        searcher = self.index.searcher()
        hits = searcher.search(query, k, count=False).hits
        if not hits:
            return [], []
        # "rid" is an integer fast field that every document has: no value is None (or a float).
        rowids = cast("list[int]", searcher.fast_field_values("rid", [address for _, address in hits]))
        return [int(r) for r in rowids], [float(score) for score, _ in hits]
