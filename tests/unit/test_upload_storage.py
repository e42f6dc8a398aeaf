"""Kept uploads behind their seam (server/uploads.py): the local folder and the
catalog keep the same bytes, a job's read is scoped to its tenant, collection and
owner wherever the file is kept, and a job reads its file from wherever its path
says, whatever the setting is now. Real files, a real SQLite store."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from ragline.engine import Engine
from ragline.errors import NotFoundError
from ragline.models import Scope
from ragline.server.uploads import CATALOG, Uploads

ACME = Scope("acme", ("docs",), None)
OTHERS = (Scope("globex", ("docs",), None), Scope("acme", ("other",), None), Scope("acme", ("docs",), "ann"))
DATA = b"%PDF-1.4 not really, but bytes: \x00\xff" * 50_000  # 1.7 MB: two parts in the catalog


@pytest.fixture(params=["local", "catalog"])
def uploads(request, engine: Engine, settings) -> Uploads:
    for tenant in ("acme", "globex"):
        engine.ensure_tenant(tenant)
    return Uploads(settings.home, engine, request.param)


def test_a_kept_file_reads_back_whole_and_is_removed_with_its_document(uploads: Uploads) -> None:
    doc_id, key = uploads.save_file(ACME, "report.pdf", io.BytesIO(DATA), password="s3cret")
    assert key.startswith(CATALOG) == (uploads.storage is uploads.catalog)
    with uploads.open(ACME, key) as path:
        assert path.name == "report.pdf" and path.read_bytes() == DATA
    assert uploads.password(ACME, key) == "s3cret"
    uploads.forget_password(ACME, key)
    assert uploads.password(ACME, key) is None
    _, source, text_key = uploads.save_text(ACME, "Some text.", "note", "A title", {"k": 1})
    loaded = uploads.load_text(ACME, text_key)
    assert (loaded.source, loaded.text, loaded.title, loaded.metadata) == ("note", "Some text.", "A title", {"k": 1})
    uploads.remove_document(ACME, doc_id)
    with pytest.raises(NotFoundError), uploads.open(ACME, key) as path:
        path.read_bytes()
    uploads.remove_collection("acme", "docs")
    with pytest.raises((NotFoundError, FileNotFoundError)):
        uploads.load_text(ACME, text_key)


def test_a_job_reads_only_its_own_scope(uploads: Uploads) -> None:
    _, key = uploads.save_file(ACME, "report.pdf", io.BytesIO(DATA))
    for other in OTHERS[:2]:  # another tenant or collection: never read, wherever it is kept
        with pytest.raises(NotFoundError), uploads.open(other, key) as path:
            path.read_bytes()
    if uploads.storage is uploads.catalog:  # the owner is part of the catalog's key too
        with pytest.raises(NotFoundError), uploads.open(OTHERS[2], key) as path:
            path.read_bytes()


def test_a_local_path_outside_the_collection_is_refused(uploads: Uploads, tmp_path: Path) -> None:
    """A job's path was used as it was: one naming another tenant's folder (or any file)
    would have been read. Now it must lie in the job's own collection folder."""
    secret = tmp_path / "elsewhere.txt"
    secret.write_text("not an upload")
    other_key = uploads.local.put(Scope("globex", ("docs",), None), "d1", "theirs.txt", io.BytesIO(b"theirs"))
    for key in (str(secret), other_key, str(uploads.local.collection_dir("acme", "docs") / ".." / ".." / "x")):
        with pytest.raises(NotFoundError), uploads.open(ACME, key) as path:
            path.read_bytes()


def test_a_job_reads_its_file_wherever_it_was_kept(engine: Engine, settings) -> None:
    """Switching server.upload_storage loses nothing already kept."""
    engine.ensure_tenant("acme")
    local, catalog = Uploads(settings.home, engine, "local"), Uploads(settings.home, engine, "catalog")
    _, local_key = local.save_file(ACME, "a.txt", io.BytesIO(b"kept locally"))
    _, catalog_key = catalog.save_file(ACME, "b.txt", io.BytesIO(b"kept in the catalog"))
    for uploads in (local, catalog):
        with uploads.open(ACME, local_key) as a, uploads.open(ACME, catalog_key) as b:
            assert (a.read_bytes(), b.read_bytes()) == (b"kept locally", b"kept in the catalog")
    assert [p.endswith("/d/") or p == f"{CATALOG}d/" for p in catalog.origin_prefixes(ACME, "d")] == [True, True]
