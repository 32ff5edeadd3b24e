"""Where streamed runs keep their numbered events, so a client can resume them: the protocol."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from react_agent.runs.events.event_log import Batch

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
    trace_parent: str | None = None
    """The `traceparent` of the request that started the run, when traces are on."""


AbandonedPayloads = Callable[[RunRecord], list[Payload]]
"""Builds the events that close a run whose owner died (an error, then end)."""


class RunEventStore(Protocol):
    """The numbered events of streamed runs, readable by any process that shares the store."""

    owner: str
    """This process's id, stored as the owner of the runs it starts."""
    copies_payloads: bool
    """Whether each payload is appended to the store (PostgreSQL: other processes read
    them); else only the process that runs a run reads its payloads (app/streaming/runs)."""

    async def open_run(self, record: RunRecord, cancel: Callable[[], None]) -> None:
        """Register a run this process executes; `cancel` stops it (cancel requests call it).

        The process follows its own runs itself: the store is asked about other processes'
        runs (and keeps the payloads appended, when it copies them).
        """
        ...

    async def append(self, run_id: str, seq: int, payload: Payload) -> None:
        """Store event `seq` (1, 2, …, in order) of a run this process owns (when it copies)."""
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
    ) -> AsyncIterator[Batch[Payload]]:
        """Like `follow`, but every event already there comes in one batch (one write)."""
        ...

    async def seconds_since_followed(self, run_id: str) -> float | None:
        """Seconds since a follower in another process last said it was there (None: never)."""
        ...

    async def request_cancel(self, run_id: str) -> None:
        """Ask the process that runs `run_id` to cancel it."""
        ...

    async def aclose(self) -> None:
        """Stop background work and free what the store holds."""
        ...
