"""A SQLite query read batch by batch on a connection of its own, in worker threads."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from react_agent.databases.records import unique_column_names
from react_agent.databases.row_streams import RowReader


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
async def open_sqlite_rows(
    connect: Callable[[], sqlite3.Connection],
    sql: str,
    *,
    max_rows: int,
    timeout: float,
    params: dict[str, Any],
) -> AsyncIterator[RowReader]:
    """Run `sql` on a connection from `connect` and give the reader of its rows.

    Args:
        connect: Opens the read-only query connection (the caller's guards apply).
        sql: The query, already checked by the SQL guard.
        max_rows: Rows read at most; the rest are never fetched.
        timeout: Seconds each batch may take.
        params: Values of the query's `:name` placeholders.

    Raises:
        sqlite3.Error: The query failed ("interrupted" when a batch ran out of time).

    """
    reader = _SQLiteCursorReader(await asyncio.to_thread(connect), timeout)
    try:
        columns = await asyncio.to_thread(reader.execute, sql, params)
        yield RowReader(columns, partial(asyncio.to_thread, reader.fetch), max_rows)
    finally:
        await asyncio.to_thread(reader.close)
