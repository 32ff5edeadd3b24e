"""PostgreSQL: a psycopg pool (pool), read-only transactions (engine), pg_catalog (catalog)."""

from __future__ import annotations

from typing import Any


async def open_url(url: str, *, file_options: dict[str, Any], pool_options: dict[str, Any]) -> Any:
    """Open a pool on the `postgresql://…` that `url` names (the registry's opener)."""
    from react_agent.databases.postgres.engine import PostgresDatabase

    return await PostgresDatabase.open(url, **pool_options)
