"""The audit writer: records are queued at once and written in batches by one background task.

A question never waits for its audit record: `submit` only appends to a list. The task
writes whatever has gathered every AUDIT_FLUSH_SECONDS (sooner when a batch is full), in
one multi-row INSERT. A batch that fails (the database is away) stays queued and is
written on a later pass; records carry their own ids, so a batch written twice is stored
once. `aclose` (graceful shutdown) writes everything still queued.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from datetime import UTC, datetime, timedelta

from react_agent.audit.records import AuditRecord, audit_time
from react_agent.audit.schema import SchemaOnce
from react_agent.audit.store import AuditStore

logger = logging.getLogger(__name__)

PRUNE_EVERY = 3600.0
"""Seconds between two pruning passes of the retention setting."""
CLOSE_ATTEMPTS = 3
"""Tries to write what is queued at shutdown before the rest is logged as lost."""


class AuditWriter:
    """Buffers audit records and writes them in the background.

    Args:
        store: Where records are written.
        flush_seconds: Seconds records gather before a write.
        batch_size: Most records per INSERT.
        retention_days: Records older than this are deleted hourly (0: kept for ever).
        schema: Creates the table before the first write (retried while it fails).

    """

    def __init__(
        self,
        store: AuditStore,
        *,
        flush_seconds: float = 0.2,
        batch_size: int = 500,
        retention_days: int = 0,
        schema: SchemaOnce | None = None,
    ) -> None:
        self.store = store
        self.schema = schema
        self.flush_seconds = flush_seconds
        self.batch_size = batch_size
        self.retention_days = retention_days
        self.pending: deque[AuditRecord] = deque()
        self.written = 0
        self._full = asyncio.Event()
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._pruned_at: float | None = None

    def submit(self, record: AuditRecord) -> None:
        """Queue a record; it is written within `flush_seconds` (never blocks)."""
        self.pending.append(record)
        if len(self.pending) >= self.batch_size:
            self._full.set()

    def start(self) -> None:
        """Start the background task that writes (and prunes)."""
        if self._task is None:
            self._task = asyncio.create_task(self._write_forever(), name="audit-writer")

    async def _write_forever(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.flush_seconds):
                    await self._full.wait()
            self._full.clear()
            try:
                await self.flush()
                if self.retention_days and (
                    self._pruned_at is None or loop.time() - self._pruned_at >= PRUNE_EVERY
                ):
                    self._pruned_at = loop.time()
                    await self.prune()
            except Exception as exc:  # the database is away: the records stay queued
                logger.warning("audit: %d record(s) wait to be written: %s", len(self.pending), exc)

    async def flush(self) -> int:
        """Write every queued record now; return how many were written.

        Raises:
            Exception: The database's error; the batch that failed stays queued.

        """
        written = 0
        if self.pending and self.schema is not None:
            await self.schema.ready()
        async with self._lock:
            while self.pending:
                batch = [self.pending[i] for i in range(min(self.batch_size, len(self.pending)))]
                await self.store.insert(batch)
                for _ in batch:
                    self.pending.popleft()
                written += len(batch)
        self.written += written
        return written

    async def prune(self) -> int:
        """Delete the records older than the retention; return how many (0 when kept)."""
        if not self.retention_days:
            return 0
        cutoff = audit_time(datetime.now(UTC) - timedelta(days=self.retention_days))
        return await self.store.prune(cutoff)

    async def aclose(self) -> None:
        """Stop the task and write what is still queued (a few tries, then log the loss)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for attempt in range(1, CLOSE_ATTEMPTS + 1):
            try:
                await self.flush()
                return
            except Exception as exc:
                logger.warning("audit: final write, try %d: %s", attempt, exc)
                await asyncio.sleep(self.flush_seconds * attempt)
        logger.error("audit: %d record(s) could not be written at shutdown", len(self.pending))
