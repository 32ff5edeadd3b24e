"""A run's events in order, the one wait loop its followers read them with, and its batches."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Generic, TypeVar

T = TypeVar("T")
U = TypeVar("U")

Batch = list[tuple[int, T | None]]
"""The events a follower reads at once: `(seq, event)` in order, or `[(seq, None)]` when it
waited `idle_timeout` seconds for none (a stream sends one frame, or a heartbeat). The one
batch type of runs: a run's own log, and the stores of streamed runs (`Batch[Payload]`)."""


async def flatten(batches: AsyncIterator[Batch[T]]) -> AsyncIterator[tuple[int, T | None]]:
    """Yield the items of `batches` one at a time (and close them when the caller stops)."""
    try:
        async for batch in batches:
            for item in batch:
                yield item
    finally:
        await batches.aclose()  # type: ignore[attr-defined]


def _as_they_are(batch: Batch[T]) -> Batch[T]:
    return batch


class EventLog(Generic[T]):
    """Events numbered 1, 2, … in the order they came, until the log is ended.

    Followers may start from any sequence number, while the log grows or after it ended;
    each wait is on one `asyncio.Event` replaced at every append (no task per follower).
    """

    def __init__(self) -> None:
        self.items: list[T] = []
        self.ended = False
        self._appended = asyncio.Event()

    def append(self, item: T) -> None:
        """Add an event (numbered `len(items)`) and wake every follower."""
        self.items.append(item)
        self._wake()

    def end(self) -> None:
        """Say no event will follow, and wake every follower."""
        if not self.ended:
            self.ended = True
            self._wake()

    def follow_batches(
        self, after: int = 0, *, idle_timeout: float | None = None
    ) -> AsyncIterator[Batch[T]]:
        """Yield the events after `after` until the end, all those already there at once.

        With `idle_timeout`, `[(seq, None)]` is yielded each time that many seconds pass
        without an event (streams send a heartbeat then).
        """
        return self.follow_views(_as_they_are, after, idle_timeout=idle_timeout)

    async def follow_views(
        self,
        view: Callable[[Batch[T]], Batch[U]],
        after: int = 0,
        *,
        idle_timeout: float | None = None,
    ) -> AsyncIterator[Batch[U]]:
        """Like `follow_batches`, each batch as `view` makes it (a stream's envelopes of it).

        A batch that `view` makes empty is not yielded, and the idle time goes on as if its
        events had not come: a heartbeat comes `idle_timeout` seconds after the last batch
        yielded (its number is the log's, the last event seen).
        """
        index = after
        deadline: float | None = None
        while True:
            if index < len(self.items):
                end = len(self.items)
                batch = view([(seq, self.items[seq - 1]) for seq in range(index + 1, end + 1)])
                index = end
                if batch:
                    yield batch
                    deadline = None
                continue  # more may have come while that batch was being sent
            if self.ended:
                return
            if deadline is None and idle_timeout is not None:
                deadline = asyncio.get_running_loop().time() + idle_timeout
            try:
                async with asyncio.timeout_at(deadline):  # no task per wait, as wait_for
                    await self._appended.wait()
            except TimeoutError:
                deadline = None
                yield [(index, None)]

    async def wait_ended(self) -> None:
        """Return once the log has ended."""
        while not self.ended:
            await self._appended.wait()

    def follow(
        self, after: int = 0, *, idle_timeout: float | None = None
    ) -> AsyncIterator[tuple[int, T | None]]:
        """Like `follow_batches`, one event at a time."""
        return flatten(self.follow_batches(after, idle_timeout=idle_timeout))

    def _wake(self) -> None:
        self._appended.set()
        self._appended = asyncio.Event()
