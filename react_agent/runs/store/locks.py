"""One question at a time per thread: the claims' protocol and the busy thread's error."""

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
