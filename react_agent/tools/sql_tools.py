"""The SQL tools the model calls; each docstring is what the model reads."""

from __future__ import annotations

import json
from typing import Annotated, Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, tool
from langgraph.prebuilt import InjectedState

from react_agent.databases.records import QueryResult
from react_agent.databases.sqlite import QueryFailed, QueryRejected, SQLDatabase
from react_agent.tools.sql_guard import check_query, is_table_allowed

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
    dialect = database.dialect

    def allowed(names: list[str]) -> list[str]:
        return [name for name in names if is_table_allowed(name, dialect, allowed_tables)]

    @tool(LIST_TABLES)
    async def list_tables() -> str:
        """List the tables in the database with their columns. Call this first."""
        names = allowed(await database.list_tables())
        infos = await database.describe_tables(names)
        return "\n".join(
            f"{info.name} ({info.row_count} rows): " + ", ".join(name for name, _ in info.columns)
            for info in infos
        )

    @tool(DESCRIBE_TABLES)
    async def describe_tables(table_names: list[str]) -> str:
        """Show the columns (name and type) and row counts of the given tables."""
        refused = [name for name in table_names if not allowed([name])]
        infos = await database.describe_tables(allowed(table_names))
        missing = sorted(set(table_names) - {info.name for info in infos} - set(refused))
        lines = [
            f"{info.name} ({info.row_count} rows):\n"
            + "\n".join(f"  {name} {type_}" for name, type_ in info.columns)
            for info in infos
        ]
        if missing:
            lines.append("No such table: " + ", ".join(missing))
        if refused:
            lines.append("Not in the allowed tables: " + ", ".join(refused))
        return "\n".join(lines)

    @tool(CHECK_SQL)
    async def check_sql(
        sql: str, tool_call_id: Annotated[str, InjectedToolCallId]
    ) -> str | ToolMessage:
        """Check a SELECT query for mistakes without running it. Returns OK or the error."""
        try:
            check_query(sql, dialect, allowed_tables)
        except QueryRejected as exc:
            return refusal_message(sql, exc.reason, tool_call_id, CHECK_SQL)
        try:
            await database.explain(sql, timeout=timeout)
        except QueryFailed as exc:
            return f"Error: {exc}"
        return "OK: the query is valid."

    @tool(RUN_SQL)
    async def run_sql(sql: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> ToolMessage:
        """Run one read-only SELECT query and return its columns and first rows.

        If it fails, read the error, fix the query and try again.
        """
        try:
            check_query(sql, dialect, allowed_tables)
        except QueryRejected as exc:
            return refusal_message(sql, exc.reason, tool_call_id, RUN_SQL)
        try:
            result = await database.run_query(sql, row_limit=row_limit, timeout=timeout)
        except QueryFailed as exc:
            return ToolMessage(
                content=f"Error: {exc}",
                tool_call_id=tool_call_id,
                name=RUN_SQL,
                status="error",
                artifact={"sql": sql, "outcome": "failed", "error": str(exc)},
            )
        return ToolMessage(
            content=f"result_id: {tool_call_id}\n" + describe_result(result, preview_rows),
            tool_call_id=tool_call_id,
            name=RUN_SQL,
            artifact={
                "sql": sql,
                "outcome": "ok",
                "result_id": tool_call_id,
                "records": result.as_records(),
                "preview_row_count": min(len(result.rows), preview_rows),
            },
        )

    @tool(READ_RESULT)
    async def read_result(
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
        return "\n".join([header, *(_json_line(row) for row in rows)])

    return [list_tables, describe_tables, check_sql, run_sql, read_result]


def find_result(messages: list[Any], result_id: str) -> dict[str, Any] | None:
    """Return the artifact of the run_sql result `result_id` in a conversation, if any."""
    for message in reversed(messages):
        artifact = getattr(message, "artifact", None)
        if isinstance(artifact, dict) and artifact.get("result_id") == result_id:
            return artifact
    return None


def recent_results(messages: list[Any], count: int = 10) -> list[dict[str, Any]]:
    """Return id, SQL and row count of the newest `count` run_sql results of a conversation."""
    found = []
    for message in reversed(messages):
        artifact = getattr(message, "artifact", None)
        if isinstance(artifact, dict) and artifact.get("result_id"):
            found.append(
                {
                    "result_id": artifact["result_id"],
                    "sql": artifact["sql"],
                    "rows": artifact["records"]["total_row_count"],
                }
            )
            if len(found) == count:
                break
    return found[::-1]


def refusal_message(sql: str, reason: str, tool_call_id: str, tool_name: str) -> ToolMessage:
    """Return the error result the model sees when the SQL guard refused its query."""
    return ToolMessage(
        content=f"Error: query refused: {reason}",
        tool_call_id=tool_call_id,
        name=tool_name,
        status="error",
        artifact={"sql": sql, "outcome": "refused", "reason": reason},
    )


def describe_result(result: QueryResult, preview_rows: int) -> str:
    """Summarise a result for the model: the row count and the first rows as JSON lines."""
    shown = result.rows[:preview_rows]
    header = f"{result.total_row_count} row(s); columns: {', '.join(result.columns)}"
    if result.is_limited:
        header += f" (only the first {len(result.rows)} rows were fetched)"
    lines = [header, *(_json_line(row) for row in shown)]
    if len(result.rows) > len(shown):
        lines.append(f"… {result.total_row_count - len(shown)} more row(s) not shown")
    return "\n".join(lines)


def _json_line(row: dict[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False, default=str)
