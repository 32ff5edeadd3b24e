"""Opening the data database a URL names: SQLite, PostgreSQL, MySQL/MariaDB or DuckDB files."""

from __future__ import annotations

from typing import Any

from react_agent.databases.base import SQLDatabase
from react_agent.databases.postgres import PostgresDatabase
from react_agent.databases.sqlite import SQLiteDatabase
from react_agent.databases.urls import database_kind, sqlite_path_from_url
from react_agent.errors import ConfigurationError


async def open_database(
    url: str, *, file_options: dict[str, Any] | None = None, **pool_options: Any
) -> SQLDatabase:
    """Open the data database named by `url`.

    Args:
        url: `sqlite:///…`, `postgresql://…`, `mysql://…`/`mariadb://…` or
            `duckdb:///folder` (the embedded sample: `sample_data.SAMPLE_DATABASE_URL`).
        file_options: DuckDB's memory limit and threads (see databases.duckdb_files).
        pool_options: Pool options for PostgreSQL (see react_agent.databases.postgres_pool);
            MySQL takes its sizes and connect timeout from them.

    """
    kind = database_kind(url)
    if kind == "sqlite":
        return SQLiteDatabase(sqlite_path_from_url(url))
    if kind == "postgres":
        return await PostgresDatabase.open(url, **pool_options)
    if kind == "mysql":
        # Imported here so that a deployment without the driver runs the others.
        from react_agent.databases.mysql import MySQLDatabase

        return await MySQLDatabase.open(url, **pool_options)
    if kind == "duckdb":
        from react_agent.databases.duckdb_files import DuckDBFiles, duckdb_path_from_url

        location = duckdb_path_from_url(url).resolve()
        if not location.exists():  # a setting to change, not an outage to wait out
            raise ConfigurationError(
                "DATA_DATABASE_URL",
                f"DATA_DATABASE_URL: no such folder or file: {location}; set it to a folder "
                "of data files or a .duckdb file (duckdb:///relative or duckdb:////absolute)",
            )
        return await DuckDBFiles.open(url, **(file_options or {}))
    raise ValueError("DATA_DATABASE_URL cannot be 'memory'")
