"""MySQL and MariaDB over asyncmy: connections, session rules, engine, information_schema."""

from __future__ import annotations

from typing import Any


async def open_url(url: str, *, file_options: dict[str, Any], pool_options: dict[str, Any]) -> Any:
    """Open a pool on the MySQL-family URL `url` (mysql://, mariadb://, doris://, …)."""
    # Imported here so that a deployment without the driver runs the other engines.
    from react_agent.databases.mysql.engine import MySQLDatabase
    from react_agent.databases.registry import engine_for

    database = await MySQLDatabase.open(url, **pool_options)
    database.dialect = engine_for(url).dialect  # Doris and StarRocks: their own
    return database
