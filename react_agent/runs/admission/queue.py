"""Admission control: at most N graph runs at once per process, the rest wait in FIFO order."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from react_agent.errors import ServiceError

PositionCallback = Callable[[int], None]
"""Told a waiting run's place in the queue (1 = next) as it moves."""

POSITION_INTERVAL = 1.0
"""Seconds between two passes telling the waiting runs their places.

Telling every waiting run its place at every freed slot would cost O(waiting²) events
as a long queue drains; a pass at most this often, telling a run only its moves to the
last few places or by a tenth, costs each run a few dozen events however long the queue.
"""
CLOSE_PLACES = 10
"""Places near the head told at every move."""


class Ticket:
    """One run's admission: granted at once, or a place in the queue until a slot is free."""

    def __init__(self, admission: Admission, granted: bool) -> None:
        self._admission = admission
        self._granted = asyncio.get_running_loop().create_future()
        self.on_position: PositionCallback | None = None
        self.told = 0
        """The place this run was last told (0: none yet)."""
        self._holding = False
        if granted:
            self._granted.set_result(None)
            self._holding = True

    @property
    def waiting(self) -> bool:
        """Whether the run still waits for a slot."""
        return not self._granted.done()

    async def wait(self) -> None:
        """Wait for a slot (FIFO); a cancelled waiter leaves the queue."""
        try:
            await asyncio.shield(self._granted)
        except asyncio.CancelledError:
            self._admission.leave_queue(self)
            raise
        self._holding = True

    def release(self) -> None:
        """Free the slot (or the place in the queue); safe to call more than once."""
        if self._holding:
            self._holding = False
            self._admission.free_slot()
        elif self.waiting:
            self._admission.leave_queue(self)

    def grant(self) -> None:
        """Give this waiting ticket the slot just freed."""
        self._granted.set_result(None)
        self._holding = True

    def tell(self, position: int) -> None:
        """Tell the run its place, if it moved near the head or by a tenth since told."""
        if self.on_position is None or position == self.told:
            return
        if self.told and position > CLOSE_PLACES and position > 0.9 * self.told:
            return
        self.told = position
        self.on_position(position)


class Admission:
    """Counts the graph runs of this process and queues those beyond `max_active`.

    Args:
        max_active: Most runs at once (RUNS_MAX_ACTIVE); 0 means no limit.
        max_queued: Most runs waiting (RUNS_MAX_QUEUED); one more gets 503 QUEUE_FULL.
        retry_after: Seconds a refused client is told to wait (the Retry-After header).

    """

    def __init__(self, max_active: int, max_queued: int, retry_after: int = 5) -> None:
        self.max_active = max_active
        self.max_queued = max_queued
        self.retry_after = retry_after
        self.active = 0
        self.queue: deque[Ticket] = deque()
        self.on_queued: Callable[[], None] | None = None
        """Told each time a run starts waiting (RUNS_MAX_ACTIVE=auto watches the queue)."""
        self.on_full: Callable[[], None] | None = None
        """Told when a run finds the queue full, before it is refused (auto lets one in)."""
        self._pass_pending = False
        self._last_pass = float("-inf")

    def reserve(self) -> Ticket:
        """Return a ticket: granted now if a slot is free, else queued.

        Raises:
            ServiceError: 503 QUEUE_FULL when RUNS_MAX_QUEUED runs already wait.

        """
        if self.max_active <= 0 or (self.active < self.max_active and not self.queue):
            self.active += 1
            return Ticket(self, granted=True)
        if len(self.queue) >= self.max_queued and self.on_full is not None and self.queue:
            self.on_full()  # may raise the limit and let the head of the queue in
        if len(self.queue) >= self.max_queued:
            raise ServiceError(
                503,
                "QUEUE_FULL",
                f"{self.active} questions are running and {len(self.queue)} waiting; "
                "ask again shortly",
                can_retry=True,
                retry_after=self.retry_after,
            )
        ticket = Ticket(self, granted=False)
        self.queue.append(ticket)
        if self.on_queued is not None:
            self.on_queued()
        return ticket

    def position(self, ticket: Ticket) -> int:
        """Return the ticket's place in the queue (1 = next), 0 if it is not queued."""
        try:
            return self.queue.index(ticket) + 1
        except ValueError:
            return 0

    def free_slot(self) -> None:
        """Hand a freed slot to the first in the queue, or count it free."""
        if self.queue and (self.max_active <= 0 or self.active <= self.max_active):
            self.queue.popleft().grant()
            self._tell_positions()
        else:
            self.active -= 1  # none waits, or the limit was lowered meanwhile

    def grant_waiting(self) -> None:
        """Give the waiting runs the slots a raised limit made free (first come first)."""
        granted = False
        while self.queue and (self.max_active <= 0 or self.active < self.max_active):
            self.active += 1
            self.queue.popleft().grant()
            granted = True
        if granted:
            self._tell_positions()

    def leave_queue(self, ticket: Ticket) -> None:
        """Take a waiting ticket out of the queue (its run was cancelled)."""
        if ticket in self.queue:
            self.queue.remove(ticket)
            self._tell_positions()

    def _tell_positions(self) -> None:
        """Tell the waiting runs their places soon: at most one pass per POSITION_INTERVAL."""
        if self._pass_pending:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (shutting down): tell now
            self._tell_pass()
            return
        self._pass_pending = True
        loop.call_later(max(0.0, self._last_pass + POSITION_INTERVAL - loop.time()), self._pass)

    def _pass(self) -> None:
        self._pass_pending = False
        self._last_pass = asyncio.get_running_loop().time()
        self._tell_pass()

    def _tell_pass(self) -> None:
        for index, ticket in enumerate(self.queue, 1):
            ticket.tell(index)
