"""The SQLite backend: a database file opened read-only, each query on its own connection."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Collection, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from react_agent.databases.base import QueryFailed, SessionSettings, TableInfo, statement_timed_out
from react_agent.databases.catalog_model import Catalog
from react_agent.databases.records import QueryResult, rows_to_records, unique_column_names
from react_agent.databases.row_streams import RowReader
from react_agent.databases.sqlite.catalog import introspect_sqlite
from react_agent.databases.sqlite.streaming import open_sqlite_rows
from react_agent.databases.statement_engine import Statement, StatementEngine
from react_agent.errors import ConfigurationError

# What a query connection may do, checked by SQLite itself while it compiles each statement:
# a second layer under the SQL guard. Everything else (ATTACH, PRAGMA, writes, VACUUM INTO,
# which ATTACHes its target) is denied.
_AUTHORIZED_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)
# Functions that reach files or change the connection, should an extension provide them.
# Kept apart from the guard's list on purpose: this layer must hold on its own.
_REFUSED_SQLITE_FUNCTIONS = frozenset(
    {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "zipfile", "fsdir"}
)
_MAX_VALUE_BYTES = 50_000_000
"""Largest string or blob a query may build (randomblob(1e9) would otherwise take 1 GB)."""


class SQLiteDatabase(StatementEngine):
    """A SQLite file opened read-only; each query runs on its own connection in a thread."""

    dialect = "sqlite"
    stream_errors = (sqlite3.Error,)

    def __init__(self, path: Path) -> None:
        self.path = path.resolve()
        self.running_queries = 0
        """Queries executing in worker threads now (a cancelled one stops within moments)."""
        self._count_lock = threading.Lock()
        if not self.path.is_file():
            raise ConfigurationError(
                "DATA_DATABASE_URL",
                f"DATA_DATABASE_URL: SQLite database file not found: {self.path}; set it to "
                "an existing file (sqlite:///relative.db or sqlite:////absolute.db)",
            )

    def _connect(self) -> sqlite3.Connection:
        """Open the file read-only; a file gone or unreadable is 503 DATABASE_UNAVAILABLE."""
        try:
            # mode=ro refuses writes at the file level; query_only refuses them in SQL too.
            connection = sqlite3.connect(
                f"{self.path.as_uri()}?mode=ro", uri=True, check_same_thread=False
            )
            connection.execute("PRAGMA query_only = ON")
        except sqlite3.Error as exc:
            # Not the query's fault, so not a QueryFailed for the model to work around:
            # the question ends (like the missing file at start-up: an operator must act).
            raise ConfigurationError(
                "DATA_DATABASE_URL",
                f"DATA_DATABASE_URL: SQLite database file cannot be opened: {self.path}: {exc}",
                error_type="DATABASE_UNAVAILABLE",
            ) from exc
        return connection

    def _connect_for_query(self) -> sqlite3.Connection:
        """Connect for the model's SQL: read-only, no ATTACH, no PRAGMA, no file functions."""
        connection = self._connect()
        connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, _MAX_VALUE_BYTES)
        connection.set_authorizer(authorize_read_only)
        return connection

    async def list_tables(self) -> list[str]:
        """Return the user tables, without SQLite's internal ones."""
        rows = await asyncio.to_thread(
            self._fetch_all,
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        return [name for (name,) in rows]

    async def describe_tables(self, names: list[str]) -> list[TableInfo]:
        """Return columns and row counts of the named tables that exist."""
        return await asyncio.to_thread(self._describe, names)

    def _describe(self, names: list[str]) -> list[TableInfo]:
        with self._connect() as connection:
            existing = {
                name
                for (name,) in connection.execute(
                    "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
                )
            }
            infos = []
            for name in names:
                if name not in existing:
                    continue
                quoted = '"' + name.replace('"', '""') + '"'
                columns = [
                    (row[1], row[2] or "")
                    for row in connection.execute(f"PRAGMA table_info({quoted})")
                ]
                (count,) = connection.execute(f"SELECT COUNT(*) FROM {quoted}").fetchone()
                infos.append(TableInfo(name, columns, count))
            return infos

    async def introspect(
        self, *, sensitive: Collection[str] = frozenset(), max_distinct: int = 200
    ) -> Catalog:
        """Return the catalogue (no comments: SQLite keeps none; the semantic file adds them)."""
        wanted = frozenset(name.lower() for name in sensitive)

        def read() -> Catalog:
            with self._connect() as connection:
                return introspect_sqlite(connection, sensitive=wanted, max_distinct=max_distinct)

        return await asyncio.to_thread(read)

    def _fetch_all(self, sql: str) -> list[tuple[Any, ...]]:
        with self._connect() as connection:
            return connection.execute(sql).fetchall()

    async def run_query(
        self,
        sql: str,
        *,
        row_limit: int,
        timeout: float,
        params: Mapping[str, Any] | None = None,
        session: SessionSettings | None = None,
    ) -> QueryResult:
        """Run `sql` read-only; stop it at `timeout` seconds or when the caller is cancelled.

        `params` binds `:name` placeholders; `session` has no meaning for SQLite.
        """
        cancelled = threading.Event()
        try:
            return await asyncio.to_thread(
                self._run, sql, row_limit, timeout, cancelled, dict(params or {})
            )
        except asyncio.CancelledError:
            # The thread cannot be killed; the progress handler sees this flag and aborts.
            cancelled.set()
            raise

    def _run(
        self,
        sql: str,
        row_limit: int,
        timeout: float,
        cancelled: threading.Event,
        params: dict[str, Any],
    ) -> QueryResult:
        deadline = time.monotonic() + timeout
        with self._count_lock:
            self.running_queries += 1
        connection = self._connect_for_query()
        connection.set_progress_handler(
            lambda: int(cancelled.is_set() or time.monotonic() > deadline), 1000
        )
        try:
            cursor = connection.execute(sql, params)
            columns = unique_column_names(d[0] for d in cursor.description or ())
            raw = cursor.fetchmany(row_limit + 1)
            is_limited = len(raw) > row_limit
            total = len(raw)
            if is_limited:
                raw = raw[:row_limit]
                total = self._count_rows(connection, sql, params, fallback=total)
            return QueryResult(columns, rows_to_records(columns, raw), total, is_limited)
        except sqlite3.OperationalError as exc:
            if str(exc) == "interrupted":
                if cancelled.is_set():
                    raise QueryFailed("query cancelled") from exc
                raise statement_timed_out(timeout) from exc
            raise _failure(exc, sql) from None
        except sqlite3.Error as exc:
            raise _failure(exc, sql) from None
        finally:
            connection.close()
            with self._count_lock:
                self.running_queries -= 1

    @staticmethod
    def _count_rows(
        connection: sqlite3.Connection, sql: str, params: dict[str, Any], *, fallback: int
    ) -> int:
        try:
            (count,) = connection.execute(
                f"SELECT COUNT(*) FROM ({sql.rstrip().rstrip(';')})", params
            ).fetchone()
            return int(count)
        except sqlite3.Error:
            # Counting is a courtesy; the capped rows are still right without it.
            return fallback

    async def plan(self, statement: Statement) -> None:
        """Plan the statement with EXPLAIN, which checks names and syntax without running it."""
        try:
            await asyncio.to_thread(self._explain, statement.sql, dict(statement.params or {}))
        except sqlite3.Error as exc:
            raise _failure(exc, statement.sql) from None

    def _explain(self, sql: str, params: dict[str, Any]) -> None:
        # The authorizer runs while EXPLAIN compiles the statement, as it does for a real run.
        connection = self._connect_for_query()
        try:
            connection.execute(f"EXPLAIN {sql}", params).fetchall()
        finally:
            connection.close()

    async def ping(self) -> None:
        """Open the file and read its schema."""
        await asyncio.to_thread(self._fetch_all, "SELECT count(*) FROM sqlite_master")

    def open_rows(
        self, statement: Statement, max_rows: int
    ) -> AbstractAsyncContextManager[RowReader]:
        """Run the statement on a query connection; each batch must come within its limit."""
        return open_sqlite_rows(
            self._connect_for_query,
            statement.sql,
            max_rows=max_rows,
            timeout=statement.timeout,
            params=dict(statement.params or {}),
        )

    def stream_failure(self, statement: Statement, exc: Exception) -> QueryFailed:
        """Return the QueryFailed of a streamed query: its batch ran out of time, or it failed."""
        if str(exc) == "interrupted":
            return statement_timed_out(statement.timeout)
        assert isinstance(exc, sqlite3.Error)
        return _failure(exc, statement.sql)

    async def aclose(self) -> None:
        """Nothing to close: connections live for one query."""


def authorize_read_only(
    action: int, arg1: str | None, arg2: str | None, database: str | None, trigger: str | None
) -> int:
    """SQLite authorizer: allow reading data tables and calling harmless functions only."""
    if action not in _AUTHORIZED_ACTIONS:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _REFUSED_SQLITE_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    # sqlite_master, sqlite_schema, sqlite_sequence…: the schema is shown by the tools instead.
    if action == sqlite3.SQLITE_READ and (arg1 or "").lower().startswith("sqlite_"):
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def _failure(exc: sqlite3.Error, sql: str) -> QueryFailed:
    """Return the QueryFailed of a failed statement, its values redacted."""
    if str(exc) in ("not authorized", "authorization denied"):
        return QueryFailed(
            "not authorized: the database only lets a query read the data tables "
            "(no ATTACH, PRAGMA, writes, system tables or file functions)",
            ours=True,
        )
    return QueryFailed(str(exc), sql)
