"""Counting in the checkpointer: a user's conversations and one thread's checkpoints."""

from __future__ import annotations

from collections.abc import Sequence

import psycopg
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from react_agent.databases.postgres_pool import is_connection_failure, unavailable

# Both are range scans of the primary key (thread_id, checkpoint_ns, checkpoint_id) that
# langgraph's SQLite and PostgreSQL savers declare, so they read only the rows counted.
_COUNT_USER_THREADS_SQL = (
    "SELECT COUNT(DISTINCT thread_id) FROM checkpoints "
    "WHERE thread_id >= {p} AND thread_id < {p} AND checkpoint_ns = ''"
)
_COUNT_THREAD_CHECKPOINTS_SQL = (
    "SELECT COUNT(*) FROM checkpoints WHERE thread_id = {p} AND checkpoint_ns = ''"
)


async def count_user_threads(checkpointer: BaseCheckpointSaver, user_id: str) -> int:
    """Return how many threads `user_id` has (all of them, not one page of the list).

    Thread ids are `user_id:…`, so the same key range as the list finds them.
    """
    low, high = f"{user_id}:", f"{user_id};"  # ';' is the character after ':'
    if isinstance(checkpointer, InMemorySaver):
        return sum(
            1
            for thread_id, namespaces in checkpointer.storage.items()
            if low <= thread_id < high and namespaces.get("")
        )
    return await _count(checkpointer, _COUNT_USER_THREADS_SQL, (low, high))


async def count_thread_checkpoints(checkpointer: BaseCheckpointSaver, thread_id: str) -> int:
    """Return how many checkpoints (graph steps saved) a thread has."""
    if isinstance(checkpointer, InMemorySaver):
        return len(checkpointer.storage.get(thread_id, {}).get("", {}))
    return await _count(checkpointer, _COUNT_THREAD_CHECKPOINTS_SQL, (thread_id,))


async def _count(checkpointer: BaseCheckpointSaver, sql: str, params: Sequence[object]) -> int:
    if isinstance(checkpointer, AsyncSqliteSaver):
        async with checkpointer.conn.execute(sql.format(p="?"), params) as cursor:
            row = await cursor.fetchone()
            return int(row[0]) if row else 0
    from react_agent.conversations.postgres_checkpointer import PostgresCheckpointSaver

    if not isinstance(checkpointer, PostgresCheckpointSaver):
        raise TypeError(f"cannot count in a {type(checkpointer).__name__}")
    try:
        async with checkpointer.pool.connection() as connection:
            cursor = await connection.execute(sql.format(p="%s"), params)
            row = await cursor.fetchone()
    except psycopg.Error as exc:
        if is_connection_failure(exc):
            raise unavailable(
                "CHECKPOINTER_UNAVAILABLE",
                "PostgreSQL checkpointer",
                checkpointer.pool.conninfo,
                exc,
            ) from exc
        raise
    if row is None:
        return 0
    # The saver's pool may hand out dict rows; take the only column either way.
    return int(next(iter(row.values())) if isinstance(row, dict) else row[0])
