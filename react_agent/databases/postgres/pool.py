"""PostgreSQL connection pools that open without waiting and recover from server outages."""

from __future__ import annotations

import asyncio
import math
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypedDict

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool, PoolClosed, PoolTimeout

from react_agent.errors import ServiceError

RECONNECT_TIMEOUT = 30.0
"""Seconds the pool retries one failed connection with growing back-off before giving up.

After giving up, the next request starts a fresh attempt at once, so this also bounds how
long the pool may wait between attempts after a long outage (about half of it).
"""

# Sessions ended by the server (admin shutdown, crash, start-up) are outages, not bad SQL.
_SERVER_GONE_SQLSTATES = frozenset({"57P01", "57P02", "57P03"})

ConnectionHook = Callable[[psycopg.AsyncConnection[Any]], Awaitable[None]]


class PoolOptions(TypedDict, total=False):
    """Pool settings shared by the checkpointer's and the data database's pools."""

    min_size: int
    """Connections kept open even when idle."""
    max_size: int
    """Most connections the pool opens."""
    max_lifetime: float
    """Seconds after which a connection is replaced (when back in the pool)."""
    max_idle: float
    """Seconds an idle connection above min_size is kept."""
    prepare_threshold: int | None
    """Executions before psycopg prepares a query; None never prepares (PgBouncer)."""
    connect_timeout: float
    """Seconds to wait for a new connection, or for a free one from the pool."""
    reconnect_timeout: float
    """Seconds one failed connection is retried in the background before giving up."""


POSTGRES_WIRE_SCHEMES = (
    "postgresql",
    "postgres",
    "kingbase",
    "kingbasees",
    "opengauss",
    "gaussdb",
    "highgo",
)
"""URL schemes of servers that speak PostgreSQL's wire protocol (the registry's families)."""


def postgres_conninfo(url: str) -> str:
    """Return `url` as psycopg accepts it (`postgres://`, `opengauss://`, `…+psycopg://` too).

    A `key=value` connection string is returned unchanged.
    """
    scheme, separator, rest = url.strip().partition("://")
    if separator and scheme.lower().split("+")[0] in POSTGRES_WIRE_SCHEMES:
        return f"postgresql://{rest}"
    return url.strip()


def describe_target(conninfo: str) -> str:
    """Return `host:port/database` of a connection string, without user or password."""
    try:
        params = conninfo_to_dict(conninfo)
    except psycopg.ProgrammingError:
        return "PostgreSQL"
    host = params.get("host") or params.get("hostaddr") or "localhost"
    return f"{host}:{params.get('port') or 5432}/{params.get('dbname') or ''}"


FRESH_SECONDS = 1.0
"""A connection back in the pool for less than this is handed out again unchecked.

Checking a connection is a round trip to the server at every checkout: under load,
about 8 ms of CPU per question with the PostgreSQL checkpointer, which takes a
connection for each checkpoint (`python -m bench.cost_per_question`). One that was
working a moment ago is as good as checked; one idle longer (perhaps through a server
restart) is checked as before.
"""


class _RecentUseCheck:
    """The pool's `check` and `reset` hooks: check only connections idle for a while."""

    def __init__(self, reset: ConnectionHook | None) -> None:
        self._returned: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()
        self._reset = reset

    async def check(self, connection: psycopg.AsyncConnection) -> None:
        returned = self._returned.pop(connection, None)
        if returned is not None and time.monotonic() - returned < FRESH_SECONDS:
            return
        await AsyncConnectionPool.check_connection(connection)

    async def reset(self, connection: psycopg.AsyncConnection) -> None:
        if self._reset is not None:
            await self._reset(connection)
        self._returned[connection] = time.monotonic()


async def open_pool(
    url: str,
    *,
    name: str,
    min_size: int = 1,
    max_size: int = 10,
    max_lifetime: float = 1800.0,
    max_idle: float = 300.0,
    prepare_threshold: int | None = None,
    connect_timeout: float = 5.0,
    reconnect_timeout: float = RECONNECT_TIMEOUT,
    connection_kwargs: dict[str, Any] | None = None,
    configure: ConnectionHook | None = None,
    reset: ConnectionHook | None = None,
) -> AsyncConnectionPool:
    """Create a pool of autocommit connections and start filling it in the background.

    Returns at once even when the server is down: the pool keeps trying to connect, and
    a request for a connection waits at most `connect_timeout` seconds before PoolTimeout.
    A connection idle for FRESH_SECONDS or more is checked when it is handed out, so
    connections that died with a server restart are replaced instead of failing the request.

    Args:
        url: `postgresql://`, `postgres://` or `postgresql+psycopg://` URL, or a conninfo.
        name: The pool's name in psycopg's logs.
        min_size: Connections kept open even when idle.
        max_size: Most connections the pool opens.
        max_lifetime: Seconds after which a returned connection is replaced.
        max_idle: Seconds an idle connection above min_size is kept.
        prepare_threshold: psycopg's prepare threshold: None disables prepared statements
            (needed behind PgBouncer in transaction mode), 0 prepares every query.
        connect_timeout: Seconds to wait for a connection, new or from the pool.
        reconnect_timeout: Seconds a failed connection is retried before giving up.
        connection_kwargs: More arguments for `psycopg.AsyncConnection.connect`.
        configure: Run on each new connection before the pool hands it out.
        reset: Run on each connection returned to the pool.

    """
    kwargs: dict[str, Any] = {
        "autocommit": True,
        "prepare_threshold": prepare_threshold,
        # libpq counts whole seconds and treats anything under 2 as 2.
        "connect_timeout": max(2, math.ceil(connect_timeout)),
        **(connection_kwargs or {}),
    }
    recent_use = _RecentUseCheck(reset)
    pool: AsyncConnectionPool = AsyncConnectionPool(
        postgres_conninfo(url),
        kwargs=kwargs,
        min_size=min_size,
        max_size=max_size,
        max_lifetime=max_lifetime,
        max_idle=max_idle,
        timeout=connect_timeout,
        reconnect_timeout=reconnect_timeout,
        check=recent_use.check,
        configure=configure,
        reset=recent_use.reset,
        name=name,
        open=False,
    )
    await pool.open(wait=False)
    return pool


def is_connection_failure(exc: BaseException) -> bool:
    """Whether `exc` means the server could not be reached or dropped the connection."""
    if isinstance(exc, PoolTimeout | PoolClosed):
        return True
    if not isinstance(exc, psycopg.OperationalError):
        return False
    sqlstate = exc.sqlstate
    # Errors raised by the client itself (refused, reset, closed) carry no SQLSTATE.
    return sqlstate is None or sqlstate.startswith("08") or sqlstate in _SERVER_GONE_SQLSTATES


def unavailable(error_type: str, what: str, conninfo: str, reason: object) -> ServiceError:
    """Return the 503 a client gets while a PostgreSQL server cannot be used."""
    return ServiceError(
        503,
        error_type,
        f"{what} ({describe_target(conninfo)}) is unavailable: {reason}",
        can_retry=True,
    )


async def ping_pool(pool: AsyncConnectionPool, *, timeout: float) -> str | None:
    """Return None if a pooled connection answers within `timeout` seconds, else why not.

    When the pool has no connection to give, a direct connection attempt finds the
    server's own reason (refused, unknown database, bad password…).
    """
    try:
        async with asyncio.timeout(timeout):
            try:
                async with pool.connection(timeout=timeout / 2) as connection:
                    await connection.execute("SELECT 1")
                return None
            except psycopg.OperationalError as exc:
                problem = await _direct_connection_problem(pool)
                if problem is not None:
                    return problem
                return (
                    f"{_first_line(exc)} (the server accepts new connections, so the pool's "
                    "are all in use or failed to be prepared)"
                )
    except TimeoutError:
        return f"no answer within {timeout:g} s"


async def _direct_connection_problem(pool: AsyncConnectionPool) -> str | None:
    assert isinstance(pool.conninfo, str)
    kwargs = {key: value for key, value in pool.kwargs.items() if key != "row_factory"}
    try:
        connection = await psycopg.AsyncConnection.connect(pool.conninfo, **kwargs)
    except psycopg.Error as exc:
        return _first_line(exc)
    await connection.close()
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
