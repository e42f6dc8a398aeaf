"""The LangChain and LlamaIndex retrievers, with the real ``langchain-core`` and
``llama-index-core``: over the library (an Engine and a Scope) and over a real
server (the REST client, sync and async). Their hits are ragline's own: same
order, same scores, sources and pages in the metadata. Neither extra pulls torch."""

from __future__ import annotations

import importlib
import re
import sys
from importlib import metadata
from pathlib import Path

import anyio
import pytest
from langchain_core.documents import Document as LCDocument
from llama_index.core.schema import NodeRelationship, NodeWithScore

from ragline import Engine, Scope
from ragline.client import AsyncClient, Client
from ragline.errors import ConfigError
from ragline.integrations.langchain import RaglineRetriever as LangChainRetriever
from ragline.integrations.llamaindex import RaglineRetriever as LlamaIndexRetriever
from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer

QUESTION = "how do I report a lost card?"
DOCS = {"cards.md": "# Cards\n\nReport a lost card in the app or call 0800 123 456 at any time.\n",
        "fees.md": "# Fees\n\nThe overdraft fee is 5 EUR per day.\n",
        "hours.txt": "Branches open from 9:00 to 17:00 on weekdays.\n"}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("data", numbered=False) / "kb"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text)
    settings = Settings(home=tmp_path_factory.mktemp("home"), embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY))
    engine = Engine(settings)
    engine.ingest([folder], Scope("acme", ("bank",)))
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def live(kb: Engine):
    with LiveServer(kb.settings, kb) as server:
        server.key = kb.create_api_key("acme")[1]  # type: ignore[attr-defined]  (the tenant exists: ingested)
        yield server


def _expected(kb: Engine, k: int = 2) -> list[tuple[str, float]]:
    return [(h.chunk_id, round(h.score, 6)) for h in kb.search(QUESTION, Scope("acme", ("bank",)), k=k).hits]


def test_langchain_over_the_library(kb: Engine) -> None:
    retriever = LangChainRetriever(engine=kb, scope=Scope("acme", ("bank",)), k=2)
    docs = retriever.invoke(QUESTION)
    assert all(isinstance(d, LCDocument) for d in docs)
    assert [(d.id, round(d.metadata["score"], 6)) for d in docs] == _expected(kb)
    top = docs[0]
    assert top.metadata["source"] == "kb/cards.md" and top.metadata["title"] == "Cards"
    assert "page" in top.metadata and top.metadata["collection"] == "bank" and "0800" in top.page_content
    assert [d.id for d in anyio.run(retriever.ainvoke, QUESTION)] == [d.id for d in docs]


def test_llamaindex_over_the_library(kb: Engine) -> None:
    retriever = LlamaIndexRetriever(engine=kb, scope=Scope("acme", ("bank",)), k=2)
    nodes = retriever.retrieve(QUESTION)
    assert all(isinstance(n, NodeWithScore) for n in nodes)
    assert [(n.node.node_id, round(n.score or 0, 6)) for n in nodes] == _expected(kb)
    top = nodes[0].node
    assert top.metadata["source"] == "kb/cards.md" and "0800" in top.get_content()
    assert top.relationships[NodeRelationship.SOURCE].node_id == top.metadata["doc_id"]
    assert [n.node.node_id for n in anyio.run(retriever.aretrieve, QUESTION)] == [n.node.node_id for n in nodes]


def test_both_over_a_server_with_sync_and_async_clients(kb: Engine, live: LiveServer) -> None:
    with Client(live.url, live.key) as client:  # type: ignore[attr-defined]
        docs = LangChainRetriever(client=client, collections=["bank"], k=2).invoke(QUESTION)
        nodes = LlamaIndexRetriever(client=client, collections=["bank"], k=2).retrieve(QUESTION)
    assert [(d.id, round(d.metadata["score"], 6)) for d in docs] == _expected(kb)
    assert [n.node.node_id for n in nodes] == [d.id for d in docs]

    async def main() -> tuple[list[LCDocument], list[NodeWithScore]]:
        async with AsyncClient(live.url, live.key) as client:  # type: ignore[attr-defined]
            return (await LangChainRetriever(client=client, collections=["bank"], k=2).ainvoke(QUESTION),
                    await LlamaIndexRetriever(client=client, collections=["bank"], k=2).aretrieve(QUESTION))

    adocs, anodes = anyio.run(main)
    assert [d.id for d in adocs] == [n.node.node_id for n in anodes] == [d.id for d in docs]


def test_a_retriever_needs_exactly_one_source(kb: Engine) -> None:
    with pytest.raises(ValueError, match="either engine"):  # pydantic wraps the ConfigError
        LangChainRetriever(k=2)
    with pytest.raises(ConfigError, match="needs scope"):
        LlamaIndexRetriever(engine=kb)


@pytest.mark.parametrize(("module", "dependency", "extra"), [
    ("ragline.integrations.langchain", "langchain_core", "langchain"),
    ("ragline.integrations.llamaindex", "llama_index", "llamaindex")])
def test_a_missing_framework_names_the_extra(monkeypatch: pytest.MonkeyPatch, module: str, dependency: str,
                                             extra: str) -> None:
    for name in [m for m in sys.modules if m == dependency or m.startswith(dependency + ".") or m == module]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, dependency, None)  # as if not installed
    with pytest.raises(ImportError, match=re.escape(f"pip install 'ragline[{extra}]'")):
        importlib.import_module(module)


def _closure(requirement: str, seen: set[str]) -> set[str]:
    """Installed distributions a requirement pulls in, by their metadata (no extras)."""
    name = re.split(r"[\s\[<>=!~;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")
    if name in seen:
        return seen
    seen.add(name)
    try:
        requires = metadata.requires(name) or []
    except metadata.PackageNotFoundError:
        return seen
    for req in requires:
        if "extra ==" not in req:
            _closure(req, seen)
    return seen


@pytest.mark.parametrize("extra", ["langchain", "llamaindex", "mcp"])
def test_the_extras_do_not_pull_torch(extra: str) -> None:
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    line = re.search(rf"^{extra} = \[(.*)\]", pyproject, re.MULTILINE)
    assert line, f"no {extra} extra in pyproject.toml"
    pulled: set[str] = set()
    for requirement in re.findall(r'"([^"]+)"', line.group(1)):
        _closure(requirement, pulled)
    assert len(pulled) > 3 and not pulled & {"torch", "sentence-transformers", "transformers"}
