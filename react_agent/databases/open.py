"""Opening the data database a URL names: SQLite or PostgreSQL."""

from __future__ import annotations

from typing import Any

from react_agent.databases.base import SQLDatabase
from react_agent.databases.postgres import PostgresDatabase
from react_agent.databases.sqlite import SQLiteDatabase
from react_agent.databases.urls import SAMPLE_DATABASE_URL, database_kind, sqlite_path_from_url


async def open_database(url: str | None, **postgres_options: Any) -> SQLDatabase:
    """Open the data database named by `url` (default: the embedded sample).

    Args:
        url: `sqlite:///…` or `postgresql://…`; None for the sample.
        postgres_options: Pool options for PostgreSQL (see react_agent.databases.postgres_pool).

    """
    url = url or SAMPLE_DATABASE_URL
    kind = database_kind(url)
    if kind == "sqlite":
        return SQLiteDatabase(sqlite_path_from_url(url))
    if kind == "postgres":
        return await PostgresDatabase.open(url, **postgres_options)
    raise ValueError("DATA_DATABASE_URL cannot be 'memory'")
