"""One audit record: who ran (or was refused) which query, when, and what came of it."""

from __future__ import annotations

import json
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from react_agent.access.actor import Actor
from react_agent.results.exports import UTF8_BOM, csv_lines

OUTCOMES = ("ok", "refused", "error", "timeout", "rejected")
"""What came of a query: ran, refused by a rule, failed, timed out, rejected by a person."""

COLUMNS = (
    "record_id",
    "at",
    "key_id",
    "user_id",
    "roles",
    "thread_id",
    "run_id",
    "question",
    "model_sql",
    "run_sql",
    "tables",
    "row_count",
    "duration_ms",
    "outcome",
    "reason",
    "subagent",
    "kind",
)
"""The stored fields of a record, in the order of the audit table's columns and of CSV."""


@dataclass(frozen=True)
class AuditRecord:
    """One query run or refused, with the actor and the run it belongs to."""

    at: str
    """When the query finished (UTC, ISO 8601 with microseconds: sorts as text)."""
    user_id: str
    outcome: str
    key_id: str | None = None
    """The API key's id (never its secret); None when the service runs without keys."""
    roles: tuple[str, ...] = ()
    thread_id: str | None = None
    run_id: str | None = None
    question: str | None = None
    model_sql: str | None = None
    """The SQL as the model wrote it."""
    run_sql: str | None = None
    """The SQL that ran (after any rewrite); None when it did not run."""
    tables: tuple[str, ...] = ()
    row_count: int | None = None
    duration_ms: int | None = None
    reason: str | None = None
    """Why it was refused, failed or rejected."""
    subagent: str | None = None
    """The sub-agent's id when one ran the query."""
    kind: str = "run"
    """What the statement was for: run (run_sql), check (check_sql's plan), export (CSV)."""
    record_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    """Makes writing a record twice (a retried batch) store it once."""

    def row(self) -> tuple[Any, ...]:
        """Return the values of COLUMNS (roles and tables as JSON lists)."""
        values = asdict(self)
        values["roles"] = json.dumps(list(self.roles))
        values["tables"] = json.dumps(list(self.tables))
        return tuple(values[name] for name in COLUMNS)


def record_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """Return a stored row as the audit route shows it (lists decoded, no internal id)."""
    shown = {name: row.get(name) for name in COLUMNS}
    shown["roles"] = json.loads(row.get("roles") or "[]")
    shown["tables"] = json.loads(row.get("tables") or "[]")
    return shown


def audit_time(moment: datetime | None = None) -> str:
    """Return `moment` (default now) in UTC as the audit stores times."""
    moment = moment or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # a time without zone is read as UTC
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def actor_fields(actor: Actor) -> dict[str, Any]:
    """Return the record fields that come from the actor."""
    return {"user_id": actor.user_id, "key_id": actor.key_id, "roles": tuple(actor.roles)}


def audit_csv(records: list[dict[str, Any]]) -> str:
    """Return shown records as CSV (UTF-8 BOM, a header line; lists joined with `;`)."""
    rows = [
        [";".join(value) if isinstance(value, list) else value for value in record.values()]
        for record in records
    ]
    return UTF8_BOM + csv_lines([list(COLUMNS), *rows])
