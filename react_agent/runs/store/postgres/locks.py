"""One question at a time per thread, in every process: PostgreSQL advisory locks."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from psycopg_pool import AsyncConnectionPool

from react_agent.databases.postgres.pool import unavailable
from react_agent.errors import ServiceError
from react_agent.runs.store.locks import Release, liveness_key, thread_busy
from react_agent.runs.store.postgres.lock_session import (
    BUSY,
    FIRST_ONLY,
    LOCKED,
    LockOp,
    LockSession,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")

LOCK_SESSION_NAME = "react-agent thread locks"
"""application_name of the lock session, unless the connection settings name one."""


class PostgresThreadLocks:
    """Thread claims shared by every process using the same PostgreSQL database.

    A claim is a session-level advisory lock, held by a dedicated session of this process
    (store/postgres/lock_session), so a process may run any number of questions without
    tying up the checkpointer's pool, and a process that dies frees its threads with its
    session. The session is a connection of its own, opened with the pool's settings on
    the first claim. The claims and frees that come while one of its statements is under
    way go together in the next, so at 100 questions at once they do not queue one
    statement each (a stream's `started` waited for them, p50 0.78 s in `python -m bench`,
    when they did).

    A run's liveness claim (`liveness_key`, watched by followers in other processes) is
    taken with its thread when the runner names the run (`claim(thread, run_id=...)`),
    in the same statement, or by `hold_run`. It is held while the thread's claim or the
    run store need it (`end_run` counts them down), then freed `later`: with the next
    statement, since nobody looks at it once the run is marked finished. A streamed
    question thus costs the session two statements, its claim and its thread's free, not
    four.

    Should the session end (a PostgreSQL restart), its locks are gone and the next claim
    opens a new one. Runs holding claims then keep their threads in this process only,
    so another process could start on one of those threads; that window is the outage
    itself, during which those runs cannot save their checkpoints anyway.

    Args:
        pool: The checkpointer's pool, whose conninfo and connection settings the
            session uses (its connections are not used).

    """

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self.pool = pool
        self.session = LockSession(pool, LOCK_SESSION_NAME, self._unavailable)
        # Keys claimed, or being claimed, here. Advisory locks are re-entrant within a
        # session, so only this set keeps a second run of this process off a thread.
        self._held: set[str] = set()
        self._runs: dict[str, _RunClaim] = {}
        """The liveness claims of this process's runs, and who still needs each."""
        self._tasks: set[asyncio.Task[Any]] = set()

    async def claim(self, thread_id: str, *, run_id: str | None = None) -> Release:
        """Take the thread or raise 409 THREAD_BUSY (503 if PostgreSQL cannot be reached).

        With `run_id`, the claim holds the run's liveness claim too (taken along in the
        same statement unless held already), until the thread is freed.
        """
        if thread_id in self._held:
            raise thread_busy(thread_id)
        also = None if run_id is None or run_id in self._runs else liveness_key(run_id)
        # Reserved before the round trip, so a concurrent claim here is refused as well.
        self._held.add(thread_id)
        try:
            got, generation = await self._granted(
                LockOp(thread_id, also), functools.partial(self._abandon, thread_id, also)
            )
        except asyncio.CancelledError:
            raise  # the thread stays reserved until `_abandon` frees what was granted
        except BaseException:
            self._held.discard(thread_id)
            raise
        if got == FIRST_ONLY:  # another session holds this run's liveness: never expected
            await self._free(thread_id, generation)
            raise self._unavailable(f"the liveness claim of run {run_id} is held elsewhere")
        if got == BUSY:
            self._held.discard(thread_id)
            raise thread_busy(thread_id)
        if run_id is not None:
            self._hold(run_id, generation if also is not None else None)
        released = False

        async def release() -> None:
            nonlocal released
            if not released:  # a second unlock could free the thread from a newer run
                released = True
                if run_id is not None:
                    self.end_run(run_id)  # a last hold's free goes in the thread's statement
                # Shielded: a release cancelled halfway must still reach the server.
                await asyncio.shield(self._spawn(self._free(thread_id, generation)))

        return release

    async def hold_run(self, run_id: str) -> None:
        """Hold the run's liveness claim until `end_run` (taking it now if not held yet)."""
        if run_id in self._runs:
            self._hold(run_id, None)
            return
        key = liveness_key(run_id)
        got, generation = await self._granted(
            LockOp(key), functools.partial(self._abandon_key, key)
        )
        if got != LOCKED:
            raise self._unavailable(f"the liveness claim of run {run_id} is held elsewhere")
        self._hold(run_id, generation)

    def end_run(self, run_id: str) -> None:
        """Give back a hold of the run's liveness claim; the last one frees it `later`."""
        claim = self._runs.get(run_id)
        if claim is None:
            return
        claim.holds -= 1
        if claim.holds <= 0:
            del self._runs[run_id]
            key = liveness_key(run_id)
            for generation in claim.taken:
                self.session.later(LockOp(key, free=True, generation=generation))

    def _hold(self, run_id: str, taken: int | None) -> None:
        """Count a hold of the run's liveness claim (and its taking in generation `taken`).

        A claim and a `hold_run` of one run on their way together both take the key; the
        session then holds it twice (advisory locks count), and is sent a free for each.
        """
        claim = self._runs.get(run_id)
        if claim is None:
            if taken is None:
                return
            claim = self._runs[run_id] = _RunClaim(holds=0)
        claim.holds += 1
        if taken is not None:
            claim.taken.append(taken)

    async def is_running(self, thread_id: str) -> bool:
        """Whether a run in any process holds the thread (or the key)."""
        if thread_id in self._held:
            return True
        return await self.session.fetch_flag(_IS_LOCKED_SQL, {"thread_id": thread_id})

    async def aclose(self) -> None:
        """Close the session, which frees every lock it still holds; later claims get 503."""
        if self._tasks:
            # Frees on their way end first (wait() does not cancel them if we are), but
            # a server that stopped answering must not hold up shutdown.
            await asyncio.wait(set(self._tasks), timeout=self.pool.timeout)
        await self.session.aclose()

    async def _free(self, thread_id: str, generation: int) -> None:
        # The lock is freed on the session that took it: should that one have ended, so
        # has the lock, and the current session may hold the thread for a newer run.
        try:
            freed, _ = await self.session.run(LockOp(thread_id, free=True, generation=generation))
            if not freed and generation == self.session.generation:
                logger.warning("thread %s was not locked when its run ended", thread_id)
        except Exception as exc:
            # Typically the server restarted during the run, which ended the session and
            # its lock with it; freeing the thread here must not fail the run's cleanup.
            logger.warning("could not unlock thread %s: %s", thread_id, exc)
        finally:
            self._held.discard(thread_id)

    async def _granted(
        self, op: LockOp, abandon: Callable[[asyncio.Task[tuple[int, int]]], None]
    ) -> tuple[int, int]:
        """Send the claim `op`; return what it got and the session's generation.

        The server may grant a lock after the claimant has gone: if the caller is
        cancelled, the attempt runs to its end and `abandon` frees what it got, instead of
        a lock held by nobody.
        """
        attempt = self._spawn(self.session.run(op))
        try:
            return await asyncio.shield(attempt)
        except asyncio.CancelledError:
            attempt.add_done_callback(abandon)
            raise

    def _abandon(
        self, thread_id: str, also: str | None, attempt: asyncio.Task[tuple[int, int]]
    ) -> None:
        """Free what a claim took after its claimant was cancelled."""
        got, generation = BUSY, 0
        if not attempt.cancelled() and attempt.exception() is None:
            got, generation = attempt.result()
        if got == BUSY:
            self._held.discard(thread_id)
            return
        self._spawn(self._free(thread_id, generation))
        if also is not None:
            self._abandon_key(also, attempt)

    def _abandon_key(self, key: str, attempt: asyncio.Task[tuple[int, int]]) -> None:
        """Free (later) a key whose claim was granted after its claimant was cancelled."""
        if not attempt.cancelled() and attempt.exception() is None:
            got, generation = attempt.result()
            if got == LOCKED:
                self.session.later(LockOp(key, free=True, generation=generation))

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


@dataclass(slots=True)
class _RunClaim:
    holds: int
    """The thread's claim (until the thread is freed) and the run store (until the run
    is marked finished), each while it needs the claim."""
    taken: list[int] = field(default_factory=list)
    """The session generation of each time the key was taken (once, but for a race)."""


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
