"""One question at a time per thread."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import psycopg
from psycopg import errors as pg_errors
from psycopg_pool import AsyncConnectionPool

from react_agent.errors import ServiceError
from react_agent.postgres_pool import unavailable

logger = logging.getLogger(__name__)

Release = Callable[[], Awaitable[None]]

CLAIM_GRACE = 0.5
"""Seconds a PostgreSQL claim waits for the thread's previous run to finish freeing it."""


class ThreadLocks(Protocol):
    """Grants a thread to one run at a time."""

    async def claim(self, thread_id: str) -> Release:
        """Take the thread or raise 409 THREAD_BUSY; return the function that frees it."""
        ...

    async def is_running(self, thread_id: str) -> bool:
        """Whether some run holds the thread."""
        ...


def thread_busy(thread_id: str) -> ServiceError:
    """Return the 409 error for a thread that is already answering."""
    return ServiceError(
        409,
        "THREAD_BUSY",
        f"thread {thread_id} is already answering a question",
        can_retry=True,
        thread_id=thread_id,
    )


class InProcessThreadLocks:
    """Thread claims within one process (enough for a single service process)."""

    def __init__(self) -> None:
        self._held: set[str] = set()

    async def claim(self, thread_id: str) -> Release:
        """Take the thread or raise 409 THREAD_BUSY."""
        if thread_id in self._held:
            raise thread_busy(thread_id)
        self._held.add(thread_id)

        async def release() -> None:
            self._held.discard(thread_id)

        return release

    async def is_running(self, thread_id: str) -> bool:
        """Whether a run in this process holds the thread."""
        return thread_id in self._held


class PostgresThreadLocks:
    """Thread claims shared by every process using the same PostgreSQL database.

    A claim is a session-level advisory lock on a connection taken from `pool` and held
    for the whole run, so a process that dies frees its threads with its sessions. Each
    running question therefore holds one pooled connection; `max_held` keeps the rest
    free for the checkpointer.

    Args:
        pool: The pool to take lock connections from (the checkpointer's).
        max_held: Most claims held at once by this instance; by default one less than
            the pool's max_size.
        grace: Seconds a claim waits for the thread's previous run to free it.

    """

    def __init__(
        self, pool: AsyncConnectionPool, *, max_held: int | None = None, grace: float = CLAIM_GRACE
    ) -> None:
        self.pool = pool
        self.max_held = max_held if max_held is not None else max(1, pool.max_size - 1)
        self.grace = grace
        self._slots = asyncio.Semaphore(self.max_held)  # one per lock connection
        self._running: set[str] = set()

    async def claim(self, thread_id: str) -> Release:
        """Take the thread or raise 409 THREAD_BUSY (503 if PostgreSQL cannot be reached)."""
        try:
            # Waiting a little lets a run that just ended give its slot back.
            async with asyncio.timeout(self.grace):
                await self._slots.acquire()
        except TimeoutError:
            raise self._unavailable(
                f"{self.max_held} questions are running, the most its pool allows "
                "(raise POSTGRES_POOL_MAX_SIZE)"
            ) from None
        acquired = False
        try:
            connection = await self.pool.getconn()
            try:
                acquired = await self._lock(connection, thread_id)
            except BaseException:
                # The server may have granted the lock before the answer was lost; only a
                # closed session is sure not to keep it.
                await connection.close()
                raise
            finally:
                if not acquired:
                    await self.pool.putconn(connection)
        except psycopg.Error as exc:
            raise self._unavailable(exc) from exc
        finally:
            if not acquired:
                self._slots.release()
        if not acquired:
            raise thread_busy(thread_id)
        self._running.add(thread_id)
        released = False

        async def release() -> None:
            nonlocal released
            if not released:  # a second call must not return the connection twice
                released = True
                await self._release(thread_id, connection)

        return release

    async def _lock(self, connection: psycopg.AsyncConnection[Any], thread_id: str) -> bool:
        # A try-lock that waits a little: the runner announces a result before its release
        # reaches the server, and a follow-up question sent at once must not get a 409.
        try:
            async with connection.transaction():
                milliseconds = max(1, round(self.grace * 1000))
                await connection.execute(f"SET LOCAL lock_timeout = {milliseconds}")
                # Session-level: the lock outlives this transaction and holds for the run.
                await connection.execute(
                    "SELECT pg_advisory_lock(hashtextextended(%s, 0))", (thread_id,)
                )
        except pg_errors.LockNotAvailable:
            return False
        return True

    async def _release(self, thread_id: str, connection: psycopg.AsyncConnection[Any]) -> None:
        unlocked = False
        try:
            cursor = await connection.execute(
                "SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (thread_id,)
            )
            row = await cursor.fetchone()
            unlocked = bool(row and _first(row))
        except Exception as exc:
            # Typically the server restarted during the run, which ended the session and
            # its lock with it; freeing the thread here must not fail the run's cleanup.
            logger.warning("could not unlock thread %s: %s", thread_id, exc)
        finally:
            self._running.discard(thread_id)
            self._slots.release()
            try:
                if not unlocked:
                    # A session that may still hold the lock must not go back to the pool,
                    # or the thread would stay claimed; closing it frees the lock.
                    await connection.close()
                await self.pool.putconn(connection)
            except Exception as exc:
                logger.warning("could not return the lock connection of %s: %s", thread_id, exc)

    async def is_running(self, thread_id: str) -> bool:
        """Whether a run in any process holds the thread."""
        if thread_id in self._running:
            return True
        try:
            async with self.pool.connection() as connection:
                cursor = await connection.execute(_IS_LOCKED_SQL, {"thread_id": thread_id})
                row = await cursor.fetchone()
        except psycopg.Error as exc:
            raise self._unavailable(exc) from exc
        return bool(row and _first(row))

    def _unavailable(self, reason: object) -> ServiceError:
        return unavailable(
            "CHECKPOINTER_UNAVAILABLE", "PostgreSQL checkpointer", str(self.pool.conninfo), reason
        )


# A bigint advisory key shows in pg_locks split into classid (high half) and objid (low
# half), with objsubid 1; the two-int4 form would have objsubid 2.
_IS_LOCKED_SQL = """
    WITH k AS (SELECT hashtextextended(%(thread_id)s, 0) AS key)
    SELECT EXISTS (
        SELECT 1 FROM pg_locks, k
        WHERE locktype = 'advisory' AND granted AND objsubid = 1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND classid = ((k.key >> 32) & 4294967295)::oid
          AND objid = (k.key & 4294967295)::oid
    )
"""


def _first(row: Any) -> Any:
    # Rows are tuples or dicts depending on the pool's row factory.
    return next(iter(row.values())) if isinstance(row, dict) else row[0]
