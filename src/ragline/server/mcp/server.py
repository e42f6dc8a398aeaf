"""The MCP server (official ``mcp`` SDK): ragline's read-only tools and document
resources, for assistants and IDEs that speak the Model Context Protocol.

Tools: ``search``, ``ask`` (an answer with citations that quote their passages,
numbered in the order the answer cites them), ``list_collections``,
``list_documents``, ``fetch_passage``. Resources: ``ragline://documents/{doc_id}``
(a document's stored text; ``resources/list`` lists the caller's documents, a page
of 100 at a time) and ``ragline://documents/{doc_id}/passages/{chunk_id}`` (one
cited passage). Arguments out of bounds are refused with one line naming the
argument and its bound (``invalid_request: k must be at most 50 (got 500)``).

Who is calling is decided per call by ``caller(ctx)``: over stdio the key given to
``ragline mcp``, checked on every call (a revoked key stops working); over HTTP
the request's own key, already authenticated and rate-limited by the REST
server's ``AuthFirst`` (``http.py``). Failures are ragline's error codes and
messages, as the REST API words them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.types import ListResourcesResult, Resource, ToolAnnotations
from pydantic import Field, ValidationError

from ...engine import Engine
from ...errors import RaglineError
from ...store.types import NAME_PATTERN, ApiKeyInfo
from ...version import __version__
from ..errors import ApiError, map_exception
from .operations import Operations

Caller = Callable[[Context], ApiKeyInfo]
"""Who is calling, from the request context (raises when unauthenticated)."""

INSTRUCTIONS = """ragline answers questions from this tenant's documents with numbered citations.
Use `ask` for an answer grounded in the documents (cite its sources as [n]); `search` for the passages
themselves; `fetch_passage` (or read a citation's `uri`) for the full text of a cited passage."""

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
Collections = Annotated[list[Annotated[str, Field(pattern=NAME_PATTERN)]] | None, Field(
    default=None, max_length=20, description="Collections to use (default: all of the tenant's)")]
Owner = Annotated[str | None, Field(default=None, max_length=128, description=(
    "A user inside the tenant whose private documents to include (an owner-bound key always acts as its owner)"))]
Question = Annotated[str, Field(min_length=1, max_length=10_000)]

T = TypeVar("T")


def _tool(run: Callable[[], T]) -> T:
    """Run an operation; a ragline error becomes a tool error worded as the REST API words it."""
    try:
        return run()
    except (RaglineError, ApiError, ValueError) as exc:
        _, code, message = map_exception(exc)
        raise ToolError(f"{code}: {message}") from exc


def _resource(run: Callable[[], T]) -> T:
    try:
        return run()
    except (RaglineError, ApiError, ValueError) as exc:
        status, code, message = map_exception(exc)
        raise (ResourceNotFoundError if status == 404 else ResourceError)(f"{code}: {message}") from exc


RESOURCES_PAGE = 100
"""Documents per page of ``resources/list`` (the cursor is the offset of the next page)."""


def _invalid(exc: ValidationError) -> str:
    """Pydantic's errors as one line a person reads: the argument, its bound, the value."""
    bounds = {"less_than_equal": "at most {le}", "greater_than_equal": "at least {ge}",
              "less_than": "below {lt}", "greater_than": "above {gt}"}
    parts = []
    for error in exc.errors()[:3]:
        name = ".".join(str(p) for p in error.get("loc", ())) or "arguments"
        bound = bounds.get(error.get("type", ""))
        what = bound.format(**error.get("ctx", {})) if bound else error.get("msg", "invalid").lower()
        got = repr(error.get("input"))
        parts.append(f"{name} must be {what} (got {got[:40] + '…' if len(got) > 40 else got})" if bound
                     else f"{name}: {what}")
    return "invalid_request: " + "; ".join(parts)


class _Server(MCPServer):
    """The SDK's server, with the documents as listed resources and readable argument errors."""

    list_page: Callable[[Context, int], tuple[list[dict[str, Any]], bool]] | None = None

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(_invalid(exc.__cause__)) from exc.__cause__
            raise

    async def _handle_list_resources(self, ctx: Any, params: Any) -> ListResourcesResult:
        if self.list_page is None:
            return await super()._handle_list_resources(ctx, params)
        context = Context(request_context=ctx, mcp_server=self)
        cursor = getattr(params, "cursor", None)
        offset = int(cursor) if cursor and str(cursor).isdigit() else 0
        page, more = _resource(lambda: self.list_page(context, offset))  # type: ignore[misc]
        return ListResourcesResult(resources=[Resource(**item) for item in page],
                                   next_cursor=str(offset + RESOURCES_PAGE) if more else None)


def build_server(engine: Engine, caller: Caller) -> MCPServer:
    """The MCP server over ``engine``; every call is scoped by ``caller(ctx)``'s key."""
    ops = Operations(engine)
    # log_level: the SDK configures the root logger; only warnings, so ragline's own lines stay alone.
    mcp = _Server("ragline", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    mcp.list_page = lambda ctx, offset: ops.resources(caller(ctx), offset, RESOURCES_PAGE)

    @mcp.tool(annotations=READ_ONLY)
    def search(query: Question, ctx: Context, collections: Collections = None,
               k: Annotated[int, Field(ge=1, le=50)] = 5,
               mode: Literal["hybrid", "dense", "keyword"] | None = None, owner: Owner = None) -> dict[str, Any]:
        """Search the documents; each hit has its text, score, source, page and a `uri` to read it."""
        return _tool(lambda: ops.search(caller(ctx), query, collections, owner, k, mode))

    @mcp.tool(annotations=READ_ONLY)
    def ask(question: Question, ctx: Context, collections: Collections = None, owner: Owner = None) -> dict[str, Any]:
        """Answer a question from the documents. The answer cites sources as [n]; each citation
        gives its source, page, the passage's text and a `uri`. `abstained` is true when no
        document answers the question."""
        return _tool(lambda: ops.ask(caller(ctx), question, collections, owner))

    @mcp.tool(annotations=READ_ONLY)
    def list_collections(ctx: Context) -> dict[str, Any]:
        """The tenant's collections (knowledge bases) with their document and chunk counts."""
        return _tool(lambda: {"collections": ops.list_collections(caller(ctx))})

    @mcp.tool(annotations=READ_ONLY)
    def list_documents(collection: Annotated[str, Field(pattern=NAME_PATTERN)], ctx: Context,
                       owner: Owner = None) -> dict[str, Any]:
        """The documents of one collection, each with a `uri` to read its text."""
        return _tool(lambda: {"documents": ops.list_documents(caller(ctx), collection, owner)})

    @mcp.tool(annotations=READ_ONLY)
    def fetch_passage(doc_id: str, chunk_id: str, ctx: Context, owner: Owner = None) -> dict[str, Any]:
        """The full text of a passage (a citation's or a search hit's `doc_id` and `chunk_id`)."""
        return _tool(lambda: ops.passage(caller(ctx), doc_id, chunk_id, owner))

    @mcp.resource("ragline://documents/{doc_id}", mime_type="text/plain")
    def document(doc_id: str, ctx: Context) -> str:
        """A document's stored text (its indexed chunks, in order)."""
        return _resource(lambda: ops.document_text(caller(ctx), doc_id, None))

    @mcp.resource("ragline://documents/{doc_id}/passages/{chunk_id}", mime_type="text/plain")
    def passage(doc_id: str, chunk_id: str, ctx: Context) -> str:
        """One passage of a document (what a citation points at)."""
        return _resource(lambda: ops.passage(caller(ctx), doc_id, chunk_id, None)["text"])

    return mcp
