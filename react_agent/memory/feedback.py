"""Users' ratings of answers (thumb up / down on a question and its SQL)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from react_agent.memory.database import MemoryDatabase
from react_agent.timestamps import storage_timestamp

MAX_REASON_CHARS = 500
"""The longest reason a rating keeps: a sentence or two, not an essay."""
SORT_COLUMNS = frozenset(
    {
        "id",
        "create_time",
        "update_time",
        "question",
        "user_id",
        "is_thumb_up",
        "is_in_training_data",
    }
)
UPDATABLE_FIELDS = ("question", "sql", "is_thumb_up", "reason", "user_id", "is_in_training_data")
_COLUMNS = (
    "id, question, sql, is_thumb_up, reason, user_id, thread_id, run_id, create_time, "
    "update_time, is_in_training_data, training_data_id"
)
_FLAGS = ("is_thumb_up", "is_in_training_data")


@dataclass(frozen=True)
class FeedbackFilter:
    """The old query endpoint's filters; None means any."""

    is_thumb_up: bool | None = None
    is_in_training_data: bool | None = None
    create_time_start: str | None = None
    create_time_end: str | None = None
    user_id: str | None = None

    def where(self) -> tuple[str, list[Any]]:
        """Return the WHERE clause (maybe empty) and its parameters."""
        conditions: list[str] = []
        params: list[Any] = []
        for column in _FLAGS:
            value = getattr(self, column)
            if value is not None:
                conditions.append(f"{column} = ?")
                params.append(int(value))
        if self.create_time_start:
            conditions.append("create_time >= ?")
            params.append(self.create_time_start)
        if self.create_time_end:
            end = self.create_time_end
            # A bare date includes that whole day.
            conditions.append("create_time <= ?")
            params.append(f"{end} 23:59:59" if len(end) == 10 else end)
        if self.user_id is not None:
            conditions.append("user_id = ?")
            params.append(self.user_id)
        return (f"WHERE {' AND '.join(conditions)}" if conditions else ""), params


class FeedbackStore:
    """Reads and writes ratings."""

    def __init__(self, database: MemoryDatabase) -> None:
        self.database = database

    async def add(
        self,
        *,
        question: str,
        sql: str,
        is_thumb_up: bool,
        user_id: str,
        thread_id: str | None = None,
        run_id: str | None = None,
        reason: str | None = None,
    ) -> int:
        """Store one rating (with why, if the person said) and return its id."""
        now = storage_timestamp()
        rows = await self.database.fetch_all(
            "INSERT INTO qa_feedback (question, sql, is_thumb_up, reason, user_id, thread_id, "
            "run_id, create_time, update_time, is_in_training_data) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0) RETURNING id",
            (question, sql, int(is_thumb_up), reason, user_id, thread_id, run_id, now, now),
        )
        return int(rows[0]["id"])

    async def get(self, feedback_id: int) -> dict[str, Any] | None:
        """Return one rating, or None."""
        rows = await self.database.fetch_all(
            f"SELECT {_COLUMNS} FROM qa_feedback WHERE id = ?", (feedback_id,)
        )
        return _record(rows[0]) if rows else None

    async def query(
        self,
        filters: FeedbackFilter,
        *,
        page: int,
        page_size: int,
        sort_by: str = "create_time",
        sort_order: str = "desc",
    ) -> tuple[list[dict[str, Any]], int]:
        """Return one page of ratings and how many match in all."""
        assert sort_by in SORT_COLUMNS and sort_order in ("asc", "desc")
        where, params = filters.where()
        total = await self.count(filters)
        rows = await self.database.fetch_all(
            f"SELECT {_COLUMNS} FROM qa_feedback {where} "
            f"ORDER BY {sort_by} {sort_order}, id {sort_order} LIMIT ? OFFSET ?",
            [*params, page_size, (page - 1) * page_size],
        )
        return [_record(row) for row in rows], total

    async def count(self, filters: FeedbackFilter) -> int:
        """Return how many ratings match."""
        where, params = filters.where()
        rows = await self.database.fetch_all(
            f"SELECT COUNT(*) AS n FROM qa_feedback {where}", params
        )
        return int(rows[0]["n"])

    async def update(self, feedback_id: int, fields: dict[str, Any]) -> bool:
        """Change some of UPDATABLE_FIELDS; False when there is no such rating."""
        assignments = [f"{name} = ?" for name in fields if name in UPDATABLE_FIELDS]
        values = [
            int(value) if name in _FLAGS else value
            for name, value in fields.items()
            if name in UPDATABLE_FIELDS
        ]
        changed = await self.database.execute(
            f"UPDATE qa_feedback SET {', '.join([*assignments, 'update_time = ?'])} WHERE id = ?",
            [*values, storage_timestamp(), feedback_id],
        )
        return bool(changed)

    async def mark_in_training(self, feedback_id: int, training_data_id: str) -> None:
        """Record that a rating was moved into the examples, as `training_data_id`."""
        await self.database.execute(
            "UPDATE qa_feedback SET is_in_training_data = 1, training_data_id = ?, "
            "update_time = ? WHERE id = ?",
            (training_data_id, storage_timestamp(), feedback_id),
        )

    async def delete(self, feedback_id: int) -> bool:
        """Delete one rating; False when there is no such rating."""
        return bool(
            await self.database.execute("DELETE FROM qa_feedback WHERE id = ?", (feedback_id,))
        )


def _record(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, **{flag: bool(row[flag]) for flag in _FLAGS}}
