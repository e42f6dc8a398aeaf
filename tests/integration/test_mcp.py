"""The MCP server driven by the official SDK's own client, over both transports:
streamable HTTP at ``/v1/mcp`` of a real server (uvicorn in a thread), and stdio
(``ragline mcp`` as a child process on the same store). Tenancy is the REST API's:
the key decides the tenant, an owner-bound key stays bound."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from ragline.client import Client as RaglineClient
from ragline.settings import EmbedderSettings, ServerSettings, Settings

from tests.server_harness import ADMIN_KEY, LiveServer, create_tenant

FEES = "# Fees\n\nThe overdraft fee is 5 EUR per day, capped at 30 EUR a month.\n\nCards are free.\n"
ANN = "Ann's notes\n\nAnn's savings goal is a sailing boat by 2030.\n"
TOOLS = {"search", "ask", "list_collections", "list_documents", "fetch_passage"}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("mcp") / "home"
    settings = Settings(home=home, embedder=EmbedderSettings(name="hashing"), server=ServerSettings(admin_key=ADMIN_KEY))
    with LiveServer(settings) as server:
        server.key = create_tenant(server, "acme")  # type: ignore[attr-defined]
        server.other = create_tenant(server, "other")  # type: ignore[attr-defined]
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {ADMIN_KEY}"}) as admin:
            server.ann = admin.post("/v1/tenants/acme/keys", json={"owner": "ann"}).json()["key"]  # type: ignore[attr-defined]
        with RaglineClient(server.url, server.key) as client:  # type: ignore[attr-defined]
            client.add_texts([{"text": FEES, "source": "fees.md"}], collection="bank", wait=True)
            client.add_texts([{"text": ANN, "source": "ann.txt"}], collection="bank", owner="ann", wait=True)
        with RaglineClient(server.url, server.other) as client:  # type: ignore[attr-defined]
            client.add_texts(["Other tenant's secret: the vault code is 0000."], collection="theirs", wait=True)
        server.home = home  # type: ignore[attr-defined]
        yield server


def _http(live: LiveServer, key: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30)
    return Client(streamable_http_client(f"{live.url}/v1/mcp", http_client=http))


def _stdio(live: LiveServer, key: str) -> Client:
    env = {**os.environ, "RAGLINE_HOME": str(live.home), "RAGLINE_EMBEDDER__NAME": "hashing",  # type: ignore[attr-defined]
           "RAGLINE_API_KEY": key}
    return Client(StdioServerParameters(command=sys.executable, args=["-m", "ragline", "mcp"], env=env))


async def _call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result.structured_content or {}


async def _error(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    return result.content[0].text  # type: ignore[union-attr]


async def _session(client: Client) -> None:
    """What an assistant does: list tools, ask, follow a citation, read the document."""
    async with client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        answer = await _call(client, "ask", question="How much is the overdraft fee per day?")
        assert not answer["abstained"] and "[1]" in answer["answer"]
        citation = answer["citations"][0]
        assert citation["source"] == "fees.md" and "5 EUR per day" in citation["text"]
        passage = await client.read_resource(citation["uri"])
        assert "5 EUR per day" in passage.contents[0].text  # type: ignore[union-attr]
        fetched = await _call(client, "fetch_passage", doc_id=citation["doc_id"], chunk_id=citation["chunk_id"])
        assert fetched["text"] == passage.contents[0].text  # type: ignore[union-attr]
        docs = (await _call(client, "list_documents", collection="bank"))["documents"]
        assert [d["source"] for d in docs] == ["fees.md"]  # ann's private note is not shared
        document = await client.read_resource(docs[0]["uri"])
        assert document.contents[0].text.strip() == FEES.strip()  # type: ignore[union-attr]
        assert [c["name"] for c in (await _call(client, "list_collections"))["collections"]] == ["bank"]


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_an_assistant_session(live: LiveServer, transport: str) -> None:
    connect = _http if transport == "http" else _stdio
    anyio.run(_session, connect(live, live.key))  # type: ignore[attr-defined]


def test_keys_scope_every_tool_as_over_rest(live: LiveServer) -> None:
    async def main() -> None:
        async with _http(live, live.ann) as ann:  # type: ignore[attr-defined]
            hits = (await _call(ann, "search", query="sailing boat savings goal"))["hits"]
            assert hits[0]["source"] == "ann.txt" and hits[0]["owner"] == "ann"
            assert "forbidden" in await _error(ann, "search", query="savings", owner="bob")
            assert "forbidden" in await _error(ann, "list_documents", collection="bank", owner="bob")
        async with _http(live, live.key) as shared:  # type: ignore[attr-defined]
            hits = (await _call(shared, "search", query="sailing boat savings goal"))["hits"]
            assert "ann.txt" not in [h["source"] for h in hits]
            ann_hits = (await _call(shared, "search", query="sailing boat savings goal", owner="ann"))["hits"]
            assert ann_hits[0]["source"] == "ann.txt"  # an unbound key may name an owner
        async with _http(live, live.other) as other:  # type: ignore[attr-defined]
            found = (await _call(other, "search", query="overdraft fee vault code"))["hits"]
            assert {h["collection"] for h in found} == {"theirs"}
            assert "not_found" in await _error(other, "list_documents", collection="bank")
            leak = ann_hits[0]
            assert "not_found" in await _error(other, "fetch_passage", doc_id=leak["doc_id"], chunk_id=leak["chunk_id"])

    anyio.run(main)


def test_documents_are_listed_as_resources_for_the_key(live: LiveServer) -> None:
    async def main() -> None:
        async with _http(live, live.key) as shared:  # type: ignore[attr-defined]
            listed = (await shared.list_resources()).resources
            assert [r.name for r in listed] == ["fees.md"]  # ann's private note is not shared
            assert (await shared.read_resource(listed[0].uri)).contents[0].text.strip() == FEES.strip()  # type: ignore[union-attr]
        async with _http(live, live.ann) as ann:  # type: ignore[attr-defined]
            assert sorted(r.name for r in (await ann.list_resources()).resources) == ["ann.txt", "fees.md"]
        async with _http(live, live.other) as other:  # type: ignore[attr-defined]
            assert "fees.md" not in [r.name for r in (await other.list_resources()).resources]

    anyio.run(main)


def test_arguments_out_of_bounds_get_one_clear_line(live: LiveServer) -> None:
    async def main() -> None:
        async with _http(live, live.key) as client:  # type: ignore[attr-defined]
            message = await _error(client, "search", query="overdraft", k=500)
            assert message == "invalid_request: k must be at most 50 (got 500)", message
            assert await _error(client, "search", query="") == "invalid_request: query: string should have at least 1 character"

    anyio.run(main)


def test_stdio_without_a_key_serves_the_local_tenant_as_the_cli_does(live: LiveServer) -> None:
    async def main() -> None:
        env = {k: v for k, v in os.environ.items() if k != "RAGLINE_API_KEY"}
        env |= {"RAGLINE_HOME": str(live.home), "RAGLINE_EMBEDDER__NAME": "hashing"}  # type: ignore[attr-defined]
        params = StdioServerParameters(command=sys.executable, args=["-m", "ragline", "mcp", "--tenant", "acme"], env=env)
        async with Client(params) as client:
            assert [c["name"] for c in (await _call(client, "list_collections"))["collections"]] == ["bank"]
            hits = (await _call(client, "search", query="overdraft fee per day"))["hits"]
            assert hits[0]["source"] == "fees.md"
            assert "ann.txt" not in [r.name for r in (await client.list_resources()).resources]  # shared only

    anyio.run(main)


def test_without_a_valid_key_nothing_is_served(live: LiveServer) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    refused = httpx.post(f"{live.url}/v1/mcp", json=body, headers={"Accept": "application/json, text/event-stream"})
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
    env = {**os.environ, "RAGLINE_HOME": str(live.home), "RAGLINE_EMBEDDER__NAME": "hashing"}  # type: ignore[attr-defined]
    run = subprocess.run([sys.executable, "-m", "ragline", "mcp", "--key", "rl-wrong"], env=env, capture_output=True,
                         text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)
    assert run.returncode == 2 and "invalid or revoked API key" in run.stderr and run.stdout == ""


def test_revoked_key_stops_working_mid_session(live: LiveServer, tmp_path: Path) -> None:
    async def main() -> None:
        with httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {ADMIN_KEY}"}) as admin:
            made = admin.post("/v1/tenants/acme/keys", json={"label": "temp"}).json()
            async with _stdio(live, made["key"]) as client:
                await _call(client, "list_collections")
                assert admin.delete(f"/v1/tenants/acme/keys/{made['id']}").status_code == 204
                assert "unauthorized" in await _error(client, "list_collections")

    anyio.run(main)


def test_without_the_mcp_extra_the_rest_still_works(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The SDK is an extra: without it the server serves everything but /v1/mcp, and
    ``ragline mcp`` names the extra to install."""
    for name in [m for m in sys.modules if m == "mcp" or m.startswith(("mcp.", "ragline.server.mcp"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mcp", None)  # as if not installed
    settings = Settings(home=tmp_path / "home", embedder=EmbedderSettings(name="hashing"),
                        server=ServerSettings(admin_key=ADMIN_KEY))
    with LiveServer(settings) as server:
        key = create_tenant(server, "acme")
        with server.client(key) as client:
            assert client.get("/v1/collections").status_code == 200
            assert server.app.state.mcp is None
            missing = client.post("/v1/mcp", json={})
            assert missing.status_code == 501 and missing.json()["error"]["code"] == "mcp_not_installed"
            assert "pip install 'ragline[mcp]'" in missing.json()["error"]["message"]  # what to do about it
    code = "import sys; sys.modules['mcp'] = None; from ragline.cli import main; sys.argv[1:] = ['mcp']; main()"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False,
                         env={**os.environ, "RAGLINE_API_KEY": "rl-x", "RAGLINE_HOME": str(tmp_path / "home")})
    assert run.returncode == 2 and "pip install 'ragline[mcp]'" in run.stderr
