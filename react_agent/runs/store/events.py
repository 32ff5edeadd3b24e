"""Where streamed runs keep their numbered events, so a client can resume them: in-process."""

from __future__ import annotations

import asyncio
import os
import socket
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

Payload = dict[str, Any]
"""One stored event, exactly as the stream sent it (an envelope)."""

RUNNING = "running"
FINISHED = "finished"
ABANDONED = "abandoned"
"""Statuses of a stored run; abandoned: its owner process died before it ended."""


def process_owner_id() -> str:
    """Return an id naming this process among every process and host (host:pid:random)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True)
class RunRecord:
    """A streamed run as the store knows it: whose it is and which process runs it."""

    run_id: str
    thread_id: str
    user_id: str
    lang: str
    owner: str
    status: str = RUNNING


AbandonedPayloads = Callable[[RunRecord], list[Payload]]
"""Builds the events that close a run whose owner died (an error, then end)."""

Batch = list[tuple[int, Payload | None]]
"""The events a follower reads at once: `(seq, payload)` in order, or `[(seq, None)]` when
it waited `idle_timeout` seconds for none (a stream sends one frame, or a heartbeat)."""


async def flatten(batches: AsyncIterator[Batch]) -> AsyncIterator[tuple[int, Payload | None]]:
    """Yield the items of `batches` one at a time."""
    try:
        async for batch in batches:
            for item in batch:
                yield item
    finally:
        await batches.aclose()  # type: ignore[attr-defined]


class RunEventStore(Protocol):
    """The numbered events of streamed runs, readable by any process that shares the store."""

    owner: str
    """This process's id, stored as the owner of the runs it starts."""

    async def open_run(self, record: RunRecord, cancel: Callable[[], None]) -> None:
        """Register a run this process executes; `cancel` stops it (cancel requests call it)."""
        ...

    async def append(self, run_id: str, seq: int, payload: Payload) -> None:
        """Store event `seq` (1, 2, …, in order) of a run this process owns."""
        ...

    async def finish(self, run_id: str) -> None:
        """Mark a run as ended: its last event has been appended."""
        ...

    async def record(self, run_id: str) -> RunRecord | None:
        """Return the run, or None if the store has no such run (never, or expired)."""
        ...

    def follow(
        self, run_id: str, after: int, *, idle_timeout: float, on_abandoned: AbandonedPayloads
    ) -> AsyncIterator[tuple[int, Payload | None]]:
        """Yield `(seq, payload)` after `after` until the run ended; `(seq, None)` when idle."""
        ...

    def follow_batches(
        self, run_id: str, after: int, *, idle_timeout: float, on_abandoned: AbandonedPayloads
    ) -> AsyncIterator[Batch]:
        """Like `follow`, but every event already there comes in one batch (one write)."""
        ...

    async def seconds_since_followed(self, run_id: str) -> float | None:
        """Seconds since a follower in another process last said it was there (None: never)."""
        ...

    async def request_cancel(self, run_id: str) -> None:
        """Ask the process that runs `run_id` to cancel it."""
        ...

    async def reserve_thread_id(self, thread_id: str) -> bool:
        """Take a new thread id for good; False if another process took it first."""
        ...

    async def aclose(self) -> None:
        """Stop background work and free what the store holds."""
        ...


@dataclass
class _LocalRun:
    record: RunRecord
    cancel: Callable[[], None]
    events: list[Payload] = field(default_factory=list)
    ended: bool = False
    ended_at: float = 0.0
    appended: asyncio.Event = field(default_factory=asyncio.Event)

    def wake(self) -> None:
        self.appended.set()
        self.appended = asyncio.Event()


class InProcessRunEvents:
    """Run events in this process's memory: enough for one process (SQLite or memory).

    An ended run is forgotten `ttl` seconds after it ended: every look-up first drops the
    runs whose time is up (oldest first, so each look-up costs only what it drops).

    Args:
        ttl: Seconds an ended run stays resumable.
        clock: Monotonic seconds (a test may drive its own).

    """

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.owner = process_owner_id()
        self.ttl = ttl
        self.clock = clock
        self._runs: dict[str, _LocalRun] = {}
        self._ended: deque[tuple[float, str]] = deque()

    async def open_run(self, record: RunRecord, cancel: Callable[[], None]) -> None:
        """Register a run this process executes."""
        self._expire()
        self._runs[record.run_id] = _LocalRun(record, cancel)

    def has(self, run_id: str) -> bool:
        """Whether the run is kept here (not ended more than `ttl` seconds ago)."""
        self._expire()
        return run_id in self._runs

    async def append(self, run_id: str, seq: int, payload: Payload) -> None:
        """Keep event `seq` and wake the run's followers."""
        run = self._runs[run_id]
        if seq == len(run.events) + 1:
            run.events.append(payload)
            run.wake()

    async def finish(self, run_id: str) -> None:
        """Mark the run as ended and wake its followers."""
        run = self._runs.get(run_id)
        if run is not None and not run.ended:
            run.ended, run.ended_at = True, self.clock()
            self._ended.append((run.ended_at, run_id))
            run.record = _with_status(run.record, FINISHED)
            run.wake()

    async def record(self, run_id: str) -> RunRecord | None:
        """Return the run kept here, if any."""
        self._expire()
        run = self._runs.get(run_id)
        return None if run is None else run.record

    def follow(
        self,
        run_id: str,
        after: int,
        *,
        idle_timeout: float,
        on_abandoned: AbandonedPayloads | None = None,
    ) -> AsyncIterator[tuple[int, Payload | None]]:
        """Yield the run's events after `after` until it ended (a run here never dies alone)."""
        return flatten(self.follow_batches(run_id, after, idle_timeout=idle_timeout))

    async def follow_batches(
        self,
        run_id: str,
        after: int,
        *,
        idle_timeout: float,
        on_abandoned: AbandonedPayloads | None = None,
    ) -> AsyncIterator[Batch]:
        """Yield the run's events after `after`, all those already there at once."""
        self._expire()
        run = self._runs.get(run_id)
        if run is None:
            return
        index = after
        while True:
            if index < len(run.events):
                end = len(run.events)
                yield [(seq, run.events[seq - 1]) for seq in range(index + 1, end + 1)]
                index = end
                continue  # more may have come while that batch was being sent
            if run.ended:
                return
            try:
                async with asyncio.timeout(idle_timeout):  # no task per wait, as wait_for
                    await run.appended.wait()
            except TimeoutError:
                yield [(index, None)]

    async def seconds_since_followed(self, run_id: str) -> float | None:
        """Nobody follows from another process: there is none."""
        return None

    async def request_cancel(self, run_id: str) -> None:
        """Cancel the run if it is still going."""
        run = self._runs.get(run_id)
        if run is not None and not run.ended:
            run.cancel()

    async def reserve_thread_id(self, thread_id: str) -> bool:
        """Take the id (always possible: only this process's clock hands ids out here)."""
        return True

    async def aclose(self) -> None:
        """Forget every run."""
        self._runs.clear()
        self._ended.clear()

    def _expire(self) -> None:
        """Forget the runs that ended more than `ttl` seconds ago."""
        cutoff = self.clock() - self.ttl
        while self._ended and self._ended[0][0] <= cutoff:
            _, run_id = self._ended.popleft()
            self._runs.pop(run_id, None)


def _with_status(record: RunRecord, status: str) -> RunRecord:
    return RunRecord(
        record.run_id, record.thread_id, record.user_id, record.lang, record.owner, status
    )
