"""A long-lived PostgreSQL session of its own, opened with a pool's settings."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool


async def open_session(pool: AsyncConnectionPool, name: str) -> psycopg.AsyncConnection[Any]:
    """Open a session with `pool`'s conninfo and settings, outside the pool.

    Autocommit, or the session would sit idle in a transaction for good; tuple rows; TCP
    keepalives, so that a session that waits (on a lock, on notifications) notices a
    server that vanished without closing it.

    Args:
        pool: The pool whose conninfo and connection settings the session uses.
        name: The session's application_name, unless the connection settings name one.

    """
    conninfo, kwargs = pool.conninfo, pool.kwargs or {}
    assert isinstance(conninfo, str) and isinstance(kwargs, dict)
    options = {key: value for key, value in kwargs.items() if key != "row_factory"}
    options["autocommit"] = True
    options.setdefault("fallback_application_name", name)
    options.setdefault("keepalives", 1)
    options.setdefault("keepalives_idle", 30)
    options.setdefault("keepalives_interval", 10)
    options.setdefault("keepalives_count", 3)
    return await pool.connection_class.connect(conninfo, **options)
