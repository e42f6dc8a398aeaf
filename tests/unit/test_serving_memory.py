"""Serving-cost settings: the ONNX Runtime session is built without spinning threads
(so a shared machine's cores are not held) and with the CPU arena (faster, and a
lower peak than malloc's fragmentation gave), embeddings are unchanged by either,
and the searcher reports the fusion stage's time."""

from __future__ import annotations

import numpy as np
import pytest

from ragline.embed.minilm import MiniLMEmbedder
from ragline.models import Scope


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("models")


def _options(embedder: MiniLMEmbedder):
    return embedder._get_session().get_session_options()


def test_session_does_not_spin_and_keeps_its_arena(cache):
    embedder = MiniLMEmbedder(cache_dir=cache)
    opts = _options(embedder)
    assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert opts.enable_cpu_mem_arena is True
    assert opts.intra_op_num_threads == embedder.threads


def test_spinning_and_the_arena_can_be_switched(cache):
    class Spinning(MiniLMEmbedder):
        spin = True
        arena = False

    opts = _options(Spinning(cache_dir=cache))
    assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "1"
    assert opts.enable_cpu_mem_arena is False


def test_vectors_do_not_depend_on_the_session_options(cache):
    class Spinning(MiniLMEmbedder):
        spin = True
        arena = False

    texts = ["Aspirin lowers the risk of a second heart attack.", "short", "x " * 300]
    plain = MiniLMEmbedder(cache_dir=cache, batch_size=2).embed_documents(texts)
    other = Spinning(cache_dir=cache, batch_size=2).embed_documents(texts)
    np.testing.assert_allclose(plain, other, atol=1e-5)


def test_hybrid_search_reports_the_fusion_stage(engine, tmp_path):
    scope = Scope("t1", ("docs",))
    doc = tmp_path / "fees.md"
    doc.write_text("Overdraft fees are charged monthly.\n\nCards can be frozen in the app.\n")
    summary = engine.ingest([doc], scope)
    assert not summary.failed
    result = engine.search("overdraft fees", scope, mode="hybrid", k=3)
    assert set(result.timings_ms) >= {"embed", "dense", "keyword", "fuse", "fetch"}
    assert result.hits and "verdraft" in result.hits[0].text
    dense_only = engine.search("overdraft fees", scope, mode="dense", k=3)
    assert "fuse" not in dense_only.timings_ms


def test_keyword_search_reaches_past_hits_the_scope_cannot_see(engine, tmp_path):
    """The keyword side cuts the FTS5 ranking at k before reading chunk rows; when
    another owner's private chunks fill that cut, the visible ones further down
    must still come back, in BM25 order, and nothing private leaks."""
    shared, alice, bob = Scope("t1", ("docs",)), Scope("t1", ("docs",), "alice"), Scope("t1", ("docs",), "bob")
    for i in range(6):  # alice's private notes match "overdraft fee" best (short, both terms)
        note = tmp_path / f"alice{i}.md"
        note.write_text(f"Overdraft fee note {i}.\n")
        assert not engine.ingest([note], alice).failed
    policy = tmp_path / "policy.md"
    policy.write_text("The overdraft policy explains when a fee applies to accounts held at the branch "
                      "and how customers are told in advance about charges.\n")
    other = tmp_path / "other.md"
    other.write_text("An overdraft is an arranged borrowing limit on a current account held with the bank.\n")
    assert not engine.ingest([policy, other], shared).failed

    for scope in (bob, shared):
        hits = engine.search("overdraft fee", scope, mode="keyword", k=2).hits
        assert [h.source.rsplit("/", 1)[-1] for h in hits] == ["policy.md", "other.md"]
    mine = engine.search("overdraft fee", alice, mode="keyword", k=2).hits
    assert all(h.source.rsplit("/", 1)[-1].startswith("alice") for h in mine) and len(mine) == 2
    everything = engine.search("overdraft fee", bob, mode="keyword", k=50).hits
    assert len(everything) == 2


def test_batches_are_capped_by_padded_tokens(cache):
    from ragline.embed.bert import TOKEN_BUDGET

    embedder = MiniLMEmbedder(cache_dir=cache, batch_size=32)
    lengths = [10] * 40 + [256] * 40  # ascending, as _embed sorts them
    batches = embedder._batches(list(range(80)), lengths)
    assert sorted(i for b in batches for i in b) == list(range(80))
    assert max(len(b) for b in batches) == 32  # short texts still go 32 at a time
    for b in batches:
        assert len(b) == 1 or len(b) * max(lengths[i] for i in b) <= TOKEN_BUDGET
    assert all(len(b) <= 16 for b in batches if any(lengths[i] == 256 for i in b))
    # A long text in a full batch comes out as it does alone.
    texts = ["word " * 400] + ["short text"] * 20
    together = embedder.embed_documents(texts)
    alone = MiniLMEmbedder(cache_dir=cache, batch_size=1).embed_documents(texts[:2])
    np.testing.assert_allclose(together[:2], alone, atol=1e-5)
