"""Issue 29: the server and its ingestion child built the embedding model's cached
graphs into the data directory at once (on a small disk both failed and a 50 MB
``.tmp`` stayed behind). Building is now done under the cache folder's lock file,
so a second process waits and finds the graphs built, and a failed cache write
leaves no temporary file."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragline.embed.graph_cache import LOCK_NAME, write_atomic

WARM = """
import sys
from ragline.embed.minilm import MiniLMEmbedder
MiniLMEmbedder(cache_dir=sys.argv[1], precision="int8").warm_up()
print("ready", flush=True)
"""


def _blocked_on_a_lock(pid: int) -> bool:
    """Whether the process sleeps in the kernel waiting for a file lock (flock)."""
    wchan = Path(f"/proc/{pid}/wchan").read_text()
    return "locks_lock" in wchan or "flock" in wchan


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp" in p.name)


@pytest.mark.timeout(300)
def test_a_second_process_waits_for_the_cache_lock_and_writes_nothing_meanwhile(tmp_path: Path) -> None:
    cache = tmp_path / "models"
    cache.mkdir()
    with open(cache / LOCK_NAME, "a+b") as held:  # another process materialising the model
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        child = subprocess.Popen([sys.executable, "-c", WARM, str(cache)], stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while child.poll() is None and not _blocked_on_a_lock(child.pid):
            assert time.monotonic() < deadline, "the child neither built the model nor waited for the lock"
            time.sleep(0.05)
        assert child.poll() is None, "the child built the model while another process held the lock"
        assert sorted(p.name for p in cache.iterdir()) == [LOCK_NAME]  # nothing written meanwhile
    out, _ = child.communicate(timeout=240)
    assert child.returncode == 0 and out.strip() == "ready"
    assert any(p.name.endswith(".onnx") for p in cache.iterdir()) and _leftovers(cache) == []


def test_a_failed_cache_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "graph.onnx"
    target.mkdir()  # the final rename cannot replace a folder: the write fails after the data was written
    assert write_atomic(target, b"x" * 1_000_000) is False
    assert _leftovers(tmp_path) == []
    assert write_atomic(tmp_path / "other.onnx", b"graph") is True and (tmp_path / "other.onnx").read_bytes() == b"graph"
