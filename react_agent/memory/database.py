"""The memory's own database: SQLite (embedded) or PostgreSQL, behind one small interface."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from react_agent.databases.postgres_pool import open_pool
from react_agent.databases.urls import database_kind, sqlite_path_from_url

MIGRATION_LOCK_KEY = 7_261_303_551
"""PostgreSQL advisory lock key held while the memory's schema is migrated."""

Migration = Sequence[str]
"""The statements of one schema version."""


class MemoryDatabase(Protocol):
    """Statements written with `?` placeholders; rows come back as dicts."""

    dialect: str

    async def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Return every row of a query."""
        ...

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; return the number of rows it changed."""
        ...

    async def migrate(self, migrations: dict[str, Sequence[Migration]]) -> int:
        """Apply the versions not applied yet, under a lock; return the schema version."""
        ...

    async def aclose(self) -> None:
        """Close the connections."""
        ...


class SQLiteMemoryDatabase:
    """One SQLite connection used from a worker thread, one statement at a time."""

    dialect = "sqlite"

    def __init__(self, path: str) -> None:
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._connection.row_factory = sqlite3.Row
        self._connection.execute("PRAGMA busy_timeout = 10000")
        self._connection.execute("PRAGMA journal_mode = WAL")
        self._lock = threading.Lock()

    def _run(self, sql: str, params: Sequence[Any]) -> tuple[list[dict[str, Any]], int]:
        with self._lock:
            cursor = self._connection.execute(sql, tuple(params))
            rows = [dict(row) for row in cursor.fetchall()]
            return rows, cursor.rowcount

    async def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Return every row of a query."""
        return (await asyncio.to_thread(self._run, sql, params))[0]

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; return the number of rows it changed."""
        return (await asyncio.to_thread(self._run, sql, params))[1]

    def _migrate(self, migrations: dict[str, Sequence[Migration]]) -> int:
        with self._lock:
            connection = self._connection
            # BEGIN IMMEDIATE takes the write lock: other processes wait for the migration.
            connection.execute("BEGIN IMMEDIATE")
            try:
                version = _apply_pending(connection.execute, migrations["sqlite"])
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            return version

    async def migrate(self, migrations: dict[str, Sequence[Migration]]) -> int:
        """Apply the versions not applied yet, under SQLite's write lock."""
        return await asyncio.to_thread(self._migrate, migrations)

    async def aclose(self) -> None:
        """Close the connection."""
        with self._lock:
            self._connection.close()


class PostgresMemoryDatabase:
    """A small psycopg pool; `?` placeholders become `%s`."""

    dialect = "postgres"

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool

    async def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Return every row of a query."""
        async with self.pool.connection() as connection:
            cursor = connection.cursor(row_factory=dict_row)
            await cursor.execute(sql.replace("?", "%s"), tuple(params))
            return await cursor.fetchall() if cursor.description else []

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; return the number of rows it changed."""
        async with self.pool.connection() as connection:
            cursor = await connection.execute(sql.replace("?", "%s"), tuple(params))
            return cursor.rowcount

    async def migrate(self, migrations: dict[str, Sequence[Migration]]) -> int:
        """Apply the versions not applied yet, under an advisory lock shared by every process."""
        async with self.pool.connection() as connection, connection.transaction():
            await connection.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))

            async def run(sql: str, params: Sequence[Any] = ()) -> Any:
                return await connection.execute(sql.replace("?", "%s"), tuple(params))

            return await _apply_pending_async(run, migrations["postgres"])

    async def aclose(self) -> None:
        """Close the pool."""
        await self.pool.close()


VERSION_TABLE = (
    "CREATE TABLE IF NOT EXISTS memory_schema_version "
    "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
)


def _apply_pending(execute: Any, versions: Sequence[Migration]) -> int:
    execute(VERSION_TABLE)
    row = execute("SELECT MAX(version) FROM memory_schema_version").fetchone()
    current = row[0] or 0
    for number, statements in enumerate(versions, start=1):
        if number <= current:
            continue
        for statement in statements:
            execute(statement)
        execute(
            "INSERT INTO memory_schema_version (version, applied_at) VALUES (?, CURRENT_TIMESTAMP)",
            (number,),
        )
    return len(versions)


async def _apply_pending_async(run: Any, versions: Sequence[Migration]) -> int:
    await run(VERSION_TABLE)
    row = await (await run("SELECT MAX(version) FROM memory_schema_version")).fetchone()
    current = row[0] or 0
    for number, statements in enumerate(versions, start=1):
        if number <= current:
            continue
        for statement in statements:
            await run(statement)
        await run(
            "INSERT INTO memory_schema_version (version, applied_at) "
            "VALUES (?, CAST(CURRENT_TIMESTAMP AS TEXT))",
            (number,),
        )
    return len(versions)


async def open_memory_database(url: str, *, connect_timeout: float = 5.0) -> MemoryDatabase:
    """Open the memory's database at `url` (`sqlite:///file.db`, `memory` or `postgresql://…`)."""
    kind = database_kind(url)
    if kind == "postgres":
        pool = await open_pool(
            url, name="memory", min_size=1, max_size=4, connect_timeout=connect_timeout
        )
        return PostgresMemoryDatabase(pool)
    if kind == "memory":
        return SQLiteMemoryDatabase(":memory:")
    return SQLiteMemoryDatabase(str(sqlite_path_from_url(url)))
