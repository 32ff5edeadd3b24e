"""Waiting for a condition that no event announces, with a deadline."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


async def eventually(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Return True as soon as `condition()` holds, False if it still fails after `timeout` s."""
    deadline = time.monotonic() + timeout
    for _ in iter(int, 1):
        if condition():
            return True
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return False
