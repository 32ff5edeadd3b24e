"""The session holding a process's advisory locks: claims and frees that come together go as one."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from react_agent.runs.store.postgres.session import open_session

logger = logging.getLogger(__name__)

LOCKED, FIRST_ONLY, BUSY = 2, 1, 0
"""What a claim got: its key (and its second key, if any), its key alone, or nothing."""

LOCK_STATEMENT = """
    SELECT CASE WHEN op.free THEN pg_advisory_unlock(hashtextextended(op.key, 0))::int
        WHEN NOT pg_try_advisory_lock(hashtextextended(op.key, 0)) THEN 0
        WHEN op.also IS NULL THEN 2
        WHEN pg_try_advisory_lock(hashtextextended(op.also, 0)) THEN 2
        ELSE 1 END
    FROM unnest(%b::boolean[], %b::text[], %b::text[]) WITH ORDINALITY AS op(free, key, also, n)
    ORDER BY op.n
"""
"""One statement for a batch of claims and frees, answered in their order.

A claim with a second key takes it only if it got the first (CASE evaluates its branches
in order). A free answers 1 if the key was held (PostgreSQL warns if it was not).
"""


@dataclass(slots=True, eq=False)
class LockOp:
    """A claim of `key` (and `also`, if given), or the free of `key` taken in `generation`."""

    key: str
    also: str | None = None
    free: bool = False
    generation: int = 0
    """For a free: the session the lock was taken in (a newer one no longer holds it)."""
    answer: asyncio.Future[tuple[int, int]] | None = field(default=None, repr=False)
    """(LOCKED, FIRST_ONLY or BUSY for a claim, 1 or 0 for a free; the generation)."""


class LockSession:
    """One PostgreSQL session of advisory locks, used a statement at a time.

    While a statement is under way, the claims and frees that come wait and go together
    in the next one: under load, a statement serves many questions. A free may be sent
    `later`: it waits for the next statement instead of making one (a run's liveness
    claim, which nobody looks at once its run is marked finished).

    Should the session end (a PostgreSQL restart), its locks are gone with it; the next
    statement opens a new one (a new `generation`), and frees of locks taken in an older
    one are answered without being sent, since the new session may hold the same key for
    a newer run.

    Args:
        pool: The pool whose conninfo and settings the session uses (not its connections).
        name: The session's application_name.
        unavailable: Makes the error a claim gets when PostgreSQL cannot be used.

    """

    def __init__(
        self, pool: AsyncConnectionPool, name: str, unavailable: Callable[[object], Exception]
    ) -> None:
        self.pool = pool
        self.name = name
        self.unavailable = unavailable
        self.generation = 0
        self.statements = 0
        """Statements sent so far (fewer than the claims and frees, under load)."""
        self._connection: psycopg.AsyncConnection[Any] | None = None
        self._pending: list[LockOp] = []
        self._later: list[LockOp] = []
        self._writer: asyncio.Task[None] | None = None
        self._connecting = asyncio.Lock()
        self.closed = False

    async def run(self, op: LockOp) -> tuple[int, int]:
        """Send `op` with the next statement; return its answer and the session's generation."""
        if self.closed:
            raise self.unavailable("the thread locks are closed")
        op.answer = asyncio.get_running_loop().create_future()
        self._pending.append(op)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_pending(), name="advisory-locks")
        return await op.answer

    def later(self, op: LockOp) -> None:
        """Send the free `op` with the next statement, whenever that is."""
        if not self.closed:
            self._later.append(op)

    async def fetch_flag(self, query: str, params: dict[str, Any], *, retry: bool = True) -> bool:
        """Run a one-boolean query on the session (psycopg runs it between batches)."""
        connection = await self._connected()
        try:
            cursor = await connection.execute(query, params)
            row = await cursor.fetchone()
        except psycopg.Error as exc:
            if retry and connection.closed and not self.closed:
                return await self.fetch_flag(query, params, retry=False)
            raise self.unavailable(exc) from exc
        return bool(row and row[0])

    async def aclose(self) -> None:
        """Close the session, which frees every lock it holds; later claims get 503."""
        self.closed = True
        if self._writer is not None:
            await asyncio.wait([self._writer], timeout=self.pool.timeout)
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()

    async def _write_pending(self) -> None:
        while self._pending:
            batch, self._pending = self._pending + self._later, []
            self._later = []
            try:
                await self._send(batch, retry=True)
            except BaseException as exc:
                for op in batch:
                    if op.answer is not None and not op.answer.done():
                        op.answer.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise

    async def _send(self, batch: list[LockOp], *, retry: bool) -> None:
        connection = await self._connected()
        generation = self.generation
        sent = [op for op in batch if not op.free or op.generation == generation]
        for op in batch:
            if op not in sent:  # its lock ended with an older session
                _answer(op, 0, generation)
        if not sent:
            return
        try:
            self.statements += 1
            cursor = await connection.execute(
                LOCK_STATEMENT,
                ([op.free for op in sent], [op.key for op in sent], [op.also for op in sent]),
            )
            rows = await cursor.fetchall()
        except psycopg.Error as exc:
            if retry and connection.closed and not self.closed:
                # The session ended since its last use (a server restart, usually), and its
                # locks with it: a new one answers now instead of these claims failing.
                await self._send(sent, retry=False)
                return
            if not connection.closed:  # the frees sent later still hold: keep them for later
                self._later += [op for op in sent if op.answer is None]
            raise self.unavailable(exc) from exc
        for op, row in zip(sent, rows, strict=True):
            _answer(op, int(row[0]), generation)

    async def _connected(self) -> psycopg.AsyncConnection[Any]:
        """Return the session, opening a new one if there is none or it has ended."""
        async with self._connecting:  # a query and a batch arriving together open one
            connection = self._connection
            if connection is not None and not connection.closed:
                return connection
            if self.closed:
                raise self.unavailable("the thread locks are closed")
            if connection is not None:
                logger.warning(
                    "the PostgreSQL session of the thread locks ended, and its locks with it; "
                    "opening a new one"
                )
            self._connection = None
            try:
                connection = await open_session(self.pool, self.name)
            except psycopg.Error as exc:
                raise self.unavailable(exc) from exc
            if self.closed:  # aclose() ran while connecting
                await connection.close()
                raise self.unavailable("the thread locks are closed")
            self._connection = connection
            self.generation += 1
            return connection


def _answer(op: LockOp, answer: int, generation: int) -> None:
    if op.answer is not None and not op.answer.done():
        op.answer.set_result((answer, generation))
