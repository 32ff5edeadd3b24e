"""Checkpoint writes of many questions in one statement: those that come while others are stored.

Each step of a question stores its task's writes, then its checkpoint, and waits for
both. The process's statement writer (storage/postgres_batches) sends at once a write
that comes while it is idle; the writes that come while it is busy wait and go together,
with the run events waiting too, in its next statement: one commit for many questions'
steps. Each caller still returns only once its own rows are committed, so a step is as
durable as before; under load PostgreSQL and the process spend a fraction of a statement
on each.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from react_agent.group_writes import settle
from react_agent.storage.postgres_batches import Share, SourceBatch, StatementBatches

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


def batch_share(batch: list[CheckpointWrite]) -> Share:
    """Return the share of a statement that stores the rows of `batch`.

    Only the tables the batch writes to appear in it (a table another session locked
    holds up only the writes to it), each as a data-modifying CTE.
    """
    groups = [
        (INSERT_BLOBS, [row for write in batch for row in write.blobs]),
        (INSERT_WRITES, [row for write in batch if not write.upsert for row in write.writes]),
        (UPSERT_WRITES, [row for write in batch if write.upsert for row in write.writes]),
        (UPSERT_CHECKPOINTS, [w.checkpoint for w in batch if w.checkpoint is not None]),
    ]
    parts = [(sql, rows) for sql, rows in groups if rows]
    params = [list(column) for _, rows in parts for column in zip(*rows, strict=True)]
    return Share([sql for sql, _ in parts], params)


@dataclass(slots=True)
class _Batch:
    """Checkpoint writes given to one statement."""

    writes: list[CheckpointWrite]
    kind: str = "checkpoint writes"

    def share(self) -> Share:
        return batch_share(self.writes)

    def split(self) -> list[SourceBatch]:
        return [_Batch([write]) for write in self.writes] if len(self.writes) > 1 else []

    def settle(self, error: Exception | None) -> None:
        settle(_futures(self.writes), error)

    def cancel(self) -> None:
        for future in _futures(self.writes):
            future.cancel()  # no-op for those already settled


class CheckpointBatches:
    """Keeps checkpoint writes for the statement writer; each caller returns once its rows are in.

    A statement holds at most one write per key; a later write of a key waits for the
    next statement, so two writes of one task (the last of which must win) reach
    PostgreSQL in order.

    Args:
        writer: The process's statement writer (on the run store's pool while one is open,
            else on the checkpointer's).

    """

    def __init__(self, writer: StatementBatches) -> None:
        self.writer = writer
        self._pending: list[CheckpointWrite] = []
        writer.add(self)

    async def store(self, write: CheckpointWrite) -> None:
        """Return once `write` is committed (its error if it could not be)."""
        write.stored = asyncio.get_running_loop().create_future()
        self._pending.append(write)
        self.writer.wake()
        try:
            await write.stored
        except asyncio.CancelledError:
            # Not sent yet: dropped, as a cancelled write of the stock saver is; once
            # sent, it is stored with its statement.
            if write in self._pending:
                self._pending.remove(write)
            raise

    def waiting(self) -> bool:
        """Whether writes wait for the writer."""
        return bool(self._pending)

    def take(self) -> SourceBatch | None:
        """Return the writes to send now: the first of each key."""
        batch: list[CheckpointWrite] = []
        taken: set[tuple[str, ...]] = set()
        left: list[CheckpointWrite] = []
        for write in self._pending:
            if write.key in taken:
                left.append(write)
            else:
                taken.add(write.key)
                batch.append(write)
        self._pending = left
        return _Batch(batch) if batch else None


def _futures(batch: list[CheckpointWrite]) -> list[asyncio.Future[None]]:
    return [write.stored for write in batch if write.stored is not None]
