"""Reading a whole result batch by batch, so memory stays flat however many rows there are."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import psycopg

from react_agent.databases.records import unique_column_names

STREAM_BATCH_ROWS = 1000
"""Rows fetched from the database at a time."""


@dataclass
class RowStream:
    """An open query: its (unique) column names and its rows in batches of raw tuples."""

    columns: list[str]
    batches: AsyncIterator[Sequence[Sequence[Any]]]


def translating(
    stream: RowStream,
    errors: type[Exception] | tuple[type[Exception], ...],
    translate: Callable[[Exception], Exception],
) -> RowStream:
    """Return `stream` whose batches raise `translate(error)` for a driver's `errors`.

    A row that fails while the batches are read (past the first) raises the driver's own
    exception otherwise, its text unredacted, outside the backend's translation.
    """

    async def batches() -> AsyncIterator[Sequence[Sequence[Any]]]:
        try:
            async for rows in stream.batches:
                yield rows
        except errors as exc:
            raise translate(exc) from None

    return RowStream(stream.columns, batches())


class _SQLiteCursorReader:
    """A query on its own SQLite connection, read in worker threads one batch at a time.

    Each batch must be read within `timeout` seconds (the statement timeout of a batch);
    closing stops a batch in progress and waits for it, so the connection is only closed
    by one thread at a time.
    """

    def __init__(self, connection: sqlite3.Connection, timeout: float) -> None:
        self.connection = connection
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.closing = threading.Event()
        self.lock = threading.Lock()
        connection.set_progress_handler(
            lambda: int(self.closing.is_set() or time.monotonic() > self.deadline), 1000
        )
        self.cursor: sqlite3.Cursor | None = None

    def execute(self, sql: str, params: dict[str, Any]) -> list[str]:
        with self.lock:
            self.cursor = self.connection.execute(sql, params)
            return unique_column_names(d[0] for d in self.cursor.description or ())

    def fetch(self, size: int) -> list[Any]:
        with self.lock:
            assert self.cursor is not None
            self.deadline = time.monotonic() + self.timeout
            return self.cursor.fetchmany(size)

    def close(self) -> None:
        self.closing.set()
        with self.lock:
            self.connection.close()


@asynccontextmanager
async def open_sqlite_row_stream(
    connect: Callable[[], sqlite3.Connection],
    sql: str,
    *,
    max_rows: int,
    timeout: float,
    batch_size: int = STREAM_BATCH_ROWS,
    params: dict[str, Any] | None = None,
) -> AsyncIterator[RowStream]:
    """Run `sql` on a connection from `connect` and yield its rows in batches.

    Args:
        connect: Opens the read-only query connection (the caller's guards apply).
        sql: The query, already checked by the SQL guard.
        max_rows: Rows read at most; the rest are never fetched.
        timeout: Seconds each batch may take.
        batch_size: Rows per batch.
        params: Values of the query's `:name` placeholders.

    Raises:
        sqlite3.Error: The query failed ("interrupted" when a batch ran out of time).

    """
    reader = _SQLiteCursorReader(await asyncio.to_thread(connect), timeout)
    try:
        columns = await asyncio.to_thread(reader.execute, sql, params or {})

        async def batches() -> AsyncIterator[list[Any]]:
            left = max_rows
            while left > 0:
                rows = await asyncio.to_thread(reader.fetch, min(batch_size, left))
                if not rows:
                    return
                left -= len(rows)
                yield rows

        yield RowStream(columns, batches())
    finally:
        await asyncio.to_thread(reader.close)


@asynccontextmanager
async def open_postgres_row_stream(
    connection: psycopg.AsyncConnection[Any],
    sql: str,
    *,
    max_rows: int,
    batch_size: int = STREAM_BATCH_ROWS,
    params: dict[str, Any] | None = None,
) -> AsyncIterator[RowStream]:
    """Declare a server-side cursor for `sql` and yield its rows in batches.

    The caller's transaction sets read-only mode and the statement timeout, which then
    applies to each FETCH, so a slow reader does not time the query out.

    Args:
        connection: A connection inside a (read-only) transaction.
        sql: The query, already checked by the SQL guard.
        max_rows: Rows read at most; the rest are never fetched.
        batch_size: Rows per batch.
        params: Values of the query's `%(name)s` placeholders (None: `%` is literal).

    """
    async with connection.cursor(name="row_stream") as cursor:
        await cursor.execute(sql, params)
        columns = unique_column_names(column.name for column in cursor.description or ())

        async def batches() -> AsyncIterator[list[Any]]:
            left = max_rows
            while left > 0:
                rows = await cursor.fetchmany(min(batch_size, left))
                if not rows:
                    return
                left -= len(rows)
                yield rows

        yield RowStream(columns, batches())
