"""Checkpoint writes of many questions in one statement: those that come while others are stored.

Each step of a question stores its task's writes, then its checkpoint, and waits for
both. Below MAX_WRITES_IN_FLIGHT statements under way, a write goes at once, alone; beyond
that, the writes that come meanwhile wait and go together in the next statement, one
commit for many questions' steps. Each caller still returns only once its own rows are
committed, so a step is as durable as before; under load PostgreSQL and the process
spend a fraction of a statement on each.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from react_agent.databases.postgres_pool import is_connection_failure
from react_agent.group_writes import settle

logger = logging.getLogger(__name__)

MAX_WRITES_IN_FLIGHT = 1
"""Statements storing checkpoints at once, each on a pooled connection (of ten by default).

One: under load every statement then carries all that came during the one before. With
four, more statements went out each carrying less, and at c = 100 the process and its
backends spent about 6 % more CPU per question on the wake-ups and round trips (bench/
README.md, "One lock statement per claim, one batch writer"); a write waits at most one
statement longer.
"""

_ROWS = "SELECT * FROM unnest({})"
_WRITE_COLUMNS = (
    "thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob"
)
_WRITE_ARRAYS = (
    "%b::text[], %b::text[], %b::text[], %b::text[], %b::text[], %b::integer[],"
    " %b::text[], %b::text[], %b::bytea[]"
)
_WRITE_KEY = "(thread_id, checkpoint_ns, checkpoint_id, task_id, idx)"

INSERT_BLOBS = f"""
    INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
    {_ROWS.format("%b::text[], %b::text[], %b::text[], %b::text[], %b::text[], %b::bytea[]")}
    ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
"""
INSERT_WRITES = f"""
    INSERT INTO checkpoint_writes ({_WRITE_COLUMNS}) {_ROWS.format(_WRITE_ARRAYS)}
    ON CONFLICT {_WRITE_KEY} DO NOTHING
"""
"""Writes to ordinary channels: stored once (a retry writes the same)."""
UPSERT_WRITES = f"""
    INSERT INTO checkpoint_writes ({_WRITE_COLUMNS}) {_ROWS.format(_WRITE_ARRAYS)}
    ON CONFLICT {_WRITE_KEY}
    DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob
"""
"""Writes to special channels (errors, interrupts, resumes): the last one wins."""
UPSERT_CHECKPOINTS = f"""
    INSERT INTO checkpoints
        (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
    {_ROWS.format("%b::text[], %b::text[], %b::text[], %b::text[], %b::jsonb[], %b::jsonb[]")}
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id)
    DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata
"""


@dataclass(slots=True, eq=False)
class CheckpointWrite:
    """One caller's rows: a checkpoint with its blobs, or a task's writes."""

    key: tuple[str, ...]
    """What two writes in one statement, or in flight at once, must not share: the
    thread and namespace of a checkpoint, the checkpoint and task of writes."""
    blobs: list[tuple[Any, ...]] = field(default_factory=list)
    writes: list[tuple[Any, ...]] = field(default_factory=list)
    upsert: bool = False
    checkpoint: tuple[Any, ...] | None = None
    stored: asyncio.Future[None] | None = None


def batch_statement(batch: list[CheckpointWrite]) -> tuple[str, list[list[Any]]]:
    """Return one statement for the rows of `batch`, and its arrays.

    Only the tables the batch writes to appear in it (a table another session locked
    holds up only the writes to it), the first ones as data-modifying CTEs, which run
    whether or not the statement reads them.
    """
    groups = [
        (INSERT_BLOBS, [row for write in batch for row in write.blobs]),
        (INSERT_WRITES, [row for write in batch if not write.upsert for row in write.writes]),
        (UPSERT_WRITES, [row for write in batch if write.upsert for row in write.writes]),
        (UPSERT_CHECKPOINTS, [w.checkpoint for w in batch if w.checkpoint is not None]),
    ]
    parts = [(sql, rows) for sql, rows in groups if rows]
    *ctes, (last, _) = parts
    prefix = ", ".join(f"part{n} AS ({sql})" for n, (sql, _) in enumerate(ctes))
    params = [list(column) for _, rows in parts for column in zip(*rows, strict=True)]
    return (f"WITH {prefix} {last}" if ctes else last), params


class CheckpointBatches:
    """Stores checkpoint writes, each caller told once its rows are committed.

    A statement holds at most one write per key, and a key in flight waits, so two
    writes of one task (the last of which must win) reach PostgreSQL in order. A batch
    PostgreSQL refuses for a reason other than a lost connection is written again one
    write at a time, so one bad write costs the others nothing.

    Args:
        connection: Lends a pooled connection (the checkpointer's pool).
        max_in_flight: Statements at once (MAX_WRITES_IN_FLIGHT).

    """

    def __init__(
        self,
        connection: Callable[[], AbstractAsyncContextManager[Any]],
        max_in_flight: int = MAX_WRITES_IN_FLIGHT,
    ) -> None:
        self.connection = connection
        self.max_in_flight = max_in_flight
        self.statements = 0
        """Statements written so far (fewer than the writes, under load)."""
        self._pending: list[CheckpointWrite] = []
        self._in_flight: set[tuple[str, ...]] = set()
        self._writers: set[asyncio.Task[None]] = set()

    async def store(self, write: CheckpointWrite) -> None:
        """Return once `write` is committed (its error if it could not be)."""
        write.stored = asyncio.get_running_loop().create_future()
        self._pending.append(write)
        self._start_writer()
        try:
            await write.stored
        except asyncio.CancelledError:
            # Not sent yet: dropped, as a cancelled write of the stock saver is; once
            # sent, it is stored with its statement.
            if write in self._pending:
                self._pending.remove(write)
            raise

    def _start_writer(self) -> None:
        if len(self._writers) < self.max_in_flight and self._pending:
            writer = asyncio.create_task(self._write_pending(), name="checkpoint-batches")
            self._writers.add(writer)
            writer.add_done_callback(self._writer_done)

    def _writer_done(self, writer: asyncio.Task[None]) -> None:
        self._writers.discard(writer)
        self._start_writer()  # writes held back by a key in flight go now

    def _take_batch(self) -> list[CheckpointWrite]:
        batch: list[CheckpointWrite] = []
        taken: set[tuple[str, ...]] = set()
        left: list[CheckpointWrite] = []
        for write in self._pending:
            if write.key in taken or write.key in self._in_flight:
                left.append(write)
            else:
                taken.add(write.key)
                batch.append(write)
        self._pending = left
        return batch

    async def _write_pending(self) -> None:
        while batch := self._take_batch():
            keys = {write.key for write in batch}
            self._in_flight |= keys
            try:
                await self._write_batch(batch)
            except BaseException:
                for write in batch:
                    assert write.stored is not None
                    write.stored.cancel()  # no-op for those already settled
                raise
            finally:
                self._in_flight -= keys

    async def _write_batch(self, batch: list[CheckpointWrite]) -> None:
        try:
            self.statements += 1
            async with self.connection() as connection:
                await connection.execute(*batch_statement(batch))
        except Exception as exc:
            if len(batch) > 1 and not is_connection_failure(exc):
                logger.warning(
                    "%d checkpoint writes failed together (%s): one by one", len(batch), exc
                )
                for write in batch:
                    await self._write_batch([write])
                return
            settle(_futures(batch), exc)
        else:
            settle(_futures(batch), None)


def _futures(batch: list[CheckpointWrite]) -> list[asyncio.Future[None]]:
    return [write.stored for write in batch if write.stored is not None]
