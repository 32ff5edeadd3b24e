"""The MCP server: its tools (progress per step), the caller's resources, and its prompts."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    ListResourcesResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    TextResourceContents,
)

from app.http.auth import ApiKey
from app.mcp.elicitation import person_asker
from app.mcp.prompts import add_prompts
from app.mcp.resources import JSON_TYPE, SCHEMA_URI, DataResources
from app.mcp.tools import DataTools, decision_from_tool
from app.observability.mounted_apps import in_request_trace
from config import DEFAULT_LANG
from react_agent.catalog.service import CatalogService
from react_agent.errors import ServiceError

SERVER_NAME = "sql-react-agent"
API_KEY_SCOPE_KEY = "sql_agent.api_key"
"""Where the HTTP front puts the request's API key in the ASGI scope, for the tools."""
INSTRUCTIONS = (
    "Answers questions about a SQL database. ask_data asks in natural language and returns "
    "the answer, the SQL that ran and its first rows; pass conversation_id back to follow up. "
    "When it waits for a person (a question, or SQL to approve), answer_pending answers. "
    "The resources sqlagent://schema (and sqlagent://schema/TABLE), sqlagent://metrics and "
    "sqlagent://examples describe what you may read."
)


class DataMCPServer(MCPServer):
    """An MCP server whose resources are listed and read per caller (their scope)."""

    def __init__(self, tools: DataTools) -> None:
        super().__init__(SERVER_NAME, instructions=INSTRUCTIONS)
        self.data_tools = tools
        self.data_resources = DataResources(tools.get_service)

    async def _handle_list_resources(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        scope = self.data_tools.caller_scope(_api_key_of(ctx.request))
        with resource_errors():
            entries = await self.data_resources.entries(scope)
        return ListResourcesResult(
            resources=[
                Resource(uri=e.uri, name=e.name, description=e.description, mime_type=JSON_TYPE)
                for e in entries
            ]
        )

    async def _handle_read_resource(
        self, ctx: ServerRequestContext[Any], params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        scope = self.data_tools.caller_scope(_api_key_of(ctx.request))
        with resource_errors():
            text = await self.data_resources.read(str(params.uri), scope)
        return ReadResourceResult(
            contents=[TextResourceContents(uri=params.uri, text=text, mime_type=JSON_TYPE)]
        )

    async def caller_tables(self, ctx: Context) -> list[str]:
        """Return the names of the tables the tool's or prompt's caller may read."""
        scope = self.data_tools.caller_scope(request_api_key(ctx))
        with resource_errors():
            view = await self.data_resources.view(scope)
        return [table.name for table in view.tables]

    def watch_catalog(self, catalog: CatalogService) -> None:
        """Notify listening clients of each new catalogue snapshot (refresh, another worker's)."""
        pending: set[asyncio.Task[None]] = set()

        def on_snapshot(_: object) -> None:
            task = asyncio.get_running_loop().create_task(self.notify_catalog_changed())
            pending.add(task)
            task.add_done_callback(pending.discard)

        catalog.listeners.append(on_snapshot)

    async def notify_catalog_changed(self) -> None:
        """Tell listening clients the schema resources changed (a catalogue refresh)."""
        await self._subscriptions.publish(ResourceUpdated(uri=SCHEMA_URI))
        await self._subscriptions.publish(ResourcesListChanged())


def build_mcp_server(tools: DataTools) -> DataMCPServer:
    """Return an MCP server whose tools are `tools`; errors come back as tool errors."""
    server = DataMCPServer(tools)
    add_prompts(server, server.caller_tables)

    @server.tool()
    async def ask_data(
        question: str,
        ctx: Context,
        conversation_id: str | None = None,
        user_id: str | None = None,
        dataset_id: str | None = None,  # #50.3
    ) -> dict[str, Any]:
        """Ask a question about the data in natural language.

        Returns the answer, the SQL that ran, the first rows (at most 20), the token usage
        and the conversation id: send it back for a follow-up (the conversation keeps reading
        `dataset_id`, one of the user's uploads, if given). Progress names each step.
        """

        async def report_step(step: int, line: str) -> None:
            await ctx.report_progress(step, None, line)

        with tool_errors(), in_request_trace(request_scope(ctx)):
            return await tools.ask_data(
                question,
                conversation_id,
                user_id,
                key=request_api_key(ctx),
                report_step=report_step,
                ask_person=person_asker(ctx, DEFAULT_LANG),
                dataset_id=dataset_id,  # #50.3
            )

    @server.tool()
    async def answer_pending(
        conversation_id: str,
        interrupt_id: str,
        action: str,
        ctx: Context,
        text: str | None = None,
        sql: str | None = None,
        comment: str | None = None,
        user_id: str | None = None,
    ) -> dict[str, Any]:
        """Answer what a conversation waits for, and let it go on.

        When ask_data returns a status awaiting_clarification (a question, with options)
        or awaiting_approval (SQL to approve), call this with its conversation_id and
        interrupt_id: action answer with `text` (the person's answer), or approve, reject,
        or edit with `sql`. Returns what ask_data returns.
        """

        async def report_step(step: int, line: str) -> None:
            await ctx.report_progress(step, None, line)

        with tool_errors(), in_request_trace(request_scope(ctx)):
            decision = decision_from_tool(interrupt_id, action, text, sql, comment)
            return await tools.answer_pending(
                conversation_id,
                decision,
                user_id,
                key=request_api_key(ctx),
                report_step=report_step,
                ask_person=person_asker(ctx, DEFAULT_LANG),
            )

    @server.tool()
    async def list_tables(ctx: Context) -> list[str]:
        """List the tables the agent may read."""
        with tool_errors():
            return await tools.list_tables(request_api_key(ctx))

    @server.tool()
    async def describe_table(name: str, ctx: Context) -> dict[str, Any]:
        """Describe one table: its columns with their types, and its row count."""
        with tool_errors():
            return await tools.describe_table(name, request_api_key(ctx))

    return server


@contextmanager
def resource_errors() -> Iterator[None]:
    """Turn a ServiceError into the protocol's error: invalid params for what is not found."""
    try:
        yield
    except ServiceError as error:
        code = INVALID_PARAMS if error.status == 404 else INTERNAL_ERROR
        raise MCPError(code=code, message=f"{error.error_type}: {error.detail}") from error


@contextmanager
def tool_errors() -> Iterator[None]:
    """Turn a ServiceError into a ToolError the host shows: `ERROR_TYPE: detail`."""
    try:
        yield
    except ServiceError as error:
        raise ToolError(f"{error.error_type}: {error.detail}") from error


def request_scope(ctx: Context) -> dict[str, Any] | None:
    """Return the ASGI scope of the HTTP request that called the tool (None over stdio)."""
    scope = getattr(ctx.request_context.request, "scope", None)
    return scope if isinstance(scope, dict) else None


def request_api_key(ctx: Context) -> ApiKey | None:
    """Return the API key the HTTP request carried (None over stdio, or with keys off)."""
    return _api_key_of(ctx.request_context.request)


def _api_key_of(request: object) -> ApiKey | None:
    scope = getattr(request, "scope", None)
    return scope.get(API_KEY_SCOPE_KEY) if isinstance(scope, dict) else None
