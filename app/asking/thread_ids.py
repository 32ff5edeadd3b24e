"""New conversation ids: `{user_id}:{YYYYmmddHHMMSS}{milliseconds:03d}`."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime

from react_agent.errors import ServiceError
from react_agent.runs.store.thread_ids import ThreadIds

MAX_RESERVE_ATTEMPTS = 1000
"""New ids tried before giving up; each try is a later millisecond than the one before."""


def wall_clock_ms() -> int:
    """Return the wall clock's time in milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


class ThreadIdClock:
    """Hands out strictly increasing millisecond stamps, so ids never repeat in a process.

    When requests arrive faster than one per millisecond, the stamp runs ahead of the
    clock by a few milliseconds and catches up as soon as the burst ends.
    """

    def __init__(self, now_ms: Callable[[], int] | None = None) -> None:
        self.now_ms = now_ms or wall_clock_ms
        """Where the milliseconds come from (the wall clock; a fixed one in tests)."""
        self._last_ms = 0

    def next_ms(self) -> int:
        """Return a millisecond timestamp greater than every earlier one."""
        self._last_ms = max(self.now_ms(), self._last_ms + 1)
        return self._last_ms

    def new_thread_id(self, user_id: str) -> str:
        """Return a new thread id for `user_id`."""
        ms = self.next_ms()
        stamp = datetime.fromtimestamp(ms // 1000).strftime("%Y%m%d%H%M%S")
        return f"{user_id}:{stamp}{ms % 1000:03d}"


async def unique_new_thread_id(
    clock: ThreadIdClock, thread_ids: ThreadIds, user_id: str, first: str
) -> str:
    """Return `first`, or the next id of `user_id` that no other process has handed out.

    With several processes (or hosts) two clocks may give the same millisecond; the
    shared store takes each id once, and a taken one means trying the next.
    """
    thread_id = first
    for _ in range(MAX_RESERVE_ATTEMPTS):
        if await thread_ids.reserve(thread_id):
            return thread_id
        thread_id = clock.new_thread_id(user_id)
    raise ServiceError(503, "AGENT_NOT_READY", "no free thread id", can_retry=True)
