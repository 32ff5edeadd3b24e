"""The SQLite checkpointer: LangGraph's AsyncSqliteSaver, each write one trip to its thread.

aiosqlite runs every call on the connection's own thread: a queue put, a thread wake-up,
then the event loop woken through its self-pipe. AsyncSqliteSaver's `aput` takes three
such trips (execute, close the cursor, commit) and `aput_writes` four (open a cursor,
executemany, commit, close), and the graph saves a checkpoint and a task's writes at every
step: about 80 trips per question of the benchmark. Here the statement and its commit run
in one trip, about 25 per question (3 ms less CPU, `python -m bench.cost_per_question`);
what is written, and when it is committed, are the same (reads are the parent's).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
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


def _write_and_commit(
    connection: sqlite3.Connection, sql: str, rows: list[tuple[Any, ...]]
) -> None:
    """Run on the connection's thread: the rows, then the commit (as the parent, in one trip)."""
    cursor = connection.executemany(sql, rows)
    cursor.close()
    connection.commit()


class SqliteCheckpointSaver(AsyncSqliteSaver):
    """AsyncSqliteSaver whose `aput` and `aput_writes` each take one trip to the thread."""

    _synchronous_set = False

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
        conn = self.conn
        async with self.lock:
            # aiosqlite's own way of running a call on its thread (the pin in pyproject.toml
            # keeps it); inside it, `_conn` is the sqlite3 connection that thread owns.
            await conn._execute(lambda: _write_and_commit(conn._conn, sql, rows))

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
