"""The SQL tools the model calls, over one database; each docstring is what the model reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, tool
from langgraph.prebuilt import InjectedState

from react_agent.databases.base import QueryFailed, SQLDatabase
from react_agent.tools.results import (
    describe_result,
    find_result,
    json_line,
    recent_results,
    refusal_message,
)
from react_agent.tools.sql_guard import QueryRejected, check_query, is_table_allowed

LIST_TABLES = "list_tables"
DESCRIBE_TABLES = "describe_tables"
CHECK_SQL = "check_sql"
RUN_SQL = "run_sql"
READ_RESULT = "read_result"
MAX_READ_ROWS = 100


def build_sql_tools(
    database: SQLDatabase,
    *,
    row_limit: int,
    preview_rows: int,
    timeout: float,
    allowed_tables: frozenset[str] | None = None,
) -> list[BaseTool]:
    """Return the tools bound to one database.

    Args:
        database: Where queries run.
        row_limit: Most rows a query returns to the final data.
        preview_rows: Rows of a result the model sees; the rest stay out of its context.
        timeout: Seconds a query may run.
        allowed_tables: Lower-case names of the tables the SQL may read and the tools
            show; None for every table (system catalogs are refused either way).

    """
    return SqlTools(database, row_limit, preview_rows, timeout, allowed_tables).as_tools()


@dataclass(frozen=True)
class SqlTools:
    """The SQL tools over one database and its limits (see build_sql_tools for the fields).

    Each tool is a method whose docstring the model reads; the instance is the context
    every call shares, so no tool holds state of its own.
    """

    database: SQLDatabase
    row_limit: int
    preview_rows: int
    timeout: float
    allowed_tables: frozenset[str] | None = None

    def as_tools(self) -> list[BaseTool]:
        """Return the tools the model is given, in the order it is shown them."""
        return [
            tool(LIST_TABLES)(self.list_tables),
            tool(DESCRIBE_TABLES)(self.describe_tables),
            tool(CHECK_SQL)(self.check_sql),
            tool(RUN_SQL)(self.run_sql),
            tool(READ_RESULT)(self.read_result),
        ]

    def allowed(self, names: list[str]) -> list[str]:
        """Return the names of `names` that the SQL may read and the tools may show."""
        dialect = self.database.dialect
        return [name for name in names if is_table_allowed(name, dialect, self.allowed_tables)]

    async def list_tables(self) -> str:
        """List the tables in the database with their columns. Call this first."""
        names = self.allowed(await self.database.list_tables())
        infos = await self.database.describe_tables(names)
        return "\n".join(
            f"{info.name} ({info.row_count} rows): " + ", ".join(name for name, _ in info.columns)
            for info in infos
        )

    async def describe_tables(self, table_names: list[str]) -> str:
        """Show the columns (name and type) and row counts of the given tables."""
        refused = [name for name in table_names if not self.allowed([name])]
        infos = await self.database.describe_tables(self.allowed(table_names))
        missing = sorted(set(table_names) - {info.name for info in infos} - set(refused))
        lines = [
            f"{info.name} ({info.row_count} rows)"
            + (f" -- {info.comment}" if info.comment else "")
            + ":\n"
            + "\n".join(f"  {name} {type_}" for name, type_ in info.columns)
            for info in infos
        ]
        if missing:
            lines.append("No such table: " + ", ".join(missing))
        if refused:
            lines.append("Not in the allowed tables: " + ", ".join(refused))
        return "\n".join(lines)

    async def check_sql(
        self, sql: str, tool_call_id: Annotated[str, InjectedToolCallId]
    ) -> str | ToolMessage:
        """Check a SELECT query for mistakes without running it. Returns OK or the error."""
        try:
            check_query(sql, self.database.dialect, self.allowed_tables)
        except QueryRejected as exc:
            return refusal_message(sql, exc.reason, tool_call_id, CHECK_SQL)
        try:
            await self.database.explain(sql, timeout=self.timeout)
        except QueryFailed as exc:
            return f"Error: {exc}"
        return "OK: the query is valid."

    async def run_sql(
        self, sql: str, tool_call_id: Annotated[str, InjectedToolCallId]
    ) -> ToolMessage:
        """Run one read-only SELECT query and return its columns and first rows.

        If it fails, read the error, fix the query and try again.
        """
        try:
            check_query(sql, self.database.dialect, self.allowed_tables)
        except QueryRejected as exc:
            return refusal_message(sql, exc.reason, tool_call_id, RUN_SQL)
        try:
            result = await self.database.run_query(
                sql, row_limit=self.row_limit, timeout=self.timeout
            )
        except QueryFailed as exc:
            return ToolMessage(
                content=f"Error: {exc}",
                tool_call_id=tool_call_id,
                name=RUN_SQL,
                status="error",
                artifact={"sql": sql, "outcome": "failed", "error": str(exc)},
            )
        return ToolMessage(
            content=f"result_id: {tool_call_id}\n" + describe_result(result, self.preview_rows),
            tool_call_id=tool_call_id,
            name=RUN_SQL,
            artifact={
                "sql": sql,
                "outcome": "ok",
                "result_id": tool_call_id,
                "records": result.as_records(),
                "preview_row_count": min(len(result.rows), self.preview_rows),
            },
        )

    async def read_result(
        self,
        result_id: str,
        state: Annotated[dict[str, Any], InjectedState],
        offset: int = 0,
        limit: int = 20,
    ) -> str:
        """Read rows of an earlier run_sql result of this conversation by its result_id.

        Use it instead of running the same query again. offset skips rows; limit is at
        most 100.
        """
        artifact = find_result(state.get("messages", []), result_id)
        if artifact is None:
            known = ", ".join(r["result_id"] for r in recent_results(state.get("messages", [])))
            return f"Error: no result {result_id!r}. Known results: {known or 'none'}"
        records = artifact["records"]
        offset, limit = max(0, offset), min(max(1, limit), MAX_READ_ROWS)
        rows = records["rows"][offset : offset + limit]
        header = (
            f"result_id: {result_id}; rows {offset + 1}–{offset + len(rows)} of "
            f"{len(records['rows'])} kept ({records['total_row_count']} in all); "
            f"columns: {', '.join(records['columns'])}"
        )
        return "\n".join([header, *(json_line(row) for row in rows)])
