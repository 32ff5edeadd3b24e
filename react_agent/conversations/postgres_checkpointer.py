"""The PostgreSQL checkpointer: AsyncPostgresSaver on one pool, its tables set up once."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Unpack

import psycopg
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_serializable_checkpoint_metadata,
)
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg.rows import DictRow, dict_row, tuple_row
from psycopg_pool import AsyncConnectionPool

from react_agent.conversations.postgres_checkpoint_batches import (
    CheckpointBatches,
    CheckpointWrite,
)
from react_agent.conversations.postgres_checkpoint_writes import (
    new_blob_versions,
    split_blobs,
    writes_upsert,
)
from react_agent.databases.postgres.pool import (
    PoolOptions,
    open_pool,
    ping_pool,
    unavailable,
)
from react_agent.storage.postgres_batches import StatementBatches
from react_agent.storage.postgres_json import jsonb

logger = logging.getLogger(__name__)

SETUP_LOCK_KEY = 7_301_846_210_554_116_109
"""Advisory lock key that serialises checkpoint table set-up between processes.

Arbitrary, but every process of the service must use the same one.
"""
SETUP_LOCK_TIMEOUT = 60.0
"""Seconds to wait for another process's set-up before this connection attempt fails."""
SETUP_LOCK_POLL_INTERVAL = 0.1


class CheckpointerSetup:
    """Creates or migrates the checkpoint tables on the pool's first connection.

    As the pool's `configure` hook it runs before the pool hands out any connection, so
    no checkpoint query can reach a database whose tables are missing, and a server that
    was down at start-up gets its tables as soon as it is back.
    """

    def __init__(self) -> None:
        self.done = False
        self.error: Exception | None = None
        """Why the last set-up attempt failed (None once it succeeded)."""
        self._lock = asyncio.Lock()

    async def __call__(self, connection: psycopg.AsyncConnection[Any]) -> None:
        """Set the tables up on `connection` unless that was done already."""
        if self.done:
            return
        async with self._lock:  # the pool may open several connections at once
            if self.done:
                return
            try:
                await set_up_checkpoint_tables(connection)
            except Exception as exc:
                self.error = exc
                logger.error("checkpointer set-up failed: %s", exc)
                # The pool does not close a connection its configure hook rejected.
                await connection.close()
                raise
            self.done = True
            self.error = None


async def set_up_checkpoint_tables(connection: psycopg.AsyncConnection[Any]) -> None:
    """Run langgraph's migrations on `connection`, one process at a time.

    Processes starting together would otherwise race on `CREATE TABLE` and the
    migrations table; a session-level advisory lock makes the others wait and then find
    nothing left to do.

    Raises:
        TimeoutError: Another process held the lock for SETUP_LOCK_TIMEOUT seconds.

    """
    # Wait between statements, not inside pg_advisory_lock(): the migrations' CREATE INDEX
    # CONCURRENTLY waits for every running statement, so a session blocked in the lock
    # call would deadlock with the process holding it.
    async with asyncio.timeout(SETUP_LOCK_TIMEOUT):
        while True:
            if await _try_setup_lock(connection):
                break
            await asyncio.sleep(SETUP_LOCK_POLL_INTERVAL)
    try:
        await AsyncPostgresSaver(connection).setup()
        # Listing a user's threads is a key range in byte order (see thread_index), which
        # the primary key cannot serve when the database sorts text by a locale.
        await connection.execute(
            "CREATE INDEX IF NOT EXISTS checkpoints_thread_id_bytes_idx "
            'ON checkpoints (thread_id COLLATE "C", checkpoint_ns)'
        )
    finally:
        try:
            await connection.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK_KEY,))
        except psycopg.Error:
            # The connection broke, and the server dropped the lock with the session.
            logger.debug("could not unlock the set-up lock", exc_info=True)


async def _try_setup_lock(connection: psycopg.AsyncConnection[Any]) -> bool:
    async with connection.cursor(row_factory=tuple_row) as cursor:
        await cursor.execute("SELECT pg_try_advisory_lock(%s)", (SETUP_LOCK_KEY,))
        row = await cursor.fetchone()
    return bool(row and row[0])


class PostgresCheckpointSaver(AsyncPostgresSaver):
    """AsyncPostgresSaver on a pool, with a health check that says what is wrong.

    Its reads and writes run side by side, each on a connection of its own from the pool.
    AsyncPostgresSaver takes one asyncio lock around every statement, which a single
    shared connection needs but a pool does not: with it, every checkpoint of every
    question in the process queued behind the one before, each holding the lock for its
    round trip and the event-loop turn after it (the one-worker PostgreSQL side idled a
    fifth of the time at c=100 while questions waited there).

    Checkpoints (with their blobs) and tasks' writes go in statements of many rows, those
    of questions that come while others are stored together
    (conversations/postgres_checkpoint_batches), serialized in the event loop as the
    SQLite saver does.
    """

    def __init__(self, pool: AsyncConnectionPool, setup: CheckpointerSetup) -> None:
        super().__init__(pool)
        self.pool = pool
        self.setup_state = setup
        self.writes = StatementBatches(pool.connection)
        """The process's statement writer: checkpoints, and the run store's events with them."""
        self.batches = CheckpointBatches(self.writes)
        """Stores the checkpoints and writes of questions that come together in one statement."""

    @asynccontextmanager
    async def _cursor(self, *, pipeline: bool = False) -> AsyncIterator[Any]:
        """Lend a cursor on a pooled connection (pipelined, or in a transaction, if asked)."""
        async with self.pool.connection() as conn:
            if pipeline and self.supports_pipeline:
                async with conn.pipeline(), conn.cursor(binary=True, row_factory=dict_row) as cur:
                    yield cur
            elif pipeline:
                async with (
                    conn.transaction(),
                    conn.cursor(binary=True, row_factory=dict_row) as cur,
                ):
                    yield cur
            else:
                async with conn.cursor(binary=True, row_factory=dict_row) as cur:
                    yield cur

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Save a checkpoint and its changed channels' blobs (with other questions' rows)."""
        configurable = config["configurable"]
        thread_id = configurable["thread_id"]
        checkpoint_ns = configurable["checkpoint_ns"]
        copy, blob_values = split_blobs(checkpoint)
        blob_versions = new_blob_versions(blob_values, new_versions)
        row = (
            thread_id,
            checkpoint_ns,
            checkpoint["id"],
            configurable.get("checkpoint_id"),
            jsonb(copy),
            jsonb(get_serializable_checkpoint_metadata(config, metadata)),
        )
        await self.batches.store(
            CheckpointWrite(
                (thread_id, checkpoint_ns),
                blobs=self._dump_blobs(thread_id, checkpoint_ns, blob_values, blob_versions),
                checkpoint=row,
            )
        )
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
        """Save a task's writes (with other questions' rows)."""
        configurable = config["configurable"]
        key = (
            configurable["thread_id"],
            configurable["checkpoint_ns"],
            configurable["checkpoint_id"],
            task_id,
        )
        rows = self._dump_writes(*key, task_path, writes)
        upsert = writes_upsert(writes, [row[5] for row in rows])
        if not rows:
            return
        if upsert is None:
            await super().aput_writes(config, writes, task_id, task_path)
            return
        await self.batches.store(CheckpointWrite(key, writes=rows, upsert=upsert))

    async def _load_checkpoint_tuple(self, value: DictRow) -> CheckpointTuple:
        """Build the checkpoint tuple of a row (as the saver does, with no worker thread)."""

        def config_of(checkpoint_id: str) -> RunnableConfig:
            return {
                "configurable": {
                    "thread_id": value["thread_id"],
                    "checkpoint_ns": value["checkpoint_ns"],
                    "checkpoint_id": checkpoint_id,
                }
            }

        checkpoint = value["checkpoint"]
        parent_id = value["parent_checkpoint_id"]
        return CheckpointTuple(
            config_of(value["checkpoint_id"]),
            {
                **checkpoint,
                "channel_values": {
                    **(checkpoint.get("channel_values") or {}),
                    **self._load_blobs(value["channel_values"]),
                },
            },
            value["metadata"],
            config_of(parent_id) if parent_id else None,
            self._load_writes(value["pending_writes"]),
        )

    async def ping(self, timeout: float) -> None:
        """Raise the 503 CHECKPOINTER_UNAVAILABLE error if the checkpointer cannot be used.

        Args:
            timeout: Seconds to wait for an answer.

        """
        problem = await ping_pool(self.pool, timeout=timeout)
        if problem is None:
            return
        if self.setup_state.error is not None:
            problem += f"; setting up the checkpoint tables failed: {self.setup_state.error}"
        raise unavailable(
            "CHECKPOINTER_UNAVAILABLE", "PostgreSQL checkpointer", self.pool.conninfo, problem
        )


@asynccontextmanager
async def open_postgres_checkpointer(
    url: str, **options: Unpack[PoolOptions]
) -> AsyncIterator[PostgresCheckpointSaver]:
    """Open the checkpointer on its own pool and close the pool on exit.

    Does not wait for the server: when it is down, the saver is still returned and its
    queries fail with pool timeouts until the pool reconnects by itself.

    Args:
        url: `postgresql://`, `postgres://` or `postgresql+psycopg://` URL.
        options: Pool options (sizes, lifetimes, prepare threshold, timeouts).

    """
    setup = CheckpointerSetup()
    pool = await open_pool(
        url,
        name="checkpointer",
        # What AsyncPostgresSaver expects of its connections.
        connection_kwargs={"row_factory": dict_row},
        configure=setup,
        **options,
    )
    saver = PostgresCheckpointSaver(pool, setup)
    try:
        yield saver
    finally:
        await saver.writes.aclose()
        await pool.close()
