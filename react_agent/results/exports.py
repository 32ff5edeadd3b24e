"""CSV export of an earlier query's full result: its recorded SQL run again and streamed."""

from __future__ import annotations

import csv
import io
import json
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack
from decimal import Decimal
from typing import Any

from react_agent.access.scope import Scope
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.scoping.executor import open_scoped_stream, scoped_query
from react_agent.access.scoping.rewrite import ScopeRefused
from react_agent.databases.base import QueryFailed, SQLDatabase
from react_agent.databases.records import to_json_value
from react_agent.errors import ServiceError
from react_agent.guard.sql_guard import QueryRejected, check_query
from react_agent.runs.runner import AgentRunner
from react_agent.tools.results import find_result

logger = logging.getLogger(__name__)

UTF8_BOM = "\ufeff"
"""Written first so that Excel reads the file as UTF-8 (and shows Chinese text)."""


async def recorded_sql(runner: AgentRunner, thread_id: str, result_id: str) -> str:
    """Return the SQL of the run_sql result `result_id` in a conversation.

    Raises:
        ServiceError: 404 THREAD_NOT_FOUND or RESULT_NOT_FOUND.

    """
    snapshot = await runner.graph.aget_state(runner.config_for(thread_id))
    messages = snapshot.values.get("messages", []) if snapshot.values else []
    if not messages:
        raise ServiceError(404, "THREAD_NOT_FOUND", f"no conversation {thread_id}")
    artifact = find_result(messages, result_id)
    if artifact is None:
        raise ServiceError(
            404,
            "RESULT_NOT_FOUND",
            f"conversation {thread_id} has no query result {result_id}",
            result_id=result_id,
        )
    return artifact["sql"]


async def start_csv_export(
    database: SQLDatabase,
    sql: str,
    *,
    allowed_tables: frozenset[str] | None,
    max_rows: int,
    timeout: float,
    scope: Scope | None = None,
    columns: TableColumns | None = None,
) -> AsyncIterator[bytes]:
    """Check and run `sql`, read its first batch, and return the CSV file as chunks of bytes.

    Errors up to the first batch raise here (so they can still get an error response); a
    failure later ends the chunks early. The query's connection is released when the
    chunks end or are closed.

    Args:
        database: Where the query runs (read-only).
        sql: The recorded SQL; the guard checks it again, as settings may have changed.
        allowed_tables: The tables the SQL may read (None for all).
        max_rows: Rows exported at most.
        timeout: Seconds each batch of rows may take.
        scope: What the asker may read under the policy in force now (None: everything).
        columns: The database's columns, for the scope's rewrite.

    Raises:
        ServiceError: 403 EXPORT_REFUSED (the guard refused it), 403 with the scope's
            rule (e.g. COLUMN_DENIED) or 500 EXPORT_FAILED.

    """
    scope = scope or Scope.allow_all()
    try:
        check_query(sql, database.dialect, allowed_tables)
        scoped = await scoped_query(database, sql, scope, columns)
    except QueryRejected as exc:
        raise ServiceError(403, "EXPORT_REFUSED", f"query refused: {exc.reason}") from exc
    except ScopeRefused as exc:
        raise ServiceError(403, exc.rule, f"query refused: {exc.reason}") from exc
    stack = AsyncExitStack()
    try:
        stream = await stack.enter_async_context(
            open_scoped_stream(database, scoped, scope, max_rows=max_rows, timeout=timeout)
        )
        first = await anext(stream.batches, [])
    except QueryFailed as exc:
        await stack.aclose()
        raise ServiceError(500, "EXPORT_FAILED", f"query failed: {exc}", can_retry=True) from exc
    except BaseException:
        await stack.aclose()
        raise
    return _csv_chunks(stack, stream.columns, first, stream.batches)


async def _csv_chunks(
    stack: AsyncExitStack,
    columns: list[str],
    first: Sequence[Sequence[Any]],
    batches: AsyncIterator[Sequence[Sequence[Any]]],
) -> AsyncIterator[bytes]:
    async with stack:
        yield (UTF8_BOM + csv_lines([columns])).encode("utf-8")
        if first:
            yield csv_lines(first).encode("utf-8")
        try:
            async for batch in batches:
                yield csv_lines(batch).encode("utf-8")
        except QueryFailed as exc:
            # The status line is long gone: the file ends short and the log says why.
            logger.warning("CSV export stopped early: %s", exc)
            raise


def csv_lines(rows: Sequence[Sequence[Any]]) -> str:
    """Return rows as CSV text (RFC 4180, CRLF line ends), one database value per cell."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerows([csv_cell(value) for value in row] for row in rows)
    return buffer.getvalue()


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""Text that Excel would run as a formula when a cell starts with it (CSV injection)."""


def csv_cell(value: Any) -> str:
    """Return one database value as CSV text: NULL is empty, others as in `records`.

    Decimals keep their digits as the database gives them (`19.90`, not `19.9`). Text that
    starts like a formula gets a leading `'` so a spreadsheet shows it instead of running
    it; numbers are never changed (a negative number stays a number).
    """
    if isinstance(value, str):
        return "'" + value if value.startswith(FORMULA_STARTS) else value
    if isinstance(value, Decimal) and value.is_finite():
        return str(value)
    value = to_json_value(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
