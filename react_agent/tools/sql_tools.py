"""The SQL tools the model calls, over one database; each docstring is what the model reads."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Annotated, Any, Protocol

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, tool
from langgraph.prebuilt import InjectedState

from react_agent.access.catalog import TableColumns
from react_agent.access.current import current_scope
from react_agent.access.executor import explain_in_scope, run_in_scope
from react_agent.access.rewrite import ScopeRefused
from react_agent.databases.base import QueryFailed, SQLDatabase, TableInfo
from react_agent.guard.sql_guard import QueryRejected, check_query, is_table_allowed
from react_agent.lint.linter import SqlLinter, as_json, warnings_text
from react_agent.tools.results import (
    describe_result,
    find_result,
    json_line,
    recent_results,
    refusal_message,
)

LIST_TABLES = "list_tables"
DESCRIBE_TABLES = "describe_tables"
CHECK_SQL = "check_sql"
RUN_SQL = "run_sql"
READ_RESULT = "read_result"
MAX_READ_ROWS = 100
LIST_TABLES_PAGE = 100
"""Tables per page of list_tables: a database of thousands is listed page by page."""


TIMEOUT_MARK = "statement timeout"
"""In the message of a QueryFailed that the backends raise when a query ran too long."""


class QueryReporter(Protocol):
    """Tells the run's listeners that a run_sql ended (react_agent.runs.listener_reports)."""

    def __call__(
        self,
        sql: str,
        sql_run: str | None,
        backend: str,
        outcome: Any,
        seconds: float,
        *,
        reason: str | None = None,
        row_count: int | None = None,
    ) -> None:
        """Report one query: ok, refused (with the guard's reason), error or timeout."""


def build_sql_tools(
    database: SQLDatabase,
    *,
    row_limit: int,
    preview_rows: int,
    timeout: float,
    allowed_tables: frozenset[str] | None = None,
    report_query: QueryReporter | None = None,
    columns: TableColumns | None = None,
    linter: SqlLinter | None = None,
) -> list[BaseTool]:
    """Return the tools bound to one database.

    Args:
        database: Where queries run.
        row_limit: Most rows a query returns to the final data.
        preview_rows: Rows of a result the model sees; the rest stay out of its context.
        timeout: Seconds a query may run.
        allowed_tables: Lower-case names of the tables the SQL may read and the tools
            show; None for every table (system catalogs are refused either way).
        report_query: Told of each run_sql's end (for the run's listeners); None: no one.
        columns: The database's columns, for the running question's scope (the access
            policy); None when there is no policy.
        linter: Warns about a statement that ran but may answer wrongly (SQL_LINT); None: off.

    """
    return SqlTools(
        database, row_limit, preview_rows, timeout, allowed_tables, report_query, columns, linter
    ).as_tools()


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
    report_query: QueryReporter | None = None
    columns: TableColumns | None = None
    linter: SqlLinter | None = None

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
        scope = current_scope()
        return [
            name
            for name in names
            if is_table_allowed(name, dialect, self.allowed_tables) and scope.can_read(name)
        ]

    def readable(self, info: TableInfo) -> list[tuple[str, str]]:
        """Return the columns of a table the running question's scope may read."""
        names = set(current_scope().readable_columns(info.name, [n for n, _ in info.columns]))
        return [(name, type_) for name, type_ in info.columns if name in names]

    async def list_tables(self, page: int = 1) -> str:
        """List the tables in the database with their columns. Call this first."""
        names = self.allowed(await self.database.list_tables())
        pages = max(1, -(-len(names) // LIST_TABLES_PAGE))
        page = min(max(1, page), pages)
        start = (page - 1) * LIST_TABLES_PAGE
        infos = await self.database.describe_tables(names[start : start + LIST_TABLES_PAGE])
        lines = [
            f"{info.name} ({info.row_count} rows): "
            + ", ".join(name for name, _ in self.readable(info))
            for info in infos
        ]
        if pages > 1:
            lines.append(
                f"(tables {start + 1}-{start + len(infos)} of {len(names)}, page {page} of "
                f"{pages}: call list_tables with page={page % pages + 1} for more)"
            )
        return "\n".join(lines)

    async def describe_tables(self, table_names: list[str]) -> str:
        """Show the columns (name and type) and row counts of the given tables."""
        refused = [name for name in table_names if not self.allowed([name])]
        infos = await self.database.describe_tables(self.allowed(table_names))
        missing = sorted(set(table_names) - {info.name for info in infos} - set(refused))
        lines = [
            f"{info.name} ({info.row_count} rows)"
            + (f" -- {info.comment}" if info.comment else "")
            + ":\n"
            + "\n".join(f"  {name} {type_}" for name, type_ in self.readable(info))
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
            await explain_in_scope(
                self.database, sql, current_scope(), self.columns, timeout=self.timeout
            )
        except QueryRejected as exc:
            return refusal_message(sql, exc.reason, tool_call_id, CHECK_SQL)
        except ScopeRefused as exc:
            return refusal_message(sql, exc.reason, tool_call_id, CHECK_SQL, exc.rule)
        except QueryFailed as exc:
            return f"Error: {exc}"
        return "OK: the query is valid."

    async def run_sql(
        self,
        sql: str,
        tool_call_id: Annotated[str, InjectedToolCallId],
        state: Annotated[dict[str, Any] | None, InjectedState] = None,
    ) -> ToolMessage:
        """Run one read-only SELECT query and return its columns and first rows.

        If it fails, read the error, fix the query and try again.
        """
        started = time.perf_counter()
        try:
            check_query(sql, self.database.dialect, self.allowed_tables)
            scoped, result = await run_in_scope(
                self.database,
                sql,
                current_scope(),
                self.columns,
                row_limit=self.row_limit,
                timeout=self.timeout,
            )
        except QueryRejected as exc:
            self._report(sql, None, "refused", started, reason=exc.reason)
            return refusal_message(sql, exc.reason, tool_call_id, RUN_SQL)
        except ScopeRefused as exc:
            return refusal_message(sql, exc.reason, tool_call_id, RUN_SQL, exc.rule)
        except QueryFailed as exc:
            outcome = "timeout" if TIMEOUT_MARK in str(exc) else "error"
            self._report(sql, sql, outcome, started, reason=str(exc))
            return ToolMessage(
                content=f"Error: {exc}",
                tool_call_id=tool_call_id,
                name=RUN_SQL,
                status="error",
                artifact={"sql": sql, "outcome": "failed", "error": str(exc)},
            )
        self._report(sql, sql, "ok", started, row_count=result.total_row_count)
        lint = self.linter.check(sql, self.database.dialect, state) if self.linter else []
        return ToolMessage(
            content=f"result_id: {tool_call_id}\n"
            + describe_result(result, self.preview_rows)
            + warnings_text(lint),
            tool_call_id=tool_call_id,
            name=RUN_SQL,
            artifact={
                "sql": sql,
                "sql_as_run": scoped.sql,
                "sensitive_columns": sorted(scoped.sensitive_columns),
                "outcome": "ok",
                "result_id": tool_call_id,
                "records": result.as_records(),
                "preview_row_count": min(len(result.rows), self.preview_rows),
                "lint": as_json(lint),
            },
        )

    def _report(
        self,
        sql: str,
        sql_run: str | None,
        outcome: str,
        started: float,
        *,
        reason: str | None = None,
        row_count: int | None = None,
    ) -> None:
        if self.report_query is not None:
            seconds = time.perf_counter() - started
            self.report_query(
                sql,
                sql_run,
                self.database.dialect,
                outcome,
                seconds,
                reason=reason,
                row_count=row_count,
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
