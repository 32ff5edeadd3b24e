"""The SQL tools the model calls, over one database; each docstring is what the model reads."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Annotated, Any, Protocol

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, tool
from langgraph.prebuilt import InjectedState

from react_agent.access.current import current_scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.scoping.executor import explain_in_scope, run_in_scope
from react_agent.access.scoping.rewrite import ScopeRefused
from react_agent.access.sensitive.masking import sensitive_names, tokenised_rows
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


def scope_refusal(exc: ScopeRefused) -> str:
    """Return the reported reason of a scope refusal: its rule, then its sentence."""
    return f"{exc.rule}: {exc.reason}"


class QueryReporter(Protocol):
    """Tells the run listeners that run_sql or check_sql ended (runs/events/listener_reports)."""

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
        kind: Any = "run",
    ) -> None:
        """Report one query: ok, refused (the guard's or the scope's reason), error, timeout."""


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

    def count_of(self, info: TableInfo) -> str:
        """Return ` (N rows)`, or a note when the scope filters the table's rows.

        The database counts the whole table; a caller who reads only some rows is not told
        how many there are in all (docs/security.md, "Catalogue").
        """
        if current_scope().filters_rows(info.name):
            return " (rows filtered for you: run SELECT count(*) to count them)"
        return f" ({info.row_count} rows)"

    async def list_tables(self, page: int = 1) -> str:
        """List the tables in the database with their columns. Call this first."""
        names = self.allowed(await self.database.list_tables())
        pages = max(1, -(-len(names) // LIST_TABLES_PAGE))
        page = min(max(1, page), pages)
        start = (page - 1) * LIST_TABLES_PAGE
        infos = await self.database.describe_tables(names[start : start + LIST_TABLES_PAGE])
        lines = [
            f"{info.name}{self.count_of(info)}: "
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
            f"{info.name}{self.count_of(info)}"
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
        started = time.perf_counter()
        try:
            check_query(sql, self.database.dialect, self.allowed_tables)
            scoped = await explain_in_scope(
                self.database, sql, current_scope(), self.columns, timeout=self.timeout
            )
        except QueryRejected as exc:
            self._report(sql, None, "refused", started, reason=exc.reason, kind="check")
            return refusal_message(sql, exc.reason, tool_call_id, CHECK_SQL)
        except ScopeRefused as exc:
            reason = scope_refusal(exc)
            self._report(sql, None, "refused", started, reason=reason, kind="check")
            return refusal_message(sql, exc.reason, tool_call_id, CHECK_SQL, exc.rule)
        except QueryFailed as exc:
            self._report(sql, sql, "error", started, reason=str(exc), kind="check")
            return f"Error: {exc}"
        self._report(sql, scoped.sql, "ok", started, kind="check")  # as planned: scoped
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
            # A probe of what the scope hides leaves a trace like any refusal (#47.5).
            self._report(sql, None, "refused", started, reason=scope_refusal(exc))
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
        # As run: the scoped statement (docs/audit-and-quotas.md), as check_sql's plan is.
        self._report(sql, scoped.sql, "ok", started, row_count=result.total_row_count)
        sensitive = sensitive_names(
            result.columns, scoped.sensitive_positions, scoped.output_count, scoped.sensitive_names
        )
        # What the model reads carries tokens; the artifact (the user's records) real values.
        shown = replace(result, rows=tokenised_rows(result.rows, sensitive))
        lint = self.linter.check(sql, self.database.dialect, state) if self.linter else []
        return ToolMessage(
            content=f"result_id: {tool_call_id}\n"
            + describe_result(shown, self.preview_rows)
            + warnings_text(lint),
            tool_call_id=tool_call_id,
            name=RUN_SQL,
            artifact={
                "sql": sql,
                "sql_as_run": scoped.sql,
                "sensitive_columns": sensitive,
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
        kind: str = "run",
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
                kind=kind,
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
        rows = tokenised_rows(
            records["rows"][offset : offset + limit], artifact.get("sensitive_columns") or ()
        )
        header = (
            f"result_id: {result_id}; rows {offset + 1}–{offset + len(rows)} of "
            f"{len(records['rows'])} kept ({records['total_row_count']} in all); "
            f"columns: {', '.join(records['columns'])}"
        )
        return "\n".join([header, *(json_line(row) for row in rows)])
