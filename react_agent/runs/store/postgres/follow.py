"""Following a run another process owns: its events read when notified, its owner watched."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from react_agent.runs.events.event_log import Batch
from react_agent.runs.store.events import RUNNING, AbandonedPayloads, Payload
from react_agent.runs.store.locks import ThreadLocks, liveness_key
from react_agent.runs.store.postgres.abandoned import close_abandoned_run
from react_agent.runs.store.postgres.notifications import FOLLOW_CHANNEL, RunNotifications
from react_agent.runs.store.postgres.tables import RunTables

OWNER_CHECK_INTERVAL = 1.0
"""Seconds between a remote follower's checks that the run's owner is alive (and re-reads)."""


class RemoteFollower:
    """Follows runs of other processes through the tables and LISTEN/NOTIFY.

    Every OWNER_CHECK_INTERVAL seconds it says it is there (`followed_at`, and a
    FOLLOW_CHANNEL notice, after which the owner notifies each event) and checks the
    owner's liveness claim: a claim freed while the run is still `running` means the
    owner died, and the first follower to notice closes the run with the events
    `on_abandoned` gives.

    Args:
        tables: The run store's statements.
        notifications: This process's LISTEN session, which wakes followers.
        locks: Claims shared by every process (advisory locks).
        ensure_tables: Creates or migrates the run tables once per process.

    """

    def __init__(
        self,
        tables: RunTables,
        notifications: RunNotifications,
        locks: ThreadLocks,
        ensure_tables: Callable[[], Awaitable[None]],
    ) -> None:
        self.tables = tables
        self.notifications = notifications
        self.locks = locks
        self.ensure_tables = ensure_tables

    async def follow_batches(
        self, run_id: str, after: int, *, idle_timeout: float, on_abandoned: AbandonedPayloads
    ) -> AsyncIterator[Batch[Payload]]:
        """Yield the run's events after `after`, a read's events each time, until it ended."""
        last, idle_since, next_check = after, time.monotonic(), 0.0
        while True:
            waker = self.notifications.waker(run_id)  # taken before reading: no lost wake
            status, events = await self._read_after(run_id, last)
            if events:
                last = events[-1][0]
                yield events
            if status is None or status != RUNNING:
                return
            now = time.monotonic()
            if events:
                idle_since = now
            if now >= next_check:
                next_check = now + OWNER_CHECK_INTERVAL
                if await self._check_owner(run_id, on_abandoned):
                    continue  # the run was just closed here: read its last events
            wait = min(next_check, idle_since + idle_timeout) - time.monotonic()
            try:
                async with asyncio.timeout(max(wait, 0.0)):
                    await waker.wait()
            except TimeoutError:
                if time.monotonic() - idle_since >= idle_timeout:
                    idle_since = time.monotonic()
                    yield [(last, None)]

    async def _check_owner(self, run_id: str, on_abandoned: AbandonedPayloads) -> bool:
        """Say this follower is here; close the run if its owner died. True if closed now."""
        await self.tables.execute(
            "WITH here AS (UPDATE runs SET followed_at = now() WHERE run_id = %s)"
            f" SELECT pg_notify('{FOLLOW_CHANNEL}', %s)",
            (run_id, run_id),
        )
        if await self.locks.is_running(liveness_key(run_id)):
            return False
        return await self._close_abandoned(run_id, on_abandoned)

    async def _close_abandoned(self, run_id: str, on_abandoned: AbandonedPayloads) -> bool:
        async with self.tables.connection() as connection:
            return await close_abandoned_run(connection, run_id, on_abandoned)

    async def _read_after(self, run_id: str, after: int) -> tuple[str | None, list[Any]]:
        await self.ensure_tables()
        return await self.tables.read_after(run_id, after)
