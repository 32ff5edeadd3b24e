"""The MCP server: ask_data, answer_pending, list_tables, describe_table; progress per step."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from app.auth import ApiKey
from app.mcp.elicitation import person_asker
from app.mcp.tools import DataTools, decision_from_tool
from app.observability.mounted_apps import in_request_trace
from config import DEFAULT_LANG
from react_agent.errors import ServiceError

SERVER_NAME = "sql-react-agent"
API_KEY_SCOPE_KEY = "sql_agent.api_key"
"""Where the HTTP front puts the request's API key in the ASGI scope, for the tools."""
INSTRUCTIONS = (
    "Answers questions about a SQL database. ask_data asks in natural language and returns "
    "the answer, the SQL that ran and its first rows; pass conversation_id back to follow up. "
    "When it waits for a person (a question, or SQL to approve), answer_pending answers."
)


def build_mcp_server(tools: DataTools) -> MCPServer:
    """Return an MCP server whose tools are `tools`; errors come back as tool errors."""
    server = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS)

    @server.tool()
    async def ask_data(
        question: str,
        ctx: Context,
        conversation_id: str | None = None,
        user_id: str | None = None,
    ) -> dict[str, Any]:
        """Ask a question about the data in natural language.

        Returns the answer, the SQL that ran, the first rows (at most 20), the token usage
        and the conversation id; send that id back to ask a follow-up in the same
        conversation.
        Progress notifications name each step while the agent works.
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
    scope = request_scope(ctx)
    return scope.get(API_KEY_SCOPE_KEY) if scope is not None else None
