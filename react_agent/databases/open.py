"""Opening the data database: a URL (through databases/registry), or what the settings name.

What the settings name is DATA_SOURCES, else DATA_DATABASE_URL, as the service opens it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from config import Settings
from react_agent.databases.base import SQLDatabase
from react_agent.databases.federation.sources import NamedSources, open_sources
from react_agent.databases.federation.specs import SourceSpec, parse_sources
from react_agent.databases.registry import engine_for, opener

DEFAULT_SOURCE = "default"
"""The name of DATA_DATABASE_URL's source in progress, errors, /health and /metrics."""

Gate = Callable[[SQLDatabase, str, str, int], SQLDatabase]
"""Puts an open source behind its fair share: `(database, url, source name, its own limit)`."""


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


def duckdb_options(settings: Settings) -> dict[str, Any]:
    """Return DuckDB's memory limit and thread count from the settings."""
    return {"memory_limit": settings.duckdb_memory_limit, "threads": settings.duckdb_threads}


def postgres_pool_options(settings: Settings) -> dict[str, Any]:
    """Return the options of each PostgreSQL pool (see react_agent.databases.postgres.pool)."""
    return {
        "min_size": settings.postgres_pool_min_size,
        "max_size": settings.postgres_pool_max_size,
        "max_lifetime": settings.postgres_pool_max_lifetime,
        "max_idle": settings.postgres_pool_max_idle,
        "prepare_threshold": settings.postgres_prepare_threshold,
        "connect_timeout": settings.postgres_connect_timeout,
    }


async def open_with_settings(settings: Settings, url: str) -> SQLDatabase:
    """Open the data database at `url` with its kind's settings (DATA_ENGINE, pools, DuckDB)."""
    engine = settings.data_engine
    if engine_for(url, engine).package in ("mysql", "generic"):
        return await open_database(
            url,
            engine=engine,
            max_size=settings.mysql_pool_max_size,
            connect_timeout=settings.postgres_connect_timeout,
        )
    return await open_database(
        url, file_options=duckdb_options(settings), **postgres_pool_options(settings)
    )


async def open_named(settings: Settings, gate: Gate | None = None) -> NamedSources:
    """Open every source of DATA_SOURCES as one database, each behind `gate` if given.

    A source that cannot be opened is kept down, named in the 503 of a question that
    reads it, and opened again when asked for; the others serve.
    """
    specs = parse_sources(settings.data_sources or "")

    async def open_source(spec: SourceSpec) -> SQLDatabase:
        database = await open_with_settings(settings, spec.url)
        if gate is None:
            return database
        return gate(database, spec.url, spec.name, spec.max_concurrent)

    return await open_sources(list(specs), open_source, duckdb_options(settings))


async def open_configured(
    settings: Settings, default_url: str, gate: Gate | None = None
) -> SQLDatabase:
    """Open the data the service reads: DATA_SOURCES, else DATA_DATABASE_URL (else `default_url`).

    The service opens its data here (with its fair shares as `gate`), and so do the
    tools beside it (the policy preview, the evaluation's scoring), so they read the
    same tables under the same names (`source.table` with DATA_SOURCES).
    """
    if settings.data_sources:
        return await open_named(settings, gate)
    url = settings.data_database_url or default_url
    database = await open_with_settings(settings, url)
    return database if gate is None else gate(database, url, DEFAULT_SOURCE, 0)
