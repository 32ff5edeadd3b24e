"""New conversation ids: `{user_id}:{YYYYmmddHHMMSS}{milliseconds:03d}`."""

from __future__ import annotations

import time
from datetime import datetime


class ThreadIdClock:
    """Hands out strictly increasing millisecond stamps, so ids never repeat in a process.

    When requests arrive faster than one per millisecond, the stamp runs ahead of the
    clock by a few milliseconds and catches up as soon as the burst ends.
    """

    def __init__(self) -> None:
        self._last_ms = 0

    def next_ms(self) -> int:
        """Return a millisecond timestamp greater than every earlier one."""
        self._last_ms = max(time.time_ns() // 1_000_000, self._last_ms + 1)
        return self._last_ms

    def new_thread_id(self, user_id: str) -> str:
        """Return a new thread id for `user_id`."""
        ms = self.next_ms()
        stamp = datetime.fromtimestamp(ms // 1000).strftime("%Y%m%d%H%M%S")
        return f"{user_id}:{stamp}{ms % 1000:03d}"
