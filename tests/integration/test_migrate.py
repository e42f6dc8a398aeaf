"""``ragline migrate``: SQLite → PostgreSQL → Qdrant without re-embedding; keys keep
working, jobs come along, searches answer alike, and a second run copies nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragline.engine import Engine
from ragline.models import Block, Document, Scope
from ragline.settings import EmbedderSettings, Settings, StoreSettings

from tests.pg_server import pg_url  # noqa: F401  (fixture)

SHARED, ANN = Scope("acme", ("kb",)), Scope("acme", ("kb",), "ann")


def _engine(home: Path, url: str | None) -> Engine:
    return Engine(Settings(home=home, embedder=EmbedderSettings(name="hashing"), store=StoreSettings(url=url)))


def _cli(home: Path, url: str | None, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAGLINE_HOME": str(home), "RAGLINE_EMBEDDER__NAME": "hashing"}
    env.pop("RAGLINE_STORE__URL", None)
    if url:
        env["RAGLINE_STORE__URL"] = url
    return subprocess.run([sys.executable, "-m", "ragline", *args], env=env, capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.timeout(300)
def test_migrate_sqlite_to_postgres_to_qdrant(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    home = tmp_path / "home"
    source = _engine(home, None)
    source.add_documents([Document("fees.md", [Block("An unarranged overdraft costs 5 EUR per day.")], title="Fees",
                                   metadata={"year": 2024}),
                          Document("hours.txt", [Block("Branches open at nine and close at five.")])], SHARED)
    source.add_documents([Document("notes.txt", [Block("Ann's private note about her overdraft.")])], ANN)
    source.ensure_tenant("acme")
    _, secret = source.create_api_key("acme", "kept")
    job = source.create_job(SHARED, doc_id="d", source="x.txt", kind="file", path="/kept/x.txt")
    before = [(h.chunk_id, round(h.score, 5)) for h in source.search("overdraft fee", ANN, k=5).hits]
    source.close()

    qdrant = f"qdrant://{tmp_path}/qdrant"
    result = _cli(home, None, "migrate", "--to", pg_url, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"tenants": 1, "collections": 1, "documents": 3, "documents_unchanged": 0,
                                         "chunks": 3, "keys": 1, "jobs": 1, "transactions": 0, "conversations": 0,
                                         "usage_rows": 1, "uploads": 0}
    again = json.loads(_cli(home, None, "migrate", "--to", pg_url, "--json").stdout)
    assert again["documents"] == again["keys"] == again["jobs"] == 0 and again["documents_unchanged"] == 3

    # Chained: PostgreSQL → Qdrant, whose catalog is the default SQLite file in home: the very
    # file the data came from, so the catalog has it all and only the index is filled.
    result = _cli(home, pg_url, "migrate", "--to", qdrant, "--tenant", "acme", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["documents_unchanged"] == 3

    for url in (pg_url, qdrant):
        target = _engine(home, url)
        try:
            # Match counters came along (the source's search counted each hit once), and usage rows.
            assert {c: n for c, (n, _) in target.store.chunk_matches(ANN, [c for c, _ in before]).items()} == {
                c: 1 for c, _ in before}
            assert target.usage_report("acme")["texts_embedded"] == 3
            after = [(h.chunk_id, round(h.score, 5)) for h in target.search("overdraft fee", ANN, k=5).hits]
            assert [c for c, _ in after] == [c for c, _ in before], url
            assert target.verify_api_key(secret).tenant == "acme"  # the key's hash came along
            assert target.get_job("acme", job.id).path == "/kept/x.txt"
            assert {d.source for d in target.list_documents(SHARED)} == {"fees.md", "hours.txt"}
            assert [d.metadata for d in target.list_documents(SHARED) if d.source == "fees.md"] == [{"year": 2024}]
            assert all(h.owner is None for h in target.search("private note", SHARED, k=5).hits)
            assert {d.source: d.owner for d in target.list_documents(ANN)}["notes.txt"] == "ann"
        finally:
            target.close()


def test_migrate_to_a_bad_url_is_a_clear_error(tmp_path: Path) -> None:
    result = _cli(tmp_path / "home", None, "migrate", "--to", "mysql://x/y")
    assert result.returncode == 2 and "RAGLINE_STORE__URL" in result.stderr and "mysql" in result.stderr
