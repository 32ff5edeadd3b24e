"""A read-only MySQL/MariaDB session on a pooled connection, and what its errors mean."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import asyncmy

from react_agent.databases.base import QueryFailed, statement_timed_out
from react_agent.databases.mysql.connection import (
    bindable,
    kill_query,
    session_limits_sql,
    shown_url,
)
from react_agent.databases.mysql.families import WITHOUT_READ_ONLY_TRANSACTIONS, server_family
from react_agent.errors import ServiceError

# Client errors 2003/2006/2013/2055: the server cannot be reached or went away.
_CONNECTION_ERRORS = frozenset({2002, 2003, 2005, 2006, 2013, 2055})
# 1969: MariaDB's max_statement_time; 3024: MySQL's MAX_EXECUTION_TIME.
_TIME_LIMIT_ERRORS = frozenset({1969, 3024})


@asynccontextmanager
async def read_only_session(
    pool: Any,
    options: dict[str, Any],
    timeout: float | None,
    select_limit: int | None,
    statement: str | None = None,
    declared: str = "mysql",
) -> AsyncIterator[Any]:
    """Lend a connection inside a read-only transaction that is always rolled back.

    `declared` is the family the URL's scheme names; the server's greeting may name
    another (mysql/families), whose time limit and transactions then apply.

    A cancelled caller's statement is killed on the server from a side connection,
    and the connection it ran on is closed rather than returned to the pool. A failure
    of `statement` reaches the caller as QueryFailed, its values redacted.

    Raises:
        QueryFailed: The server refused or stopped a statement.
        ServiceError: 503 DATABASE_UNAVAILABLE when the server cannot be reached.

    """
    try:
        async with pool.acquire() as connection:
            thread_id = connection.thread_id()
            try:
                family = server_family(connection.get_server_info(), declared)
                async with connection.cursor() as cursor:
                    await cursor.execute(session_limits_sql(family, timeout, select_limit))
                    if family not in WITHOUT_READ_ONLY_TRANSACTIONS:
                        await cursor.execute("START TRANSACTION READ ONLY")
                yield connection
            except asyncio.CancelledError:
                await asyncio.shield(kill_query(options, thread_id))
                connection.close()
                raise
            finally:
                await _roll_back(connection)
    except asyncmy.errors.Error as exc:
        failure = translate_error(exc, timeout, options, statement)
        # The driver's own exception (its text unredacted) stays out of tracebacks.
        raise failure from (None if isinstance(failure, QueryFailed) else exc)
    except ConnectionError as exc:  # refused or reset before the protocol said anything
        raise unavailable(options, str(exc) or type(exc).__name__) from exc


def unavailable(options: dict[str, Any], problem: str) -> ServiceError:
    """Return the 503 for a MySQL data database that cannot be used."""
    return ServiceError(
        503,
        "DATABASE_UNAVAILABLE",
        f"MySQL data database {shown_url(options)} unavailable: {problem}",
        can_retry=True,
    )


async def fetch_all(
    connection: Any, sql: str, params: Mapping[str, Any] | None = None
) -> list[tuple[Any, ...]]:
    """Run one statement and return all its rows."""
    async with connection.cursor() as cursor:
        await cursor.execute(*bindable(sql, params))
        return list(await cursor.fetchall())


@asynccontextmanager
async def batch_time(timeout: float) -> AsyncIterator[None]:
    """Give a statement or a batch of rows `timeout` seconds (QueryFailed past them)."""
    try:
        async with asyncio.timeout(timeout):
            yield
    except TimeoutError as exc:
        raise statement_timed_out(timeout) from exc


def translate_error(
    exc: asyncmy.errors.Error,
    timeout: float | None,
    options: dict[str, Any],
    statement: str | None,
) -> Exception:
    """Return what a server error means: 503 unreachable, a timeout, or QueryFailed (redacted)."""
    code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
    message = str(exc.args[1]) if len(exc.args) > 1 else str(exc)
    if code in _CONNECTION_ERRORS:
        return unavailable(options, message)
    if code in _TIME_LIMIT_ERRORS and timeout is not None:
        return statement_timed_out(timeout)
    return QueryFailed(message.strip() or type(exc).__name__, statement)


async def _roll_back(connection: Any) -> None:
    if not connection.connected:
        return
    try:
        await connection.rollback()
    except asyncmy.errors.Error:
        connection.close()  # dropped by the pool on release
