"""Reading a whole result batch by batch, so memory stays flat however many rows there are."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

STREAM_BATCH_ROWS = 1000
"""Rows fetched from the database at a time."""

Rows = Sequence[Sequence[Any]]


@dataclass
class RowStream:
    """An open query: its (unique) column names and its rows in batches of raw tuples."""

    columns: list[str]
    batches: AsyncIterator[Rows]


@dataclass
class RowReader:
    """An engine's open query: its column names and how it fetches its next rows.

    `batches` reads `max_rows` at most; `finished` then says whether it read to the end
    (or to the cap), so the engine closes the query as usual rather than stopping it.
    """

    columns: list[str]
    fetch: Callable[[int], Awaitable[Rows]]
    """Fetch up to n more rows (an engine that reads whole blocks may return more); none at
    the end. The engine times each fetch and turns a stopped one into statement_timed_out."""
    max_rows: int
    batch_size: int = STREAM_BATCH_ROWS
    finished: bool = False

    async def batches(self) -> AsyncIterator[Rows]:
        """Yield the rows batch by batch, `max_rows` in all, then mark the reader finished."""
        left = self.max_rows
        while left > 0:
            rows = await self.fetch(min(self.batch_size, left))
            if not rows:
                break
            if len(rows) > left:
                rows = rows[:left]
            left -= len(rows)
            yield rows
        self.finished = True


def translating(
    stream: RowStream,
    errors: type[Exception] | tuple[type[Exception], ...],
    translate: Callable[[Exception], Exception],
) -> RowStream:
    """Return `stream` whose batches raise `translate(error)` for a driver's `errors`.

    A row that fails while the batches are read (past the first) raises the driver's own
    exception otherwise, its text unredacted, outside the backend's translation.
    """

    async def batches() -> AsyncIterator[Rows]:
        try:
            async for rows in stream.batches:
                yield rows
        except errors as exc:
            raise translate(exc) from None

    return RowStream(stream.columns, batches())
