"""Any database an installed SQLAlchemy dialect reads: dialects, session rules, engine."""

from __future__ import annotations

import logging
from typing import Any

from react_agent.errors import ConfigurationError

logger = logging.getLogger(__name__)


async def open_url(url: str, *, file_options: dict[str, Any], pool_options: dict[str, Any]) -> Any:
    """Open a SQLAlchemy engine on `url` (the registry's opener); say how it stays read-only."""
    from react_agent.databases.generic.dialects import resolve_url
    from react_agent.databases.generic.engine import GenericDatabase
    from react_agent.databases.generic.session import sqlite_read_only_url
    from react_agent.databases.registry import url_scheme

    resolved = resolve_url(url)
    if resolved is None:
        raise ConfigurationError(
            "DATA_DATABASE_URL",
            f"DATA_DATABASE_URL: no installed SQLAlchemy dialect and driver opens "
            f'{url_scheme(url)}://; pip install ".[generic]" and the database\'s driver',
        )
    resolved_url, dialect = resolved
    if dialect.name == "sqlite":
        try:
            resolved_url = sqlite_read_only_url(resolved_url)
        except FileNotFoundError as exc:
            raise ConfigurationError(
                "DATA_DATABASE_URL", f"DATA_DATABASE_URL: SQLite database file not found: {exc}"
            ) from None
    database = GenericDatabase.open(
        resolved_url,
        max_size=int(pool_options.get("max_size", 10)),
        connect_timeout=float(pool_options.get("connect_timeout", 5.0)),
    )
    how = database.rules.read_only
    # One line at start-up; a warning when nothing but the guard keeps statements read-only.
    (logger.info if how else logger.warning)(
        "generic engine on %s (SQLAlchemy %s, read as %s SQL): read-only by %s",
        database.runner.shown,
        dialect.name,
        database.dialect,
        how or "the SQL guard alone (the dialect has no read-only mode here)",
    )
    return database
