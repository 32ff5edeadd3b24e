"""The MCP server's prompts: ask a question about the data, and explain a SQL statement."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from mcp.server.mcpserver import Context, MCPServer

from app.mcp.resources import EXAMPLES_URI, METRICS_URI, SCHEMA_URI

CallerTables = Callable[[Context], Awaitable[list[str]]]
"""Returns the names of the tables the request's caller may read."""


def add_prompts(server: MCPServer, caller_tables: CallerTables) -> None:
    """Register ask_about_data and explain_sql on `server`; both name the caller's tables."""

    @server.prompt(title="Ask a question about the data")
    async def ask_about_data(question: str, ctx: Context) -> str:
        """Ask a question about the data: the tables you may read, then ask_data."""
        tables = ", ".join(await caller_tables(ctx)) or "(none)"
        return (
            "Answer this question about the data with the ask_data tool: "
            f"{question}\n\n"
            f"Tables you may read: {tables}. Their columns are in {SCHEMA_URI} (one resource "
            f"per table: {SCHEMA_URI}/TABLE), the business measures in {METRICS_URI} and "
            f"examples that were checked in {EXAMPLES_URI}. Give the answer with the SQL "
            "that ran; if ask_data waits for a person, put its question to the user and "
            "reply with answer_pending."
        )

    @server.prompt(title="Explain this SQL")
    async def explain_sql(sql: str, ctx: Context) -> str:
        """Explain a SQL statement in business terms, table by table."""
        tables = ", ".join(await caller_tables(ctx)) or "(none)"
        return (
            "Explain what this SQL statement computes, in plain business words: which "
            "tables it reads and how they are joined, the filters, the groups and the "
            "measures, and anything that could make the result misleading (a join that "
            "repeats rows, missing filters).\n\n"
            f"```sql\n{sql}\n```\n\n"
            f"Tables you may read: {tables}; their columns and descriptions are in "
            f"{SCHEMA_URI}/TABLE."
        )
