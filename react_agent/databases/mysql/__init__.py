"""MySQL and MariaDB over asyncmy: connections, session rules, engine, information_schema."""

from __future__ import annotations

from typing import Any


async def open_url(url: str, *, file_options: dict[str, Any], pool_options: dict[str, Any]) -> Any:
    """Open a pool on the `mysql://…`/`mariadb://…` that `url` names (the registry's opener)."""
    # Imported here so that a deployment without the driver runs the other engines.
    from react_agent.databases.mysql.engine import MySQLDatabase

    return await MySQLDatabase.open(url, **pool_options)
