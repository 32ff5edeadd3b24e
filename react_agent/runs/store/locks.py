"""One question at a time per thread: the claims' protocol and the busy thread's error."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from react_agent.errors import ServiceError

Release = Callable[[], Awaitable[None]]


def liveness_key(run_id: str) -> str:
    """Return the claim key the owner holds while its run goes on (freed if it dies)."""
    return f"run-alive:{run_id}"


class ThreadLocks(Protocol):
    """Grants a thread to one run at a time, and holds runs' liveness claims."""

    async def claim(self, thread_id: str, *, run_id: str | None = None) -> Release:
        """Take the thread or raise 409 THREAD_BUSY; return the function that frees it.

        With `run_id`, the claim holds the run's liveness claim too until it is freed.
        """
        ...

    async def hold_run(self, run_id: str) -> None:
        """Hold the run's liveness claim (`liveness_key`) until `end_run`."""
        ...

    def end_run(self, run_id: str) -> None:
        """Give back a hold of the run's liveness claim; the last one frees it."""
        ...

    async def is_running(self, thread_id: str) -> bool:
        """Whether some run holds the thread."""
        ...


def thread_busy(thread_id: str) -> ServiceError:
    """Return the 409 error for a thread that is already answering."""
    return ServiceError(
        409,
        "THREAD_BUSY",
        f"thread {thread_id} is already answering a question",
        can_retry=True,
        thread_id=thread_id,
    )
