"""Runs kept in this process's memory: their events, their thread claims, their thread ids."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace

from react_agent.runs.events.event_log import Batch, EventLog, flatten
from react_agent.runs.store.events import (
    FINISHED,
    AbandonedPayloads,
    Payload,
    RunRecord,
    process_owner_id,
)
from react_agent.runs.store.locks import Release, liveness_key, thread_busy


@dataclass
class _LocalRun:
    record: RunRecord
    cancel: Callable[[], None]
    payloads: EventLog[Payload] = field(default_factory=EventLog)
    """The payloads appended (none when the process reads its own runs' payloads itself)."""
    ended_at: float | None = None


class InProcessRunEvents:
    """Run events in this process's memory: enough for one process (SQLite or memory).

    It holds the runs' records and the payloads appended to it (the PostgreSQL store's runs,
    kept here for their owner); the process reads its own runs' payloads itself (app's
    StreamRuns: made from the run's own log, so its events are kept once).
    An ended run is forgotten `ttl` seconds after it ended: every look-up first drops the
    runs whose time is up (oldest first, so each look-up costs only what it drops).

    Args:
        ttl: Seconds an ended run stays resumable.
        clock: Monotonic seconds (a test may drive its own).

    """

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.owner = process_owner_id()
        self.copies_payloads = False
        self.ttl = ttl
        self.clock = clock
        self._runs: dict[str, _LocalRun] = {}
        self._ended: deque[tuple[float, str]] = deque()

    async def open_run(self, record: RunRecord, cancel: Callable[[], None]) -> None:
        """Register a run this process executes (its payloads: those appended, if any)."""
        self._expire()
        self._runs[record.run_id] = _LocalRun(record, cancel)

    def has(self, run_id: str) -> bool:
        """Whether the run is kept here (not ended more than `ttl` seconds ago)."""
        self._expire()
        return run_id in self._runs

    async def append(self, run_id: str, seq: int, payload: Payload) -> None:
        """Keep event `seq` and wake the run's followers (a run opened without payloads)."""
        log = self._runs[run_id].payloads
        if seq == len(log.items) + 1:
            log.append(payload)

    async def finish(self, run_id: str) -> None:
        """Mark the run as ended and wake its followers."""
        run = self._runs.get(run_id)
        if run is not None and run.ended_at is None:
            run.ended_at = self.clock()
            self._ended.append((run.ended_at, run_id))
            run.record = _with_status(run.record, FINISHED)
            run.payloads.end()

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
    ) -> AsyncIterator[Batch[Payload]]:
        """Yield the run's events after `after`, all those already there at once."""
        self._expire()
        run = self._runs.get(run_id)
        if run is None:
            return
        async for batch in run.payloads.follow_batches(after, idle_timeout=idle_timeout):
            yield batch

    async def seconds_since_followed(self, run_id: str) -> float | None:
        """Nobody follows from another process: there is none."""
        return None

    async def request_cancel(self, run_id: str) -> None:
        """Cancel the run if it is still going."""
        run = self._runs.get(run_id)
        if run is not None and run.ended_at is None:
            run.cancel()

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
    return replace(record, status=status)


class InProcessThreadLocks:
    """Thread claims within one process (enough for a single service process)."""

    def __init__(self) -> None:
        self._held: set[str] = set()
        self._alive: dict[str, int] = {}
        """Liveness keys of the runs held here, and how many holds each has."""

    async def claim(self, thread_id: str, *, run_id: str | None = None) -> Release:
        """Take the thread or raise 409 THREAD_BUSY (and hold run `run_id` until freed)."""
        if thread_id in self._held:
            raise thread_busy(thread_id)
        self._held.add(thread_id)
        if run_id is not None:
            await self.hold_run(run_id)
        released = False

        async def release() -> None:
            nonlocal released
            if not released:
                released = True
                self._held.discard(thread_id)
                if run_id is not None:
                    self.end_run(run_id)

        return release

    async def hold_run(self, run_id: str) -> None:
        """Hold the run's liveness claim until `end_run`."""
        key = liveness_key(run_id)
        self._alive[key] = self._alive.get(key, 0) + 1

    def end_run(self, run_id: str) -> None:
        """Give back a hold of the run's liveness claim."""
        key = liveness_key(run_id)
        left = self._alive.pop(key, 0) - 1
        if left > 0:
            self._alive[key] = left

    async def is_running(self, thread_id: str) -> bool:
        """Whether a run in this process holds the thread (or the run's liveness key)."""
        return thread_id in self._held or thread_id in self._alive


class InProcessThreadIds:
    """New thread ids in one process: only its own clock hands them out, so all are free."""

    async def reserve(self, thread_id: str) -> bool:
        """Take the id (always possible)."""
        return True
