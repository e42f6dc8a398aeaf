"""Cold start of the command line: ``ragline search`` imports only the command
module it runs (not the server, the MCP SDK, the HTTP client or the evaluation
code), while ``ragline --help`` and ``from ragline.cli import app`` still see
every command. Checked by the modules a real process imported, not by time."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import typer.main

from ragline import cli
from ragline.embed.graph_cache import MAPPED_SUFFIX, mapped_graph, weights_digest

_PROBE = """
import atexit, json, sys
atexit.register(lambda: sys.__stderr__.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
from ragline.cli import main
sys.argv = ["ragline", *json.loads(sys.argv[1])]
main()
"""
_NOT_FOR_SEARCH = ("ragline.cli.server", "ragline.cli.mcp", "ragline.cli.evaluate", "ragline.cli.chat",
                   "ragline.cli.transactions", "ragline.server", "ragline.client", "ragline.eval.bench",
                   "fastapi", "uvicorn", "httpx", "mcp")


def _modules(tmp_path, *args: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    env = dict(os.environ, RAGLINE_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(args)], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    line = next(ln for ln in done.stderr.splitlines() if ln.startswith("MODULES "))
    return done, set(json.loads(line.removeprefix("MODULES ")))


def test_a_search_imports_only_what_it_needs(tmp_path) -> None:
    done, modules = _modules(tmp_path, "search", "white matter", "--mode", "keyword", "--json")
    assert done.returncode == 3 and "collection 'default' not found" in done.stderr, done.stderr[:500]  # empty home
    assert "ragline.cli.core" in modules and "ragline.cli.remote" in modules
    assert not [m for m in _NOT_FOR_SEARCH if m in modules]


def test_help_lists_every_command(tmp_path) -> None:
    done, modules = _modules(tmp_path, "--help")
    assert done.returncode == 0, done.stderr[:500]
    assert {f"ragline.cli.{m}" for m in cli.MODULES} <= modules
    for command in ("search", "ask", "serve", "mcp", "eval", "tenant", "import"):
        assert command in done.stdout


def test_the_command_table_covers_every_registered_command() -> None:
    group = typer.main.get_group(cli.load())
    assert set(group.commands) == set(cli.COMMANDS)
    assert set(cli.COMMANDS.values()) <= set(cli.MODULES)


def test_the_command_word_is_found_after_global_options() -> None:
    assert cli.command_in(["search", "x"]) == "search"
    assert cli.command_in(["--server", "http://h", "--key", "k", "ask", "q"]) == "ask"
    assert cli.command_in(["--server=http://h", "ingest", "."]) == "ingest"
    assert cli.command_in(["--help"]) is None
    assert cli.command_in([]) is None


# -- a real search and ask on a filled store: the ingest side and the server stay unloaded --------
_INGEST_ONLY = ("ragline.ingest.loaders.pdf", "ragline.ingest.loaders.docx", "ragline.ingest.loaders.html",
                "ragline.ingest.loaders.text", "ragline.ingest.pipeline", "ragline.ingest.sandbox",
                "ragline.ingest.discover", "ragline.ingest.chunkers",
                "pypdf", "docx", "openpyxl", "bs4", "lxml", "rich.progress", "fastapi", "uvicorn", "starlette",
                "httpx", "mcp", "ragline.server", "ragline.cli.server", "ragline.cli.transactions")


def _filled_home(tmp_path):
    env = dict(os.environ, RAGLINE_HOME=str(tmp_path), RAGLINE_EMBEDDER__NAME="hashing")
    sample = os.path.join(os.path.dirname(cli.__file__), "..", "sample")
    done = subprocess.run([sys.executable, "-m", "ragline", "ingest", sample, "--json"], capture_output=True,
                          text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0 and json.loads(done.stdout)["added"] > 0, done.stderr[:500]
    return env


def _modules_in(env, *args: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    done = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(args)], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    line = next(ln for ln in done.stderr.splitlines() if ln.startswith("MODULES "))
    return done, set(json.loads(line.removeprefix("MODULES ")))


def test_a_hybrid_search_and_an_ask_load_no_loader_and_no_server(tmp_path) -> None:
    env = _filled_home(tmp_path)
    done, modules = _modules_in(env, "search", "overdraft fee", "--json")
    assert done.returncode == 0, done.stderr[:500]
    hits = json.loads(done.stdout)
    assert hits and any("overdraft" in hit["source"] for hit in hits)  # it really searched
    assert "ragline.retrieve.search" in modules and "ragline.store.sqlite" in modules
    assert sorted(m for m in (*_INGEST_ONLY, "ragline.records.importers", "rich") if m in modules) == []
    done, modules = _modules_in(env, "ask", "What is the fee for an unarranged overdraft?", "--json")
    assert done.returncode == 0, done.stderr[:500]
    assert json.loads(done.stdout)["citations"]  # a cited extractive answer
    assert "ragline.answer.generators.extractive" in modules
    assert sorted(m for m in _INGEST_ONLY if m in modules) == []


def test_the_lazy_loader_registry_still_finds_every_loader() -> None:
    probe = ("import sys; from pathlib import Path; import ragline.ingest.loaders as L; "
             "before = 'ragline.ingest.loaders.pdf' in sys.modules; "
             "print(before, L.loader_for(Path('a.pdf'), b'%PDF-1.7').name, L.loader_for(Path('a.md'), b'# x').name, "
             "'.docx' in L.supported_extensions(), sorted(L.LOADERS) == sorted(L._registry()))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[:500]
    assert done.stdout.split() == ["False", "pdf", "markdown", "True", "True"]


# -- the model caches a cold start reads (embed/graph_cache.py) ------------------------------------
def _graph(path) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weight = np.random.default_rng(0).normal(size=(64, 64)).astype(np.float32)
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 64])],
                              [numpy_helper.from_array(weight, "w")])
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def test_the_mapped_graph_keeps_its_weights_apart_and_computes_the_same(tmp_path) -> None:
    import onnxruntime as ort

    source = tmp_path / "tiny-1234-fused-v1.onnx"
    _graph(source)
    mapped = mapped_graph(str(source))
    assert mapped == str(tmp_path / f"tiny-1234-fused-v1{MAPPED_SUFFIX}") and mapped_graph(mapped) == mapped
    assert (tmp_path / "tiny-1234-fused-v1.weights").stat().st_size == 64 * 64 * 4  # the weights, outside
    assert os.path.getsize(mapped) < 2000 and sorted(p.name for p in tmp_path.glob("*.onnx")) == [source.name]
    x = np.random.default_rng(1).normal(size=(3, 64)).astype(np.float32)
    run = [ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
           for path in (str(source), mapped)]
    np.testing.assert_array_equal(run[0], run[1])
    assert mapped_graph(str(source)) == mapped  # built once, then reused


def test_a_graph_that_cannot_be_mapped_is_used_as_it_is(tmp_path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    assert mapped_graph(str(broken)) == str(broken)
    assert not list(tmp_path.glob(f"*{MAPPED_SUFFIX}"))


def test_the_weights_digest_is_remembered_until_the_file_changes(tmp_path, monkeypatch) -> None:
    import hashlib

    from ragline.embed import graph_cache

    weights, cache = tmp_path / "model.safetensors", tmp_path / "cache"
    weights.write_bytes(b"first weights")
    assert weights_digest(weights, cache) == hashlib.sha256(b"first weights").hexdigest()
    assert not cache.exists()  # just written: two writes in one timestamp tick could share a key
    monkeypatch.setattr(graph_cache, "SETTLED_S", 0.0)  # as if it were written a while ago
    assert weights_digest(weights, cache) == hashlib.sha256(b"first weights").hexdigest()
    memo = next(cache.glob("digest-*.txt"))
    memo.write_text("f" * 64)  # a remembered digest is used as it is: the file is not read again
    assert weights_digest(weights, cache) == "f" * 64
    weights.write_bytes(b"other weights, longer")  # new size and mtime: hashed again
    assert weights_digest(weights, cache) == hashlib.sha256(b"other weights, longer").hexdigest()


# -- Engine.warm_up: the model loads in the background, the first embed call waits for it -----------
def test_warm_up_loads_the_model_in_the_background_and_close_waits(tmp_path) -> None:
    from ragline.engine import Engine
    from ragline.settings import Settings

    engine = Engine(Settings(home=tmp_path / "home"))  # the default, bundled MiniLM
    engine.warm_up()
    thread = engine._warming
    assert thread is not None and thread.name == "ragline-warm-up"
    vector = engine.embedder.embed_query("overdraft fee")  # waits for the session, under its lock
    engine.close()
    assert not thread.is_alive() and engine.embedder._session is not None
    assert vector.shape == (384,) and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
    # The next process finds the built graph and maps its weights: the same vectors.
    again = Engine(Settings(home=tmp_path / "home"))
    again.warm_up()
    try:
        np.testing.assert_allclose(again.embedder.embed_query("overdraft fee"), vector, atol=1e-6)
    finally:
        again.close()
    assert list(Settings(home=tmp_path / "home").embedder.model_cache().glob(f"*{MAPPED_SUFFIX}"))


def test_warm_up_leaves_a_misconfigured_embedder_to_its_first_use(tmp_path) -> None:
    from ragline.engine import Engine
    from ragline.errors import ConfigError
    from ragline.settings import EmbedderSettings, Settings

    engine = Engine(Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="local")))  # no path
    engine.warm_up()  # nothing to load, nothing raised here
    assert engine._warming is None
    try:
        with np.testing.assert_raises(ConfigError):
            engine.embedder  # noqa: B018 - the error the user sees, naming the setting
    finally:
        engine.close()
