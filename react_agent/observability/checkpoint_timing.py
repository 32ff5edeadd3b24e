"""How long checkpoint writes take: the checkpointer's write methods, timed in place."""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from react_agent.observability.metrics import process_metrics

TIMED_WRITES = ("aput", "aput_writes")


def time_checkpoint_writes(checkpointer: BaseCheckpointSaver) -> None:
    """Make `checkpointer`'s writes observe sqlagent_checkpoint_write_duration_seconds.

    The graph calls the saver's methods on the instance, so wrapping them there times
    every write of every run (a saver has no hook of its own for this).
    """
    histogram = process_metrics().checkpoint_writes
    for name in TIMED_WRITES:
        method = getattr(checkpointer, name)
        setattr(checkpointer, name, _timed(method, histogram.labels(name)))


def _timed(method: Callable[..., Awaitable[Any]], observer: Any) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(method)
    async def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await method(*args, **kwargs)
        finally:
            observer.observe(time.perf_counter() - started)

    return timed
