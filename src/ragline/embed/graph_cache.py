"""Cold-start caches for the ONNX encoder (issue 13): what a fresh ``ragline search``
would otherwise redo on every run.

- ``weights_digest``: the SHA-256 of ``model.safetensors`` (90 MB for MiniLM, ~70 ms
  of CPU) names the cached graph, and that of the fp32 graph names its int8 version;
  it is remembered beside the cache, keyed by the file's path, inode, size, mtime and
  ctime (which no tool can set back), so an unchanged file is not re-read. A file
  changed in the last seconds is not remembered: two writes within one timestamp tick
  could otherwise share a key.
- ``mapped_graph``: the same graph re-saved with its weights as ONNX *external data*.
  ONNX Runtime maps an external-data file instead of parsing 90 MB of protobuf and
  copying every initializer: session creation takes about half the CPU (0.09 s
  against 0.20 s measured). The outputs are identical (same graph, same weights).

Both are best effort: any failure (read-only cache dir, no ``onnx`` package) falls
back to the self-contained graph.

- ``materialising``: the cache folder's lock file, held while graphs are built and
  written. The server and its ingestion child start together and would otherwise both
  build the same graphs and write them into the data directory at once (on a small
  disk: both writes fail and a 50 MB ``.tmp`` stays behind); the second waits and
  finds them built. No write leaves a temporary file behind when it fails.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

LOCK_NAME = ".materialise.lock"
SETTLED_S = 2.0  # a file younger than this is hashed, not remembered
MAPPED_SUFFIX = ".onnx-mapped"  # not "*.onnx": tools that list cached graphs see one per model


def weights_digest(weights: Path, cache_dir: Path) -> str:
    """The hex SHA-256 of ``weights``, remembered in ``cache_dir`` per (path, inode, size, mtime, ctime)."""
    stat = weights.stat()
    key = hashlib.sha256(f"{weights.resolve()}\0{_identity(stat)}".encode()).hexdigest()[:24]
    memo = cache_dir / f"digest-{key}.txt"
    try:
        known = memo.read_text().strip()
        if len(known) == 64:
            return known
    except OSError:
        pass
    digest = hashlib.sha256()
    with weights.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            digest.update(chunk)
    hexdigest = digest.hexdigest()
    if time.time() - max(stat.st_mtime, stat.st_ctime) < SETTLED_S or _identity(weights.stat()) != _identity(stat):
        return hexdigest  # still being written, or just was
    write_atomic(memo, hexdigest.encode())
    return hexdigest


def write_atomic(path: Path, data: bytes) -> bool:
    """Write ``path`` whole or not at all (best effort: a read-only or full cache dir
    must not break embedding); a failed write leaves no temporary file. True if written."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
        return True
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        return False


@contextlib.contextmanager
def materialising(cache_dir: Path) -> Iterator[None]:
    """Hold ``cache_dir``'s lock file (``flock``, released when the holder exits, however
    it exits): one process at a time builds and writes the cached graphs, the others
    wait and then find them. Without a writable folder or ``fcntl``, no lock (a
    read-only cache dir is written by nobody)."""
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        handle = open(cache_dir / LOCK_NAME, "a+b")  # noqa: SIM115 — held for the block
    except OSError:
        yield
        return
    with handle:
        try:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        except (ImportError, OSError):
            pass  # no locking here: the writes are still atomic
        yield


def _identity(stat: os.stat_result) -> tuple[int, int, int, int]:
    return stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns


def mapped_form(graph: Path) -> Path | None:
    """``graph``'s mapped form (``mapped_graph``) when it is there whole, else None."""
    target = graph.with_name(graph.stem + MAPPED_SUFFIX)
    return target if target.is_file() and (graph.parent / (graph.stem + ".weights")).is_file() else None


def mapped_graph(graph: str, *, drop_source: bool = False) -> str:
    """The path of ``graph`` re-saved with external-data weights (built once, beside
    it), or ``graph`` itself when that cannot be done. ``drop_source``: delete the
    self-contained graph once the mapped one is whole, so its weights are on disk
    once (the caller finds the mapped form with ``mapped_form`` next time)."""
    source = Path(graph)
    if source.name.endswith(MAPPED_SUFFIX):
        return graph
    target = source.with_name(source.stem + MAPPED_SUFFIX)
    data_name = source.stem + ".weights"
    if mapped_form(source) is not None:
        if drop_source:
            source.unlink(missing_ok=True)
        return str(target)
    try:
        import onnx

        model = onnx.load(str(source))
        with tempfile.TemporaryDirectory(dir=source.parent, prefix=".mapping-") as tmp:
            onnx.save_model(model, os.path.join(tmp, target.name), save_as_external_data=True,
                            all_tensors_to_one_file=True, location=data_name, size_threshold=1024)
            # The weights first: the graph that names them appears only when they are whole.
            os.chmod(os.path.join(tmp, data_name), 0o644)  # like the graph beside it
            os.replace(os.path.join(tmp, data_name), source.parent / data_name)
            os.replace(os.path.join(tmp, target.name), target)
    except Exception:  # noqa: BLE001 - best effort: the self-contained graph still works
        return graph
    if drop_source:  # a process that opened it already keeps reading it (POSIX unlink)
        source.unlink(missing_ok=True)
    return str(target)
