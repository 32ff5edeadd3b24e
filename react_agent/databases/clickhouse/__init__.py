"""ClickHouse over clickhouse-connect: a server over HTTP(S), or the embedded chdb engine."""

from __future__ import annotations

from typing import Any

from react_agent.errors import ConfigurationError


async def open_url(url: str, *, file_options: dict[str, Any], pool_options: dict[str, Any]) -> Any:
    """Open the `clickhouse://…` server or `chdb:///folder` engine `url` names (the registry's)."""
    # Imported here so that a deployment without clickhouse-connect runs the other engines.
    try:
        from react_agent.databases.clickhouse.engine import ClickHouseDatabase
    except ImportError as exc:  # a setting to change (or a package to add), said in one line
        raise ConfigurationError(
            "DATA_DATABASE_URL",
            f"DATA_DATABASE_URL: ClickHouse needs the clickhouse extra ({exc.name} is not "
            'installed): pip install ".[clickhouse]"',
        ) from exc

    return await ClickHouseDatabase.open(url, **pool_options)
