"""PostgreSQL LISTEN on a dedicated connection: wakes followers, delivers cancel requests."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from psycopg_pool import AsyncConnectionPool

from react_agent.log_reminders import TroubleLog
from react_agent.runs.store.postgres.session import open_session

logger = logging.getLogger(__name__)

EVENTS_CHANNEL = "run_events"
"""NOTIFY channel whose payload is the id of a run that has new events or ended."""

CANCEL_CHANNEL = "run_cancel"
"""NOTIFY channel whose payload is the id of a run to cancel."""

FOLLOW_CHANNEL = "run_follow"
"""NOTIFY channel whose payload is the id of a run followed from another process: its owner
notifies EVENTS_CHANNEL for that run from then on (not for runs only it follows)."""

LISTEN_SESSION_NAME = "react-agent run notifications"
"""application_name of the listening session, unless the connection settings name one."""

RECONNECT_DELAY = 1.0
"""Seconds between attempts to open the listening connection again after it broke."""


class RunNotifications:
    """Listens on both channels and wakes whoever waits for a run.

    Followers never depend on a notification alone (they also re-read every few
    seconds), so a broken listening connection costs latency, not events.

    Args:
        pool: The pool whose conninfo the listening connection uses (not its connections).
        on_cancel: Called with a run id when some process asks for that run's cancellation.
        on_listening: Awaited each time the session listens (again), to catch up on what
            was asked while it did not (a cancel notification is not sent twice).
        on_follow: Called with a run id when a process says it follows that run.

    """

    def __init__(
        self,
        pool: AsyncConnectionPool,
        on_cancel: Callable[[str], None],
        on_listening: Callable[[], Awaitable[None]] | None = None,
        on_follow: Callable[[str], None] | None = None,
    ) -> None:
        self.pool = pool
        self.on_cancel = on_cancel
        self.on_listening = on_listening
        self.on_follow = on_follow
        self._wakers: dict[str, asyncio.Event] = {}
        self._task: asyncio.Task[None] | None = None
        self._troubles = TroubleLog(logger)  # a server down: one line, then one a minute

    def start(self) -> None:
        """Start listening in the background (reconnecting until `aclose`)."""
        if self._task is None:
            self._task = asyncio.create_task(self._listen_forever(), name="run-notifications")

    def waker(self, run_id: str) -> asyncio.Event:
        """Return the event set at the run's next notification (take it before reading)."""
        event = self._wakers.get(run_id)
        if event is None:
            event = self._wakers[run_id] = asyncio.Event()
        return event

    def forget(self, run_id: str) -> None:
        """Drop the run's waker (when its last follower here has gone)."""
        self._wakers.pop(run_id, None)

    def wake(self, run_id: str) -> None:
        """Wake the followers of `run_id` in this process."""
        event = self._wakers.pop(run_id, None)
        if event is not None:
            event.set()

    async def aclose(self) -> None:
        """Stop listening."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def _listen_forever(self) -> None:
        while True:
            try:
                await self._listen()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._troubles.trouble(
                    "listen", f"run notifications: {exc}; listening again shortly"
                )
            self._wake_all()
            await asyncio.sleep(RECONNECT_DELAY)

    def _wake_all(self) -> None:
        """Wake every follower: they re-read, so nothing sent while not listening is missed."""
        for run_id in list(self._wakers):
            self.wake(run_id)

    async def _catch_up(self) -> None:
        if self.on_listening is None:
            return
        try:
            await self.on_listening()
        except Exception as exc:  # the notifications still come; only the catch-up failed
            logger.warning("run notifications: could not catch up: %s", exc)

    async def _listen(self) -> None:
        connection = await open_session(self.pool, LISTEN_SESSION_NAME)
        async with connection:
            await connection.execute(f"LISTEN {EVENTS_CHANNEL}")
            await connection.execute(f"LISTEN {CANCEL_CHANNEL}")
            await connection.execute(f"LISTEN {FOLLOW_CHANNEL}")
            self._troubles.over("listen", "run notifications: listening again")
            # Listening (again): what was sent before now is read at once, not at the next poll.
            self._wake_all()
            await self._catch_up()
            async for notification in connection.notifies():
                if notification.channel == CANCEL_CHANNEL:
                    self.on_cancel(notification.payload)
                elif notification.channel == FOLLOW_CHANNEL:
                    if self.on_follow is not None:
                        self.on_follow(notification.payload)
                else:
                    self.wake(notification.payload)
