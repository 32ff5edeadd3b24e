"""Listing and counting threads: the only code that reads the savers' storage directly.

LangGraph's public checkpointer API has no listing of threads, so the `checkpoints` table of
the SQLite and PostgreSQL savers (and the in-memory saver's dict) is read here, one reader
per saver kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from react_agent.conversations.postgres_checkpointer import PostgresCheckpointSaver
from react_agent.databases.postgres.pool import is_connection_failure, unavailable

# Thread ids are `user_id:…`, so a user's threads are the key range [`user_id:`, `user_id;`)
# (';' follows ':'). The range only holds in byte order, hence COLLATE "C" on PostgreSQL,
# whose databases often sort by a locale that ignores punctuation; an index in that
# collation (set up with the tables, see postgres_checkpointer) keeps it a range scan.
_USER_RANGE = {
    "?": "thread_id >= ? AND thread_id < ?",
    "%s": 'thread_id COLLATE "C" >= %s AND thread_id COLLATE "C" < %s',
}
_LIST_THREADS_SQL = (
    "SELECT thread_id FROM checkpoints WHERE {range} AND checkpoint_ns = '' "
    "GROUP BY thread_id ORDER BY MAX(checkpoint_id) DESC LIMIT {p}"
)
_COUNT_USER_THREADS_SQL = (
    "SELECT COUNT(DISTINCT thread_id) FROM checkpoints WHERE {range} AND checkpoint_ns = ''"
)
_COUNT_THREAD_CHECKPOINTS_SQL = (
    "SELECT COUNT(*) FROM checkpoints WHERE thread_id = {p} AND checkpoint_ns = ''"
)
_NAMESPACES_LIKE_SQL = (
    "SELECT DISTINCT checkpoint_ns FROM checkpoints "
    "WHERE thread_id = {p} AND checkpoint_ns LIKE {p}"
)


def user_range(user_id: str) -> tuple[str, str]:
    """Return the key range [low, high) of a user's thread ids."""
    return f"{user_id}:", f"{user_id};"


async def list_thread_ids(checkpointer: BaseCheckpointSaver, user_id: str, limit: int) -> list[str]:
    """Return the ids of a user's threads, most recently updated first.

    Checkpoint ids grow with time, so the largest one per thread orders by last update.
    """
    low, high = user_range(user_id)
    if isinstance(checkpointer, InMemorySaver):
        latest = {
            thread_id: max(namespaces.get("", {}) or [""])
            for thread_id, namespaces in checkpointer.storage.items()
            if low <= thread_id < high
        }
        return sorted(latest, key=latest.__getitem__, reverse=True)[:limit]
    rows = await _fetch(checkpointer, _LIST_THREADS_SQL, (low, high, limit))
    return [row[0] for row in rows]


async def count_user_threads(checkpointer: BaseCheckpointSaver, user_id: str) -> int:
    """Return how many threads `user_id` has (all of them, not one page of the list)."""
    low, high = user_range(user_id)
    if isinstance(checkpointer, InMemorySaver):
        return sum(
            1
            for thread_id, namespaces in checkpointer.storage.items()
            if low <= thread_id < high and namespaces.get("")
        )
    rows = await _fetch(checkpointer, _COUNT_USER_THREADS_SQL, (low, high))
    return int(rows[0][0]) if rows else 0


async def count_thread_checkpoints(checkpointer: BaseCheckpointSaver, thread_id: str) -> int:
    """Return how many checkpoints (graph steps saved) a thread has."""
    if isinstance(checkpointer, InMemorySaver):
        return len(checkpointer.storage.get(thread_id, {}).get("", {}))
    rows = await _fetch(checkpointer, _COUNT_THREAD_CHECKPOINTS_SQL, (thread_id,))
    return int(rows[0][0]) if rows else 0


async def namespaces_containing(
    checkpointer: BaseCheckpointSaver, thread_id: str, part: str
) -> list[str]:
    """Return a thread's checkpoint namespaces that contain `part` (sub-agents' namespaces).

    The public API reads a namespace it is given; which sub-agent namespaces a thread
    has is read here (react_agent/subagents/progress.py names the part).
    """
    if isinstance(checkpointer, InMemorySaver):
        return [ns for ns in checkpointer.storage.get(thread_id, {}) if part in ns]
    # LIKE's wildcards in `part` (ids may hold '_') can only widen the match: filter again.
    rows = await _fetch(checkpointer, _NAMESPACES_LIKE_SQL, (thread_id, f"%{part}%"))
    return sorted(row[0] for row in rows if part in row[0])


async def _fetch(
    checkpointer: BaseCheckpointSaver, sql: str, params: Sequence[Any]
) -> list[Sequence[Any]]:
    """Run one read on the saver's own database; rows come back as tuples."""
    if isinstance(checkpointer, AsyncSqliteSaver):
        query = sql.format(range=_USER_RANGE["?"], p="?")
        async with checkpointer.conn.execute(query, params) as cursor:
            return [tuple(row) for row in await cursor.fetchall()]
    if isinstance(checkpointer, PostgresCheckpointSaver):
        query = sql.format(range=_USER_RANGE["%s"], p="%s")
        return await _fetch_postgres(checkpointer, query, params)
    raise TypeError(f"cannot read the threads of a {type(checkpointer).__name__}")


async def _fetch_postgres(
    saver: PostgresCheckpointSaver, query: str, params: Sequence[Any]
) -> list[Sequence[Any]]:
    """Run `query` on the PostgreSQL saver's pool (whose rows may be dicts).

    Raises:
        ServiceError: 503 CHECKPOINTER_UNAVAILABLE when PostgreSQL cannot be reached.

    """
    try:
        async with saver.pool.connection() as connection:
            cursor = await connection.execute(query, params)
            rows = await cursor.fetchall()
    except psycopg.Error as exc:
        if is_connection_failure(exc):
            raise unavailable(
                "CHECKPOINTER_UNAVAILABLE", "PostgreSQL checkpointer", saver.pool.conninfo, exc
            ) from exc
        raise
    return [tuple(row.values()) if isinstance(row, dict) else tuple(row) for row in rows]
