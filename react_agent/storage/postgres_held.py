"""A pooled connection that a batch writer keeps while it has batches to send, and its cursor."""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any

import psycopg
from psycopg_pool import PoolClosed, PoolTimeout

from react_agent.databases.postgres.pool import is_connection_failure

logger = logging.getLogger(__name__)

MAX_RESENDS = 16
"""Statements sent again on another connection when the one just lent was closed (more
than a pool's connections: POSTGRES_POOL_MAX_SIZE is 10 by default)."""


class HeldConnection:
    """Statements of one writer on one pooled connection, taken at the first, kept until released.

    A batch writer that took a connection from the pool and a new cursor for each
    statement spent about 70 µs of CPU a statement on it: the pool's hand-out and return,
    and the cursor's adapters looked up again for the same arrays. A writer that finds more
    to write after a statement sends it on the same connection with the same cursor, and
    releases both once it has nothing left (`release`).

    A statement that fails releases the connection at once: the pool gets it back (and
    drops it if it broke), and the next statement takes another.

    A statement that finds the connection it was just lent closed by the server is sent
    again on another (at most MAX_RESENDS times): the pool hands out a connection back for
    less than a second unchecked (databases/postgres/pool.FRESH_SECONDS), and a server
    restarted meanwhile has closed every such one; each is dropped as it fails. The
    writers' statements may be sent twice (ON CONFLICT, NOTIFY).

    Args:
        lend: Lends a pooled connection (a pool's `connection`).

    """

    def __init__(
        self, lend: Callable[[], AbstractAsyncContextManager[psycopg.AsyncConnection[Any]]]
    ) -> None:
        self._lend = lend
        self._stack: AsyncExitStack | None = None
        self._cursor: psycopg.AsyncCursor[Any] | None = None

    async def execute(self, query: str, params: Any) -> None:
        """Run one statement, on the held connection (taken now if none is held)."""
        for resends in range(MAX_RESENDS + 1):
            lent = self._cursor is None
            try:
                await self._execute(query, params)
                return
            except Exception as exc:
                if not (lent and _dropped(exc)) or resends == MAX_RESENDS:
                    raise
                logger.info("a pooled connection was closed by the server (%s): sending again", exc)

    async def _execute(self, query: str, params: Any) -> None:
        if self._cursor is None:
            stack = AsyncExitStack()
            connection = await stack.enter_async_context(self._lend())
            self._stack, self._cursor = stack, connection.cursor()
        try:
            await self._cursor.execute(query, params)
        except BaseException:
            await self.release()
            raise

    async def release(self) -> None:
        """Give the connection back to the pool, if one is held."""
        stack, self._stack, self._cursor = self._stack, None, None
        if stack is not None:
            await stack.aclose()


def _dropped(exc: BaseException) -> bool:
    """Whether `exc` says the server closed a connection (not that none could be had)."""
    return is_connection_failure(exc) and not isinstance(exc, PoolTimeout | PoolClosed)
