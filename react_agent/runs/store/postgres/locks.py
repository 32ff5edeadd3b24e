"""One question at a time per thread, in every process: PostgreSQL advisory locks."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

import psycopg
from psycopg_pool import AsyncConnectionPool

from react_agent.databases.postgres_pool import unavailable
from react_agent.errors import ServiceError
from react_agent.runs.store.locks import Release, thread_busy
from react_agent.runs.store.postgres.session import open_session

logger = logging.getLogger(__name__)

T = TypeVar("T")

LOCK_SESSION_NAME = "react-agent thread locks"
"""application_name of the lock sessions, unless the connection settings name one."""

LOCK_SESSIONS = 4
"""Sessions a process's claims are spread over, each thread always on the same one.

A session runs one statement at a time, and every question takes and frees two claims
(its thread, its run's liveness): with one session, at 100 questions at once the claims
queued behind each other and a stream's `started` waited for them (p50 0.78 s at c=100
in `python -m bench`, 0.37 s with four sessions).
"""


class PostgresThreadLocks:
    """Thread claims shared by every process using the same PostgreSQL database.

    A claim is a session-level advisory lock, held by one of a few dedicated sessions
    (LOCK_SESSIONS, chosen by the thread id), so a process may run any number of
    questions without tying up the checkpointer's pool, and a process that dies frees
    its threads with its sessions. Each session is a connection of its own, opened with
    the pool's settings on its first claim, rather than one kept out of the pool, which
    would leave the checkpointer fewer and escape the pool's checks anyway. Claims from
    many tasks share a session safely: psycopg runs one statement at a time on a
    connection, and each cursor keeps its own result.

    Should a session end (a PostgreSQL restart), its locks are gone and the next claim
    on it opens a new one. Runs holding claims then keep their threads in this process only,
    so another process could start on one of those threads; that window is the outage
    itself, during which those runs cannot save their checkpoints anyway.

    Args:
        pool: The checkpointer's pool, whose conninfo and connection settings the
            sessions use (its connections are not used).
        sessions: How many sessions the claims are spread over.

    """

    def __init__(self, pool: AsyncConnectionPool, sessions: int = LOCK_SESSIONS) -> None:
        self.pool = pool
        # Threads claimed, or being claimed, here. Advisory locks are re-entrant within a
        # session, so only this set keeps a second run of this process off a thread.
        self._held: set[str] = set()
        self._sessions: list[psycopg.AsyncConnection[Any] | None] = [None] * sessions
        self._connecting: list[asyncio.Task[psycopg.AsyncConnection[Any]] | None] = [
            None
        ] * sessions
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    async def claim(self, thread_id: str) -> Release:
        """Take the thread or raise 409 THREAD_BUSY (503 if PostgreSQL cannot be reached)."""
        if thread_id in self._held:
            raise thread_busy(thread_id)
        # Reserved before the round trip, so a concurrent claim here is refused as well.
        self._held.add(thread_id)
        attempt = self._spawn(self._try_lock(thread_id))
        try:
            session = await asyncio.shield(attempt)
        except asyncio.CancelledError:
            # The server may grant the lock after the claimant has gone: the attempt runs
            # to its end so that such a lock is freed instead of being held by nobody.
            attempt.add_done_callback(functools.partial(self._abandon, thread_id))
            raise
        except BaseException:
            self._held.discard(thread_id)
            raise
        if session is None:
            self._held.discard(thread_id)
            raise thread_busy(thread_id)
        released = False

        async def release() -> None:
            nonlocal released
            if not released:  # a second unlock could free the thread from a newer run
                released = True
                # Shielded: a release cancelled halfway must still reach the server.
                await asyncio.shield(self._spawn(self._unlock(thread_id, session)))

        return release

    async def is_running(self, thread_id: str) -> bool:
        """Whether a run in any process holds the thread."""
        if thread_id in self._held:
            return True
        _, locked = await self._fetch(_IS_LOCKED_SQL, {"thread_id": thread_id})
        return locked

    async def aclose(self) -> None:
        """Close the sessions, which frees every lock they still hold; later claims get 503."""
        self._closed = True
        if self._tasks:
            # Unlocks on their way end first (wait() does not cancel them if we are), but
            # a server that stopped answering must not hold up shutdown.
            await asyncio.wait(set(self._tasks), timeout=self.pool.timeout)
        for shard, session in enumerate(self._sessions):
            self._sessions[shard] = None
            if session is not None:
                await session.close()

    async def _try_lock(self, thread_id: str) -> psycopg.AsyncConnection[Any] | None:
        """Return the session that took the thread's lock, or None if another holds it."""
        # No waiting: the runner frees a thread before its run's last event, so a
        # follow-up question never races the release of the previous one.
        session, locked = await self._fetch(
            "SELECT pg_try_advisory_lock(hashtextextended(%s, 0))",
            (thread_id,),
            shard=hash(thread_id) % len(self._sessions),
        )
        return session if locked else None

    async def _unlock(self, thread_id: str, session: psycopg.AsyncConnection[Any]) -> None:
        # The lock is freed on the session that took it: should that one have ended, so
        # has the lock, and the current session may hold the thread for a newer run.
        try:
            cursor = await session.execute(
                "SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (thread_id,)
            )
            row = await cursor.fetchone()
            if not (row and _first(row)):
                logger.warning("thread %s was not locked when its run ended", thread_id)
        except Exception as exc:
            # Typically the server restarted during the run, which ended the session and
            # its lock with it; freeing the thread here must not fail the run's cleanup.
            logger.warning("could not unlock thread %s: %s", thread_id, exc)
        finally:
            self._held.discard(thread_id)

    def _abandon(
        self, thread_id: str, attempt: asyncio.Task[psycopg.AsyncConnection[Any] | None]
    ) -> None:
        """Free what a claim took after its claimant was cancelled."""
        session = None
        if not attempt.cancelled() and attempt.exception() is None:
            session = attempt.result()
        if session is None:
            self._held.discard(thread_id)
        else:
            self._spawn(self._unlock(thread_id, session))

    async def _fetch(
        self,
        query: str,
        params: tuple[Any, ...] | dict[str, Any],
        *,
        shard: int = 0,
        retry: bool = True,
    ) -> tuple[psycopg.AsyncConnection[Any], bool]:
        """Run a one-boolean query on a session; return the session and the answer."""
        session = await self._connected(shard)
        try:
            cursor = await session.execute(query, params)
            row = await cursor.fetchone()
        except psycopg.Error as exc:
            if retry and session.closed and not self._closed:
                # The session ended since its last use (a server restart, usually), and
                # its locks with it: a new one answers now instead of this call failing.
                return await self._fetch(query, params, shard=shard, retry=False)
            raise self._unavailable(exc) from exc
        return session, bool(row and _first(row))

    async def _connected(self, shard: int) -> psycopg.AsyncConnection[Any]:
        """Return session `shard`, opening a new one if there is none or it has ended."""
        session = self._sessions[shard]
        if session is not None and not session.closed:
            return session
        if self._closed:
            raise self._unavailable("the thread locks are closed")
        # Claims arriving meanwhile share one attempt, and so share its failure: an
        # unreachable server costs them one connect timeout, not one each in turn.
        connecting = self._connecting[shard]
        if connecting is None or connecting.done():
            connecting = self._connecting[shard] = self._spawn(self._connect(shard))
        try:
            return await asyncio.shield(connecting)
        except psycopg.Error as exc:
            raise self._unavailable(exc) from exc

    async def _connect(self, shard: int) -> psycopg.AsyncConnection[Any]:
        stale, self._sessions[shard] = self._sessions[shard], None
        if stale is not None:
            await stale.close()
            logger.warning(
                "the PostgreSQL session of the thread locks ended, and its locks with it; "
                "opening a new one"
            )
        session = await open_session(self.pool, LOCK_SESSION_NAME)
        if self._closed:  # aclose() ran while connecting
            await session.close()
            raise self._unavailable("the thread locks are closed")
        self._sessions[shard] = session
        return session

    def _spawn(self, coroutine: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Run `coroutine` in a task kept until it ends (aclose waits for them)."""
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._forget)
        return task

    def _forget(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled():
            # Marks an error as seen: its awaiters got it, and an attempt whose claimants
            # all left has nobody to tell (asyncio would log it as never retrieved).
            task.exception()

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
