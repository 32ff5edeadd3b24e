"""Counting a checkpointer's reads, to see which steps of a run read the thread."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver


@contextmanager
def counted_reads(saver: BaseCheckpointSaver) -> Iterator[list[str]]:
    """Yield the thread ids the checkpointer is asked for, in order, while the block runs."""
    reads: list[str] = []
    original = saver.aget_tuple

    async def aget_tuple(config: dict[str, Any]) -> Any:
        reads.append(config["configurable"]["thread_id"])
        return await original(config)

    saver.aget_tuple = aget_tuple  # type: ignore[method-assign]
    try:
        yield reads
    finally:
        del saver.aget_tuple
