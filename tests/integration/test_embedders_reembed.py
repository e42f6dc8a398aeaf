"""Model swap without a wipe, end to end: a collection filled through a (fake)
remote embedder is moved to MiniLM with ``reembed`` while another engine keeps
searching it; the old engine then gets an error naming both models."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ragline.embed.registry import settings_for
from ragline.engine import Engine
from ragline.errors import ConfigError, ModelMismatchError
from ragline.models import Block, Document, Scope
from ragline.settings import EmbedderSettings, Settings
from tests.fakes.embedding_servers import FakeEmbeddingServer

S = Scope("acme", ("kb",))
DOCS = {"fees.txt": "Card fees are waived for students under 26.",
        "transfers.txt": "International transfers take two business days.",
        "branches.txt": "Branches open at nine and close at five."}


def test_remote_to_minilm_while_searches_keep_answering(tmp_path: Path, minilm) -> None:
    with FakeEmbeddingServer("openai") as server:
        remote = EmbedderSettings(name="openai", base_url=server.base_url, model="embed-model", api_key=server.key)
        old = Engine(Settings(home=tmp_path, embedder=remote))
        new = Engine(Settings(home=tmp_path), embedder=minilm)
        try:
            old.add_documents([Document(s, [Block(t)]) for s, t in DOCS.items()], S)
            answered, failures, stop = [], [], threading.Event()

            def keep_searching() -> None:
                while not stop.is_set():
                    try:
                        answered.append(old.search("student card fees", S, mode="dense", k=1).hits[0].source)
                    except ModelMismatchError:
                        return  # the switch happened: the old engine is told, see below
                    except Exception as exc:  # noqa: BLE001  (any other failure fails the test)
                        failures.append(exc)
                        return

            searcher = threading.Thread(target=keep_searching)
            searcher.start()
            during: list[int] = []

            def progress(done: int, total: int) -> None:  # mid-reembed: wait for the old engine to answer again
                seen = len(answered)
                for _ in range(500):
                    if len(answered) > seen or failures:
                        during.append(done)
                        return
                    threading.Event().wait(0.01)

            report = new.reembed(S, progress=progress)
            stop.set()
            searcher.join()
            assert not failures and during and set(answered) == {"fees.txt"}
            assert report.switched and (report.old_model, report.new_model) == ("openai/embed-model", minilm.model_id)
            assert new.search("When do branches open?", S, mode="dense", k=1).hits[0].source == "branches.txt"
            with pytest.raises(ModelMismatchError, match=r"built with sentence-transformers/all-MiniLM-L6-v2 "
                                                         r"\(dim 384\); it cannot be opened with openai/embed-model "
                                                         r".*ragline reembed --collection kb"):
                old.search("student card fees", S)
            assert old.search("student card fees", S, mode="keyword").hits  # keyword needs no model
        finally:
            old.close()
            new.close()


@pytest.mark.parametrize(("model", "name", "chosen"), [
    ("minilm", "minilm", None), ("sentence-transformers/all-MiniLM-L6-v2", "minilm", None),
    ("openai/text-embedding-3-large", "openai", "text-embedding-3-large"), ("ollama/bge-m3", "ollama", "bge-m3"),
])
def test_reembed_model_names(model: str, name: str, chosen: str | None) -> None:
    configured = EmbedderSettings(name="gemini", api_key="secret", base_url="https://gemini.example")
    settings = settings_for(model, configured)
    assert (settings.name, settings.model) == (name, chosen)
    assert settings.api_key is None and settings.base_url is None  # the Gemini key never goes to another provider


def test_unknown_reembed_model_lists_the_embedders() -> None:
    with pytest.raises(ConfigError, match="name an embedder \\(minilm, hashing, openai"):
        settings_for("nope", EmbedderSettings())


def test_cli_reembed(tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    for source, text in DOCS.items():
        (folder / source).write_text(text)
    env = {**os.environ, "RAGLINE_HOME": str(tmp_path / "home"), "RAGLINE_EMBEDDER__NAME": "hashing"}

    def run(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ragline", *args], capture_output=True, text=True, check=False,
                              env={**env, **extra}, timeout=120, cwd=tmp_path)

    assert run("ingest", str(folder), "-t", "acme", "-c", "kb").returncode == 0
    result = run("reembed", "--model", "minilm", "-t", "acme", "-c", "kb", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["switched"] and report["chunks"] == 3 and report["new_model"].endswith("all-MiniLM-L6-v2")
    assert "reembed kb: 3/3 chunks" in result.stderr
    stale = run("search", "branches", "-t", "acme", "-c", "kb")  # still configured with hashing
    assert stale.returncode == 1 and "ragline reembed --collection kb" in stale.stderr
    fresh = run("search", "When do branches open?", "-t", "acme", "-c", "kb", "--json", RAGLINE_EMBEDDER__NAME="minilm")
    assert fresh.returncode == 0 and "branches.txt" in fresh.stdout
