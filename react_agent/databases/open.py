"""Opening the data database a URL names, through the engine registry (databases/registry)."""

from __future__ import annotations

from typing import Any

from react_agent.databases.base import SQLDatabase
from react_agent.databases.registry import engine_for, opener


async def open_database(
    url: str,
    *,
    file_options: dict[str, Any] | None = None,
    engine: str | None = None,
    **pool_options: Any,
) -> SQLDatabase:
    """Open the data database named by `url`.

    Args:
        url: a URL whose scheme the registry knows (`sqlite:///…`, `postgresql://…`,
            `mysql://…`/`mariadb://…`, `duckdb:///folder`, …; the embedded sample:
            `sample_data.SAMPLE_DATABASE_URL`).
        file_options: DuckDB's memory limit and threads (see databases.duckdb.files).
        engine: "generic" opens it on the generic SQLAlchemy engine (DATA_ENGINE) even
            when a native engine reads its scheme.
        pool_options: Pool options for PostgreSQL (see react_agent.databases.postgres.pool);
            MySQL takes its sizes and connect timeout from them.

    """
    if url.strip().lower() == "memory":
        raise ValueError("DATA_DATABASE_URL cannot be 'memory'")
    open_url = opener(engine_for(url, engine))
    return await open_url(url, file_options=file_options or {}, pool_options=pool_options)
