"""What a process keeps its runs in: thread claims, streamed runs' events, thread ids."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from react_agent.runs.store.events import RunEventStore
from react_agent.runs.store.locks import ThreadLocks
from react_agent.runs.store.thread_ids import ThreadIds


class ThreadInterrupts(Protocol):
    """Carries on_busy=interrupt to a question running in another process."""

    on_thread_cancel: Callable[[str], bool] | None
    """Interrupts this process's question on a thread (the runner's, once built)."""

    async def request_thread_cancel(self, thread_id: str) -> None:
        """Ask every process to interrupt the question running on `thread_id`."""
        ...


@dataclass(frozen=True)
class RunStore:
    """What a process keeps its runs in, all in memory or all in PostgreSQL."""

    locks: ThreadLocks
    """Thread claims: one question at a time per thread."""
    events: RunEventStore
    """The numbered events of streamed runs, so a client can resume them."""
    thread_ids: ThreadIds
    """New thread ids, each handed out once."""
    interrupts: ThreadInterrupts | None = None
    """How a question elsewhere is interrupted; None: there is no elsewhere."""
