"""The service's own small tables (memory, audit, quotas): SQLite or PostgreSQL, one interface.

Statements are written with `?` placeholders and rows come back as dicts. Each owner keeps
its schema as numbered migrations with its own version table; they are applied under a
lock every process shares (SQLite's write lock, a PostgreSQL advisory lock), so several
workers starting together do not race on CREATE TABLE.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from react_agent.databases.postgres.pool import open_pool
from react_agent.databases.urls import database_kind, sqlite_path_from_url

Migration = Sequence[str]
"""The statements of one schema version."""


@dataclass(frozen=True)
class Migrations:
    """One owner's schema: its versions per dialect, in order, and where it counts them."""

    versions: dict[str, Sequence[Migration]]
    """`sqlite` and `postgres`: versions in order; one is appended, never edited."""
    version_table: str
    """The table that records which versions are applied (one per owner)."""
    lock_key: int
    """The PostgreSQL advisory lock key held while this owner's versions are applied."""


class ServiceTables(Protocol):
    """A database of the service's own tables."""

    dialect: str

    async def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Return every row of a query (or of a statement's RETURNING)."""
        ...

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; return the number of rows it changed."""
        ...

    async def migrate(self, migrations: Migrations) -> int:
        """Apply the versions not applied yet, under a lock; return the schema version."""
        ...

    async def aclose(self) -> None:
        """Close the connections."""
        ...


class SQLiteServiceTables:
    """One SQLite connection used from worker threads, one statement at a time."""

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
        """Return every row of a query (or of a statement's RETURNING)."""
        return (await asyncio.to_thread(self._run, sql, params))[0]

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; return the number of rows it changed."""
        return (await asyncio.to_thread(self._run, sql, params))[1]

    def _migrate(self, migrations: Migrations) -> int:
        with self._lock:
            connection = self._connection
            # BEGIN IMMEDIATE takes the write lock: other processes wait for the migration.
            connection.execute("BEGIN IMMEDIATE")
            try:
                create, select = _version_statements(migrations.version_table)
                connection.execute(create)
                current = connection.execute(select).fetchone()[0] or 0
                for statement, params in _pending(migrations, "sqlite", current):
                    connection.execute(statement, params)
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            return len(migrations.versions["sqlite"])

    async def migrate(self, migrations: Migrations) -> int:
        """Apply the versions not applied yet, under SQLite's write lock."""
        return await asyncio.to_thread(self._migrate, migrations)

    async def aclose(self) -> None:
        """Close the connection."""
        with self._lock:
            self._connection.close()


class PostgresServiceTables:
    """A small psycopg pool of its own; `?` placeholders become `%s`."""

    dialect = "postgres"

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool

    async def fetch_all(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Return every row of a query (or of a statement's RETURNING)."""
        async with self.pool.connection() as connection:
            cursor = connection.cursor(row_factory=dict_row)
            await cursor.execute(sql.replace("?", "%s"), tuple(params))
            return await cursor.fetchall() if cursor.description else []

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; return the number of rows it changed."""
        async with self.pool.connection() as connection:
            cursor = await connection.execute(sql.replace("?", "%s"), tuple(params))
            return cursor.rowcount

    async def migrate(self, migrations: Migrations) -> int:
        """Apply the versions not applied yet, under an advisory lock shared by every process."""
        async with self.pool.connection() as connection, connection.transaction():
            await connection.execute("SELECT pg_advisory_xact_lock(%s)", (migrations.lock_key,))

            async def run(sql: str, params: Sequence[Any] = ()) -> Any:
                return await connection.execute(sql.replace("?", "%s"), tuple(params))

            create, select = _version_statements(migrations.version_table)
            await run(create)
            current = (await (await run(select)).fetchone())[0] or 0
            for statement, params in _pending(migrations, "postgres", current):
                await run(statement, params)
            return len(migrations.versions["postgres"])

    async def aclose(self) -> None:
        """Close the pool."""
        await self.pool.close()


def _version_statements(table: str) -> tuple[str, str]:
    """Return the statement that creates a version table and the one that reads its top."""
    return (
        f"CREATE TABLE IF NOT EXISTS {table} "
        "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
        f"SELECT MAX(version) FROM {table}",
    )


def _pending(
    migrations: Migrations, dialect: str, current: int
) -> list[tuple[str, tuple[Any, ...]]]:
    """Return the statements (with their parameters) of the versions after `current`."""
    statements: list[tuple[str, tuple[Any, ...]]] = []
    for number, version in enumerate(migrations.versions[dialect], start=1):
        if number <= current:
            continue
        statements.extend((statement, ()) for statement in version)
        statements.append(
            (
                f"INSERT INTO {migrations.version_table} (version, applied_at) "
                "VALUES (?, CAST(CURRENT_TIMESTAMP AS TEXT))",
                (number,),
            )
        )
    return statements


async def open_service_tables(
    url: str, *, name: str, connect_timeout: float = 5.0, max_size: int = 4
) -> ServiceTables:
    """Open the database at `url` (`sqlite:///file.db`, `memory` or `postgresql://…`).

    `name` names the PostgreSQL pool (its connections' application_name shows it).
    """
    kind = database_kind(url)
    if kind == "postgres":
        pool = await open_pool(
            url, name=name, min_size=1, max_size=max_size, connect_timeout=connect_timeout
        )
        return PostgresServiceTables(pool)
    if kind == "memory":
        return SQLiteServiceTables(":memory:")
    return SQLiteServiceTables(str(sqlite_path_from_url(url)))
