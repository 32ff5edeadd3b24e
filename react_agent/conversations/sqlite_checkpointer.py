"""The SQLite checkpointer: LangGraph's AsyncSqliteSaver, its writes committed in groups.

aiosqlite runs every call on the connection's own thread: a queue put, a thread wake-up,
then the event loop woken through its self-pipe. AsyncSqliteSaver's `aput` takes three
such trips (execute, close the cursor, commit) and `aput_writes` four (open a cursor,
executemany, commit, close), and the graph saves a checkpoint and a task's writes at every
step: about 80 trips per question of the benchmark. Here a write's statement and its
commit run in one trip (about 25 per question), and the writes that come while a trip is
under way (other questions' steps, under load) go together in the next one, with one
commit. What is written is the same, in the order it came; each caller returns once its
own rows are committed, as before (reads are the parent's).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from collections.abc import Sequence
from functools import partial
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from react_agent.group_writes import settle

_PUT_CHECKPOINT = (
    "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, "
    "parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_WRITES_COLUMNS = (
    "INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, "
    "type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_REPLACE_WRITES = "INSERT OR REPLACE " + _WRITES_COLUMNS
"""Writes of the special channels (errors, interrupts) replace earlier ones."""
_KEEP_WRITES = "INSERT OR IGNORE " + _WRITES_COLUMNS

logger = logging.getLogger(__name__)

_Write = tuple[str, list[tuple[Any, ...]], "asyncio.Future[None]"]
"""A caller's statement, its rows, and the future its caller waits on."""


def _write_and_commit(connection: sqlite3.Connection, writes: list[_Write]) -> None:
    """Run on the connection's thread: every write's rows in order, then one commit."""
    try:
        for sql, rows, _ in writes:
            connection.executemany(sql, rows).close()
        connection.commit()
    except BaseException:
        connection.rollback()
        raise


class SqliteCheckpointSaver(AsyncSqliteSaver):
    """AsyncSqliteSaver whose writes go to the thread in groups, one trip and commit each."""

    _synchronous_set = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.trips = 0
        """Trips to the thread that wrote (fewer than the writes, under load)."""
        self._queued: list[_Write] = []
        self._writer: asyncio.Task[None] | None = None

    async def setup(self) -> None:
        """Create the tables (the parent's setup, WAL mode), then synchronous=NORMAL once.

        In WAL mode NORMAL syncs the log at checkpoints of the WAL, not at every commit: a
        commit survives the process being killed (the OS has it), only an OS crash or a
        power cut can take the last ones. One fsync per graph step was about a sixth of a
        question's wall time (`python -m bench.cost_per_question`).
        """
        await super().setup()
        if not self._synchronous_set:
            self._synchronous_set = True
            async with self.lock:
                await self.conn.execute("PRAGMA synchronous=NORMAL")

    async def _write(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """Return once the rows are committed (with the next group of writes)."""
        loop = asyncio.get_running_loop()
        write: _Write = (sql, rows, loop.create_future())
        self._queued.append(write)
        if self._writer is None:
            # A task of its own: a caller that stops waiting must not stop the others' trip.
            self._writer = loop.create_task(self._write_queued(), name="sqlite-checkpoints")
        try:
            await write[2]
        except asyncio.CancelledError:
            if write in self._queued:  # not sent yet: dropped, as the parent's would be
                self._queued.remove(write)
            raise

    async def _write_queued(self) -> None:
        try:
            while self._queued:
                group, self._queued = self._queued, []
                await self._trip(group)
        finally:
            self._writer = None
            for _, _, done in self._queued:  # only when this task was cancelled
                done.cancel()

    async def _trip(self, group: list[_Write]) -> None:
        conn = self.conn
        self.trips += 1
        try:
            async with self.lock:
                # aiosqlite's own way of running a call on its thread (the pin in
                # pyproject.toml keeps it); `_conn` is the sqlite3 connection it owns.
                await conn._execute(partial(_write_and_commit, conn._conn, group))
        except Exception as exc:
            if len(group) > 1:
                logger.warning(
                    "%d checkpoint writes failed together (%s): one by one", len(group), exc
                )
                for write in group:
                    await self._trip([write])
                return
            settle((done for _, _, done in group), exc)
        except BaseException:
            for _, _, done in group:
                done.cancel()
            raise
        else:
            settle((done for _, _, done in group), None)

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Save a checkpoint (as AsyncSqliteSaver.aput: the same row, committed at once)."""
        await self.setup()
        thread_id = config["configurable"]["thread_id"]
        checkpoint_ns = config["configurable"]["checkpoint_ns"]
        type_, serialized_checkpoint = self.serde.dumps_typed(checkpoint)
        serialized_metadata = json.dumps(
            get_checkpoint_metadata(config, metadata), ensure_ascii=False
        ).encode("utf-8", "ignore")
        row = (
            str(thread_id),
            checkpoint_ns,
            checkpoint["id"],
            config["configurable"].get("checkpoint_id"),
            type_,
            serialized_checkpoint,
            serialized_metadata,
        )
        await self._write(_PUT_CHECKPOINT, [row])
        return {
            "configurable": {
                "thread_id": thread_id,
                "checkpoint_ns": checkpoint_ns,
                "checkpoint_id": checkpoint["id"],
            }
        }

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's writes (as AsyncSqliteSaver.aput_writes: the same rows, committed)."""
        query = _REPLACE_WRITES if all(w[0] in WRITES_IDX_MAP for w in writes) else _KEEP_WRITES
        await self.setup()
        configurable = config["configurable"]
        rows = [
            (
                str(configurable["thread_id"]),
                str(configurable["checkpoint_ns"]),
                str(configurable["checkpoint_id"]),
                task_id,
                task_path,
                WRITES_IDX_MAP.get(channel, idx),
                channel,
                *self.serde.dumps_typed(value),
            )
            for idx, (channel, value) in enumerate(writes)
        ]
        await self._write(query, rows)
