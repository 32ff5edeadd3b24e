"""The rules of a PostgreSQL query's session: read-only, timed, scoped, always rolled back."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg import sql as pg_sql
from psycopg_pool import AsyncConnectionPool

from react_agent.databases.base import QueryFailed, SessionSettings, statement_timed_out
from react_agent.databases.postgres.pool import is_connection_failure, unavailable


async def forget_session_state(connection: psycopg.AsyncConnection[Any]) -> None:
    """Reset a connection given back to the pool (the pool's `reset`)."""
    # Queries run in rolled-back transactions, but advisory locks taken with
    # pg_advisory_lock() outlive them and would stay with the pooled session.
    await connection.execute("SELECT pg_advisory_unlock_all()")


@asynccontextmanager
async def read_only(
    pool: AsyncConnectionPool,
    timeout: float | None = None,
    session: SessionSettings | None = None,
    statement: str | None = None,
) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    """Lend a connection inside a read-only transaction that is always rolled back.

    Rolling back also undoes any `SET` a query made, so nothing carries over to the
    next user of the pooled connection. `session` (a role, `app.*` settings) is set
    transaction-locally, so row level security policies see the asking user. A failure
    of `statement` reaches the caller as QueryFailed, its values redacted.
    """
    try:
        async with pool.connection() as connection, connection.transaction(force_rollback=True):
            await connection.execute("SET TRANSACTION READ ONLY")
            if timeout is not None:
                milliseconds = max(1, round(timeout * 1000))
                await connection.execute(f"SET LOCAL statement_timeout = {milliseconds}")
            if session is not None:
                await _apply_session(connection, session)
            yield connection
    except psycopg.Error as exc:
        failure = translate_error(exc, pool.conninfo, timeout, statement)
        # The driver's own exception (its text unredacted) stays out of tracebacks.
        raise failure from (None if isinstance(failure, QueryFailed) else exc)


def translate_error(
    exc: psycopg.Error, conninfo: str, timeout: float | None, statement: str | None
) -> Exception:
    """Return what a server error means: 503 unreachable, a timeout, or QueryFailed (redacted)."""
    if is_connection_failure(exc):
        return unavailable("DATABASE_UNAVAILABLE", "PostgreSQL data database", conninfo, exc)
    if isinstance(exc, pg_errors.QueryCanceled) and timeout is not None:
        if "statement timeout" in (exc.diag.message_primary or ""):
            return statement_timed_out(timeout)
    message = (exc.diag.message_primary or str(exc)).strip() or type(exc).__name__
    return QueryFailed(message, statement)


async def _apply_session(
    connection: psycopg.AsyncConnection[Any], session: SessionSettings
) -> None:
    """Set the role and `app.*` settings for this transaction only (is_local = true)."""
    for name, value in session.settings.items():
        await connection.execute("SELECT set_config(%s, %s, true)", (name, value))
    if session.role:
        # Last: the role may not be allowed to call set_config on custom settings' names.
        await connection.execute(
            pg_sql.SQL("SET LOCAL ROLE {}").format(pg_sql.Identifier(session.role))
        )


def bindable(sql: str, params: Mapping[str, Any] | None) -> tuple[str, Mapping[str, Any] | None]:
    """Return the SQL and params for psycopg: with params, every other `%` is doubled."""
    if not params:
        return sql, None
    names = "|".join(re.escape(name) for name in params)
    return re.sub(rf"%(?!\((?:{names})\)s)", "%%", sql), params
