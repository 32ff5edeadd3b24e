"""The audit of CSV exports: one record per export, which runs outside any graph run.

An export re-runs a recorded query (up to EXPORT_ROW_LIMIT rows) for a user, so it is a
statement run for them like run_sql's: one record when it ends (ok with the rows sent,
error, or closed early by the client), or when it is refused before running.
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from react_agent.access.actor import Actor
from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.scoping.executor import scoped_query
from react_agent.access.scoping.rewrite import ScopeRefused
from react_agent.audit.listener import RecordSink
from react_agent.audit.records import AuditRecord, actor_fields, audit_time
from react_agent.databases.base import SQLDatabase
from react_agent.errors import ServiceError
from react_agent.results.exports import start_csv_export
from react_agent.runs.events.listener_reports import tables_read


@dataclass(frozen=True)
class ExportAudit:
    """Who exports which result, and where its record goes (None: AUDIT off)."""

    records: RecordSink | None
    actor: Actor
    thread_id: str

    def submit(self, sql: str, started: float, outcome: str, **fields: object) -> None:
        """Write the export's one record (its duration from `started`, perf_counter)."""
        if self.records is None:
            return
        self.records.submit(
            AuditRecord(
                at=audit_time(),
                **actor_fields(self.actor),
                thread_id=self.thread_id,
                model_sql=sql,
                duration_ms=round((time.perf_counter() - started) * 1000),
                outcome=outcome,
                kind="export",
                **fields,  # type: ignore[arg-type]
            )
        )


async def audited_csv_export(
    audit: ExportAudit,
    database: SQLDatabase,
    sql: str,
    *,
    scope: Scope | None,
    columns: TableColumns | None,
    allowed_tables: frozenset[str] | None,
    max_rows: int,
    timeout: float,
) -> AsyncIterator[bytes]:
    """Start the export as `start_csv_export` does; its one record is written as it ends.

    Raises:
        ServiceError: as `start_csv_export` (a refusal or a failure is recorded first).

    """
    started = time.perf_counter()
    run_sql = await _sql_as_run(database, sql, scope, columns)
    tables = tables_read(run_sql or sql, database.dialect)
    try:
        chunks = await start_csv_export(
            database,
            sql,
            scope=scope,
            columns=columns,
            allowed_tables=allowed_tables,
            max_rows=max_rows,
            timeout=timeout,
        )
    except ServiceError as error:
        refused = error.status == 403
        outcome, ran = ("refused", None) if refused else ("error", run_sql)
        reason = f"{error.error_type}: {error.detail}"
        audit.submit(sql, started, outcome, run_sql=ran, tables=tables, reason=reason)
        raise
    return _recorded(audit, chunks, sql, run_sql, tables, started)


async def _sql_as_run(
    database: SQLDatabase, sql: str, scope: Scope | None, columns: TableColumns | None
) -> str | None:
    """Return the SQL the export runs (the scope's rewrite), None when it is refused."""
    if scope is None:
        return sql
    try:
        return (await scoped_query(database, sql, scope, columns)).sql
    except ScopeRefused:
        return None
    except Exception:  # the export itself reports what is wrong with the query
        return None


async def _recorded(
    audit: ExportAudit,
    chunks: AsyncIterator[bytes],
    sql: str,
    run_sql: str | None,
    tables: tuple[str, ...],
    started: float,
) -> AsyncIterator[bytes]:
    """Yield the chunks, counting rows; write the record when they end or are closed."""
    rows = -1  # the header line is not a row
    outcome, reason = "error", "the client closed the export early"
    try:
        async for chunk in chunks:
            # Each chunk holds whole CSV rows (a batch), so a reader counts them exactly.
            rows += sum(1 for _ in csv.reader(io.StringIO(chunk.decode("utf-8-sig"))))
            yield chunk
        outcome, reason = "ok", None
    except Exception as exc:
        reason = f"the export stopped early: {exc}"
        raise
    finally:
        await chunks.aclose()  # type: ignore[attr-defined]
        audit.submit(
            sql,
            started,
            outcome,
            run_sql=run_sql,
            tables=tables,
            row_count=max(rows, 0),
            reason=reason,
        )
