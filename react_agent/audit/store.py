"""Reading and writing audit records: batched inserts, filtered pages, pruning by age."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from react_agent.audit.database import LedgerDatabase
from react_agent.audit.records import COLUMNS, AuditRecord, record_from_row

_INSERT = f"INSERT INTO audit_records ({', '.join(COLUMNS)}) VALUES "
_ROW_PLACEHOLDERS = "(" + ", ".join("?" for _ in COLUMNS) + ")"


@dataclass(frozen=True)
class AuditFilter:
    """Which records a search returns; None fields do not filter."""

    user_id: str | None = None
    since: str | None = None
    """Records at or after this audit time (react_agent.audit.records.audit_time)."""
    until: str | None = None
    """Records before this audit time."""
    outcome: str | None = None
    table: str | None = None
    """Records whose query read this table (lower-case name)."""

    def where(self) -> tuple[str, list[Any]]:
        """Return the WHERE clause (or "") and its parameters."""
        clauses: list[str] = []
        params: list[Any] = []
        for clause, value in (
            ("user_id = ?", self.user_id),
            ("at >= ?", self.since),
            ("at < ?", self.until),
            ("outcome = ?", self.outcome),
            # Tables are stored as a JSON list of lower-case names: match one whole entry.
            ("tables LIKE ? ESCAPE '!'", None if self.table is None else _entry(self.table)),
        ):
            if value is not None:
                clauses.append(clause)
                params.append(value)
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def _entry(table: str) -> str:
    """Return the LIKE pattern of one whole JSON entry `"table"` (its _ and % literal)."""
    quoted = json.dumps(table.lower())
    return "%" + quoted.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%"


@dataclass(frozen=True)
class AuditPage:
    """One page of a search, newest first, and how many records match in all."""

    records: list[dict[str, Any]]
    total_count: int


class AuditStore:
    """The audit_records table of the conversation database."""

    def __init__(self, database: LedgerDatabase) -> None:
        self.database = database

    async def insert(self, records: Sequence[AuditRecord]) -> None:
        """Write records in one statement; a record already stored (same id) is skipped."""
        if not records:
            return
        sql = (
            _INSERT
            + ", ".join(_ROW_PLACEHOLDERS for _ in records)
            + " ON CONFLICT (record_id) DO NOTHING"
        )
        await self.database.execute(sql, [value for record in records for value in record.row()])

    async def search(self, where: AuditFilter, *, page: int, page_size: int) -> AuditPage:
        """Return page `page` (from 1) of the matching records, newest first."""
        clause, params = where.where()
        total = await self.database.fetch_all(
            f"SELECT COUNT(*) AS n FROM audit_records{clause}", params
        )
        rows = await self.database.fetch_all(
            f"SELECT {', '.join(COLUMNS)} FROM audit_records{clause} "
            "ORDER BY at DESC, id DESC LIMIT ? OFFSET ?",
            [*params, page_size, (page - 1) * page_size],
        )
        return AuditPage([record_from_row(row) for row in rows], int(total[0]["n"]))

    async def count(self, where: AuditFilter | None = None) -> int:
        """Return how many records match `where` (all of them without it)."""
        clause, params = (where or AuditFilter()).where()
        rows = await self.database.fetch_all(
            f"SELECT COUNT(*) AS n FROM audit_records{clause}", params
        )
        return int(rows[0]["n"])

    async def prune(self, before: str) -> int:
        """Delete the records older than the audit time `before`; return how many."""
        return await self.database.execute("DELETE FROM audit_records WHERE at < ?", [before])
