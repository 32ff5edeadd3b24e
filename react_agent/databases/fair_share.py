"""A fair share of one data source: at most N statements at once, a fair turn for each user.

A source's pool is the limit of what it can run at once; past that, statements used to
queue inside the pool in arrival order, so one user's ten scans held back everyone who came
after them. Here each user waiting has a queue of their own and turns go round the users
(round robin): a user's one statement waits for at most one statement of each other user
waiting before it. A wait is bounded: past `max_wait` seconds it ends in 503
DATA_SOURCE_BUSY naming the source, and the statement never runs.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from react_agent.errors import ServiceError

ASKER: ContextVar[str] = ContextVar("data_source_asker", default="")
"""Who the statements of the current task are for: set by the runner for its run and by an
export for its request; tasks a run starts (tools, sub-agents) inherit it."""

WaitReport = Callable[[str, int], None]
"""Told `(source, ahead)` when a statement starts waiting and each time its place moves;
always called in the waiting statement's own task (its run's context)."""

ShareReport = Callable[[str, "ShareCounts"], None]
"""Told `(source, counts)` each time a source's counts change (its metrics)."""


@dataclass(eq=False)
class _Waiter:
    user: str
    ahead: int = -1
    """Statements that run before it, as the queue stands now."""
    granted: bool = False
    moved: asyncio.Event = field(default_factory=asyncio.Event)
    """Wakes the waiter's own task: its place moved or its turn came."""


@dataclass
class ShareCounts:
    """What /health and /metrics show of a source's share."""

    max_concurrent: int
    in_use: int = 0
    queued: int = 0
    refused: int = 0
    """Statements that waited longer than the bound (503), since the process started."""


@dataclass(eq=False)
class FairShare:
    """The turns of one source: `max_concurrent` at once, round robin between users.

    Args:
        source: The source's name, as messages and metrics say it.
        max_concurrent: Statements that may run at once (at least 1).
        max_wait: Seconds a statement may wait for its turn before 503 DATA_SOURCE_BUSY.

    """

    source: str
    max_concurrent: int
    max_wait: float
    on_change: ShareReport | None = None
    _in_use: int = 0
    _refused: int = 0
    _queues: OrderedDict[str, deque[_Waiter]] = field(default_factory=OrderedDict)

    def counts(self) -> ShareCounts:
        """Return the in-use, queued and refused counts now."""
        queued = sum(len(queue) for queue in self._queues.values())
        return ShareCounts(self.max_concurrent, self._in_use, queued, self._refused)

    def order(self) -> list[_Waiter]:
        """Return the waiters in the order they will get their turns."""
        queues = list(self._queues.values())
        longest = max((len(queue) for queue in queues), default=0)
        return [queue[k] for k in range(longest) for queue in queues if len(queue) > k]

    @asynccontextmanager
    async def turn(self, report: WaitReport | None = None) -> AsyncIterator[None]:
        """Hold one of the source's slots for the body, waiting for a fair turn if need be.

        Raises:
            ServiceError: 503 DATA_SOURCE_BUSY when no turn came within `max_wait`.

        """
        if self._in_use < self.max_concurrent and not self._queues:
            self._in_use += 1
            self._changed()
        else:
            await self._wait(ASKER.get() or "anonymous", report)
        try:
            yield
        finally:
            self._release()

    async def _wait(self, user: str, report: WaitReport | None) -> None:
        waiter = _Waiter(user)
        self._queues.setdefault(user, deque()).append(waiter)
        self._move_places()
        self._changed()
        try:
            async with asyncio.timeout(self.max_wait):
                await self._follow(waiter, report)
        except TimeoutError:
            if waiter.granted:  # the turn came as the wait ended: take it
                return
            self._refused += 1
            self._forget(waiter)
            raise ServiceError(
                503,
                "DATA_SOURCE_BUSY",
                f"the data source {self.source!r} had no free turn within {self.max_wait:g} s",
                source=self.source,
            ) from None
        except BaseException:  # cancelled, or the report failed
            if waiter.granted:
                self._release()  # granted, but its task is gone: pass the slot on
            else:
                self._forget(waiter)
            raise

    async def _follow(self, waiter: _Waiter, report: WaitReport | None) -> None:
        """Wait in the waiter's own task for its turn, telling `report` each new place.

        The task that frees a slot or joins the queue only moves places and wakes the
        waiters: a report runs here, so it lands in the waiter's run (its context's event
        sink), never in the run of the task that moved it.
        """
        told = -1
        while not waiter.granted:
            if report is not None and waiter.ahead != told:
                told = waiter.ahead
                report(self.source, told)
            waiter.moved.clear()
            await waiter.moved.wait()

    def _forget(self, waiter: _Waiter) -> None:
        queue = self._queues.get(waiter.user)
        if queue is not None and waiter in queue:
            queue.remove(waiter)
            if not queue:
                del self._queues[waiter.user]
            self._move_places()
            self._changed()

    def _release(self) -> None:
        """Free a slot: it goes to the next user in the round, who moves to its end."""
        if not self._queues:
            self._in_use -= 1
            self._changed()
            return
        user, queue = next(iter(self._queues.items()))
        waiter = queue.popleft()
        del self._queues[user]
        if queue:  # the user's next statement waits for the round to come back
            self._queues[user] = queue
        waiter.granted = True  # the slot passes on: in_use stays
        waiter.moved.set()
        self._move_places()
        self._changed()

    def _move_places(self) -> None:
        """Give each waiter its place now, waking those whose place changed."""
        for ahead, waiter in enumerate(self.order()):
            if waiter.ahead != ahead:
                waiter.ahead = ahead
                waiter.moved.set()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self.source, self.counts())
