"""New thread ids taken once among every process that shares the store."""

from __future__ import annotations

from typing import Protocol


class ThreadIds(Protocol):
    """Reserves new thread ids, so two processes never hand out the same one."""

    async def reserve(self, thread_id: str) -> bool:
        """Take a new thread id for good; False if another process took it first."""
        ...
