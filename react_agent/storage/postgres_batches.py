"""Writes of several kinds in one statement: those that come while one is under way go in the next.

The checkpointer's writes (conversations/postgres_checkpoint_batches) and the run store's
events (runs/store/postgres/batches) are each a `BatchSource`: it keeps its callers' writes
until the writer takes them, and makes its share of a statement from those it gave. One
writer per process sends every source's share in one statement, a data-modifying CTE
each, on one connection it keeps while there is more to send (storage/postgres_held).

Under load that is one statement and one commit where there were two, one for each kind:
at c = 100 a question of the sample graph went from about 8 such statements to about 5,
and PostgreSQL's backends spent a sixth less CPU on it (bench/results/35-postgres-scale-out.md,
"One statement for a step's checkpoint and its events").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from react_agent.databases.postgres.pool import is_connection_failure
from react_agent.storage.postgres_held import HeldConnection

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class Share:
    """A source's share of a statement: data-modifying CTEs, and rows it wants back."""

    ctes: list[str]
    """Statements run as CTEs (`WITH p0 AS (...)`), which run whether or not read."""
    params: list[Any]
    """The CTEs' parameters, in order."""
    select: str | None = None
    """A SELECT the statement ends with (UNION ALL with other sources'), e.g. NOTIFYs."""
    select_params: list[Any] = field(default_factory=list)


class SourceBatch(Protocol):
    """The writes a source gave for one statement."""

    kind: str
    """What they are, for the log ("checkpoint writes", "run events")."""

    def share(self) -> Share:
        """Return their share of the statement."""
        ...

    def split(self) -> list[SourceBatch]:
        """Return them one write per batch (empty if this is one write)."""
        ...

    def settle(self, error: Exception | None) -> None:
        """Tell their callers they are stored, or failed with `error`."""
        ...

    def cancel(self) -> None:
        """Tell their callers they were not written (the writer was cancelled)."""
        ...


class BatchSource(Protocol):
    """Keeps writes until the writer takes them (`StatementBatches.add`)."""

    def waiting(self) -> bool:
        """Whether it keeps writes the writer has not taken."""
        ...

    def take(self) -> SourceBatch | None:
        """Return the writes to send now, or None if there are none."""
        ...


def statement(batches: list[SourceBatch]) -> tuple[str, list[Any]]:
    """Return one statement for the shares of `batches`, and its parameters."""
    shares = [batch.share() for batch in batches]
    ctes = [cte for share in shares for cte in share.ctes]
    selects = [share.select for share in shares if share.select is not None]
    head = "WITH " + ", ".join(f"p{n} AS ({cte})" for n, cte in enumerate(ctes)) if ctes else ""
    if not selects:
        tail = "SELECT 1"
    elif len(selects) == 1:
        tail = selects[0]
    else:
        tail = " UNION ALL ".join(f"({select})" for select in selects)
    params = [param for share in shares for param in share.params]
    params += [param for share in shares for param in share.select_params]
    return f"{head} {tail}".strip(), params


class StatementBatches:
    """The writer of its sources' writes: one statement at a time, each holding all that waited.

    A statement PostgreSQL refuses for a reason other than a lost connection is written
    again a source at a time, then a write at a time, so one bad write costs the others
    nothing.

    Args:
        lend: Lends a pooled connection (a pool's `connection`).

    """

    def __init__(self, lend: Callable[[], AbstractAsyncContextManager[Any]]) -> None:
        self.lend = lend
        self.statements = 0
        """Statements written so far (fewer than the writes, under load)."""
        self._sources: list[BatchSource] = []
        self._writer: asyncio.Task[None] | None = None
        self._closed = False

    def lend_from(self, lend: Callable[[], AbstractAsyncContextManager[Any]]) -> Callable[[], None]:
        """Take connections from `lend` from now on; return what puts the previous lender back.

        A connection held already is kept until the writer has nothing left to send.
        """
        previous, self.lend = self.lend, lend

        def restore() -> None:
            self.lend = previous

        return restore

    def add(self, source: BatchSource) -> None:
        """Write `source`'s writes from now on (it calls `wake` when it has some)."""
        self._sources.append(source)

    def wake(self) -> None:
        """Start the writer, unless it is running: a source has writes to send."""
        if self._writer is None and not self._closed:
            self._writer = asyncio.create_task(self._write_pending(), name="statement-batches")
            self._writer.add_done_callback(self._writer_done)

    def _writer_done(self, writer: asyncio.Task[None]) -> None:
        # A writer that found nothing left ends, but is counted until this runs: a write
        # queued meanwhile (its caller woken before this) would otherwise wait for good.
        self._writer = None
        if any(source.waiting() for source in self._sources):
            self.wake()

    async def aclose(self) -> None:
        """Stop writing: a statement under way is cancelled (its writes too)."""
        self._closed = True
        if self._writer is not None:
            self._writer.cancel()
            await asyncio.gather(self._writer, return_exceptions=True)

    def _take(self) -> list[SourceBatch]:
        return [batch for source in self._sources if (batch := source.take()) is not None]

    async def _write_pending(self) -> None:
        held = HeldConnection(lambda: self.lend())
        try:
            while batches := self._take():
                try:
                    await self._write(batches, held)
                except BaseException:
                    for batch in batches:
                        batch.cancel()
                    raise
        finally:
            await held.release()

    async def _write(self, batches: list[SourceBatch], held: HeldConnection) -> None:
        try:
            self.statements += 1
            await held.execute(*statement(batches))
        except Exception as exc:
            if is_connection_failure(exc):
                for batch in batches:
                    batch.settle(exc)
                return
            parts = batches if len(batches) > 1 else batches[0].split()
            if not parts:
                batches[0].settle(exc)
                return
            kinds = " and ".join(dict.fromkeys(batch.kind for batch in batches))
            logger.warning("%s failed together (%s): one part at a time", kinds, exc)
            for part in parts:
                await self._write([part], held)
        else:
            for batch in batches:
                batch.settle(None)
