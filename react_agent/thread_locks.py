"""One question at a time per thread."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from react_agent.errors import ServiceError

Release = Callable[[], Awaitable[None]]


class ThreadLocks(Protocol):
    """Grants a thread to one run at a time."""

    async def claim(self, thread_id: str) -> Release:
        """Take the thread or raise 409 THREAD_BUSY; return the function that frees it."""
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


class InProcessThreadLocks:
    """Thread claims within one process (enough for a single service process)."""

    def __init__(self) -> None:
        self._held: set[str] = set()

    async def claim(self, thread_id: str) -> Release:
        """Take the thread or raise 409 THREAD_BUSY."""
        if thread_id in self._held:
            raise thread_busy(thread_id)
        self._held.add(thread_id)

        async def release() -> None:
            self._held.discard(thread_id)

        return release

    async def is_running(self, thread_id: str) -> bool:
        """Whether a run in this process holds the thread."""
        return thread_id in self._held
