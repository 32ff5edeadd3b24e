"""Listing threads: one reader per checkpointer kind, the only code reading its storage."""

from __future__ import annotations

import psycopg
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from react_agent.conversations.postgres_checkpointer import PostgresCheckpointSaver
from react_agent.databases.postgres_pool import is_connection_failure, unavailable

# LangGraph's public API has no listing of threads, so the savers' `checkpoints` table is read.
_LIST_THREADS_SQL = (
    "SELECT thread_id FROM checkpoints WHERE thread_id >= {p} AND thread_id < {p} "
    "AND checkpoint_ns = '' GROUP BY thread_id ORDER BY MAX(checkpoint_id) DESC LIMIT {p}"
)


async def list_thread_ids(checkpointer: BaseCheckpointSaver, user_id: str, limit: int) -> list[str]:
    """Return the ids of a user's threads, most recently updated first.

    Thread ids are `user_id:…`, so a key range finds them without scanning other users;
    checkpoint ids grow with time, so the largest one per thread orders by last update.
    """
    low, high = f"{user_id}:", f"{user_id};"  # ';' is the character after ':'
    if isinstance(checkpointer, AsyncSqliteSaver):
        return await sqlite_thread_ids(checkpointer, low, high, limit)
    if isinstance(checkpointer, InMemorySaver):
        return memory_thread_ids(checkpointer, low, high, limit)
    if isinstance(checkpointer, PostgresCheckpointSaver):
        return await postgres_thread_ids(checkpointer, low, high, limit)
    raise TypeError(f"cannot list the threads of a {type(checkpointer).__name__}")


async def sqlite_thread_ids(saver: AsyncSqliteSaver, low: str, high: str, limit: int) -> list[str]:
    """Return the ids in [low, high) of the SQLite saver's threads, newest first."""
    async with saver.conn.execute(_LIST_THREADS_SQL.format(p="?"), (low, high, limit)) as cursor:
        return [row[0] for row in await cursor.fetchall()]


def memory_thread_ids(saver: InMemorySaver, low: str, high: str, limit: int) -> list[str]:
    """Return the ids in [low, high) of the in-memory saver's threads, newest first."""
    latest = {
        thread_id: max(namespaces.get("", {}) or [""])
        for thread_id, namespaces in saver.storage.items()
        if low <= thread_id < high
    }
    return sorted(latest, key=latest.__getitem__, reverse=True)[:limit]


async def postgres_thread_ids(
    saver: PostgresCheckpointSaver, low: str, high: str, limit: int
) -> list[str]:
    """Return the ids in [low, high) of the PostgreSQL saver's threads, newest first.

    Raises:
        ServiceError: 503 CHECKPOINTER_UNAVAILABLE when PostgreSQL cannot be reached.

    """
    try:
        async with saver.pool.connection() as connection:
            cursor = await connection.execute(_LIST_THREADS_SQL.format(p="%s"), (low, high, limit))
            return [row["thread_id"] for row in await cursor.fetchall()]
    except psycopg.Error as exc:
        if is_connection_failure(exc):
            raise unavailable(
                "CHECKPOINTER_UNAVAILABLE", "PostgreSQL checkpointer", saver.pool.conninfo, exc
            ) from exc
        raise
