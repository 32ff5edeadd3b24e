"""The stored examples: question→SQL pairs, known-wrong SQL, and notes (the old training data)."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from react_agent.memory.database import MemoryDatabase
from react_agent.timestamps import storage_timestamp

SQL = "sql"
ERROR_SQL = "error_sql"
DOCUMENTATION = "documentation"
DDL = "ddl"
TRAINING_DATA_TYPES = (SQL, ERROR_SQL, DOCUMENTATION, DDL)
"""`sql` and `error_sql` hold a question and its SQL; the others a note (`ddl`: a schema note)."""

SORT_COLUMNS = frozenset({"created_at", "updated_at", "training_data_type", "question", "id"})
_INSERTED = (
    "id, training_data_type, question, content, created_at, updated_at, source_feedback_id, "
    "status, check_result"
)
_COLUMNS = f"{_INSERTED}, stale, stale_reason"

PROPOSED = "proposed"
VERIFIED = "verified"
REJECTED = "rejected"
STATUSES = (PROPOSED, VERIFIED, REJECTED)
"""An item's review state (react_agent/memory/curation/verification.py says who sets which)."""
SERVED_STATUSES = (VERIFIED, REJECTED)
"""What retrieval serves: verified items, and rejected examples (always `error_sql` negatives)."""


@dataclass(frozen=True)
class MemoryItem:
    """One stored example or note; `content` is the SQL of `sql` and `error_sql` items."""

    id: str
    training_data_type: str
    question: str | None
    content: str
    created_at: str = ""
    updated_at: str = ""
    source_feedback_id: int | None = None
    status: str = VERIFIED
    """proposed (from feedback, not served), verified, or rejected (an error_sql negative)."""
    check_result: str | None = None
    """JSON of the one run of a proposed example's SQL: columns, first rows, count, or error."""
    stale: bool = False
    """Its SQL reads a table or column the schema no longer has (never retrieved then)."""
    stale_reason: str | None = None
    embedding: str | None = None
    """JSON list of floats, when an embedding model is configured (see vectors.py)."""

    def as_record(self) -> dict[str, Any]:
        """Return the item as the training-data endpoints show it."""
        record: dict[str, Any] = {
            "id": self.id,
            "training_data_type": self.training_data_type,
            "question": self.question,
            "content": self.content,
        }
        if self.training_data_type in (SQL, ERROR_SQL):
            record["sql"] = self.content
        record.update(
            created_at=self.created_at,
            updated_at=self.updated_at,
            source_feedback_id=self.source_feedback_id,
            status=self.status,
            check_result=json.loads(self.check_result) if self.check_result else None,
            stale=bool(self.stale),
            stale_reason=self.stale_reason,
        )
        return record


class ExampleStore:
    """Reads and writes the examples; every write bumps the revision the index follows."""

    def __init__(self, database: MemoryDatabase) -> None:
        self.database = database
        self.writes = 0
        """Changes made through this store; the retriever re-reads the revision when it grows."""

    async def add(
        self,
        training_data_type: str,
        question: str | None,
        content: str,
        *,
        source_feedback_id: int | None = None,
        status: str = VERIFIED,
        check_result: str | None = None,
    ) -> MemoryItem:
        """Store one item (already validated) and return it with its new id."""
        now = storage_timestamp()
        item = MemoryItem(
            f"{uuid.uuid4()}-{training_data_type}",
            training_data_type,
            question,
            content,
            now,
            now,
            source_feedback_id,
            status,
            check_result,
        )
        await self.database.execute(
            f"INSERT INTO memory_items ({_INSERTED}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                item.id,
                item.training_data_type,
                question,
                content,
                now,
                now,
                source_feedback_id,
                status,
                check_result,
            ),
        )
        await self._bump_revision()
        return item

    async def get(self, item_id: str) -> MemoryItem | None:
        """Return the item with this id, or None."""
        rows = await self.database.fetch_all(
            f"SELECT {_COLUMNS} FROM memory_items WHERE id = ?", (item_id,)
        )
        return MemoryItem(**rows[0]) if rows else None

    async def update(
        self, item_id: str, training_data_type: str, question: str | None, content: str
    ) -> bool:
        """Replace an item's type and fields; False when there is no such item."""
        changed = await self.database.execute(
            "UPDATE memory_items SET training_data_type = ?, question = ?, content = ?, "
            "updated_at = ?, embedding = NULL, stale = 0, stale_reason = NULL WHERE id = ?",
            (training_data_type, question, content, storage_timestamp(), item_id),
        )
        if changed:
            await self._bump_revision()
        return bool(changed)

    async def set_status(self, item_id: str, status: str, training_data_type: str) -> bool:
        """Set an item's review status (and type: a rejected example becomes error_sql)."""
        changed = await self.database.execute(
            "UPDATE memory_items SET status = ?, training_data_type = ?, updated_at = ? "
            "WHERE id = ?",
            (status, training_data_type, storage_timestamp(), item_id),
        )
        if changed:
            await self._bump_revision()
        return bool(changed)

    async def find_pair(
        self, training_data_type: str, question: str, sql: str
    ) -> MemoryItem | None:
        """Return a stored example with exactly this question and SQL, if there is one."""
        rows = await self.database.fetch_all(
            f"SELECT {_COLUMNS} FROM memory_items WHERE training_data_type = ? "
            "AND question = ? AND content = ?",
            (training_data_type, question, sql),
        )
        return MemoryItem(**rows[0]) if rows else None

    async def delete(self, item_ids: list[str]) -> list[str]:
        """Delete the items; return the ids that existed."""
        deleted = []
        for item_id in item_ids:
            if await self.database.execute("DELETE FROM memory_items WHERE id = ?", (item_id,)):
                deleted.append(item_id)
        if deleted:
            await self._bump_revision()
        return deleted

    async def query(
        self,
        *,
        page: int,
        page_size: int,
        training_data_type: str | None = None,
        search_keyword: str | None = None,
        status: str | None = None,
        sort_by: str = "created_at",
        sort_order: str = "desc",
    ) -> tuple[list[MemoryItem], int]:
        """Return one page of items, newest first by default, and how many match in all."""
        conditions, params = [], []
        if training_data_type:
            conditions.append("training_data_type = ?")
            params.append(training_data_type)
        if status:
            conditions.append("status = ?")
            params.append(status)
        if search_keyword:
            conditions.append("(LOWER(COALESCE(question, '')) LIKE ? OR LOWER(content) LIKE ?)")
            pattern = f"%{search_keyword.lower()}%"
            params += [pattern, pattern]
        where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
        total = (
            await self.database.fetch_all(f"SELECT COUNT(*) AS n FROM memory_items {where}", params)
        )[0]["n"]
        assert sort_by in SORT_COLUMNS and sort_order in ("asc", "desc")
        rows = await self.database.fetch_all(
            f"SELECT {_COLUMNS} FROM memory_items {where} "
            f"ORDER BY {sort_by} {sort_order}, id {sort_order} LIMIT ? OFFSET ?",
            [*params, page_size, (page - 1) * page_size],
        )
        return [MemoryItem(**row) for row in rows], int(total)

    async def count_by_type(self) -> dict[str, int]:
        """Return how many items there are of each type (every type listed)."""
        rows = await self.database.fetch_all(
            "SELECT training_data_type, COUNT(*) AS n FROM memory_items GROUP BY training_data_type"
        )
        counts = dict.fromkeys(TRAINING_DATA_TYPES, 0)
        counts.update({row["training_data_type"]: int(row["n"]) for row in rows})
        return counts

    async def last_updated(self) -> str | None:
        """Return when an item was last added or changed."""
        rows = await self.database.fetch_all("SELECT MAX(updated_at) AS t FROM memory_items")
        return rows[0]["t"]

    async def count_by_status(self) -> dict[str, int]:
        """Return how many items there are in each review status (every status listed)."""
        rows = await self.database.fetch_all(
            "SELECT status, COUNT(*) AS n FROM memory_items GROUP BY status"
        )
        counts = dict.fromkeys(STATUSES, 0)
        counts.update({row["status"]: int(row["n"]) for row in rows})
        return counts

    async def all_items(self, statuses: tuple[str, ...] | None = None) -> list[MemoryItem]:
        """Return every item that is not stale (of `statuses`), with its embedding."""
        where, params = "WHERE stale = 0", ()
        if statuses is not None:
            where += f" AND status IN ({', '.join('?' for _ in statuses)})"
            params = statuses
        rows = await self.database.fetch_all(
            f"SELECT {_COLUMNS}, embedding FROM memory_items {where}", params
        )
        return [MemoryItem(**row) for row in rows]

    async def sql_items(self) -> list[MemoryItem]:
        """Return every `sql` and `error_sql` item, stale or not (for schema drift)."""
        rows = await self.database.fetch_all(
            f"SELECT {_COLUMNS} FROM memory_items WHERE training_data_type IN (?, ?)",
            (SQL, ERROR_SQL),
        )
        return [MemoryItem(**row) for row in rows]

    async def set_stale(self, item_id: str, reason: str | None) -> None:
        """Mark an item stale with `reason`, or un-mark it (None); the indexes follow."""
        await self.database.execute(
            "UPDATE memory_items SET stale = ?, stale_reason = ? WHERE id = ?",
            (int(reason is not None), reason, item_id),
        )
        await self._bump_revision()

    async def count_stale(self) -> int:
        """Return how many items are stale."""
        rows = await self.database.fetch_all(
            "SELECT COUNT(*) AS n FROM memory_items WHERE stale = 1"
        )
        return int(rows[0]["n"])

    async def set_embedding(self, item: MemoryItem, embedding: str) -> None:
        """Store an item's embedding, unless the item changed since it was read."""
        # Not a change of the items: the revision stays, so no other process re-indexes.
        # The text is compared too: updated_at is to the second, and an update within the
        # same second as the read would otherwise be stored with the old text's vector.
        await self.database.execute(
            "UPDATE memory_items SET embedding = ? WHERE id = ? AND updated_at = ? "
            "AND COALESCE(question, '') = ? AND content = ?",
            (embedding, item.id, item.updated_at, item.question or "", item.content),
        )

    async def revision(self) -> int:
        """Return the revision of the items; it grows with every change, in any process."""
        rows = await self.database.fetch_all("SELECT revision FROM memory_revision WHERE id = 1")
        return int(rows[0]["revision"]) if rows else 0

    async def _bump_revision(self) -> None:
        await self.database.execute(
            "UPDATE memory_revision SET revision = revision + 1 WHERE id = 1"
        )
        # After the update: a retriever that sees the count grow reads the new revision.
        self.writes += 1
