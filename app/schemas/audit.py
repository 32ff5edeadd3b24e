"""The audit and usage endpoints' queries and answers, for validation and the OpenAPI document."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.schemas.base import OpenModel
from app.schemas.memory import Pagination
from react_agent.audit.records import audit_time
from react_agent.audit.store import AuditFilter
from react_agent.errors import bad_request

MAX_PAGE_SIZE = 100


class AuditQuery(BaseModel):
    """Filters and paging of the audit trail (every filter optional)."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")

    user: str | None = Field(default=None, max_length=50, description="Only this user's.")
    since: str | None = Field(
        default=None, alias="from", description="ISO 8601 time: records at or after it."
    )
    until: str | None = Field(default=None, alias="to", description="ISO 8601 time: before it.")
    outcome: Literal["ok", "refused", "error", "timeout", "rejected"] | None = Field(
        default=None, description="ok, refused, error, timeout or rejected (by a person)."
    )
    table: str | None = Field(
        default=None, max_length=200, description="Only queries that read this table."
    )
    page: int = Field(default=1, ge=1, le=1_000_000, description="Page number, from 1.")
    page_size: int = Field(default=20, ge=1, le=MAX_PAGE_SIZE, description="Records per page.")
    format: Literal["json", "csv"] = Field(
        default="json", description="json (the envelope) or csv (the same page as a file)."
    )
    lang: str | None = Field(default=None, description="zh-CN (default) or en-US.")

    def audit_filter(self) -> AuditFilter:
        """Return the store's filter, or raise 400 for a time that is not ISO 8601."""
        return AuditFilter(
            user_id=self.user,
            since=_audit_time("from", self.since),
            until=_audit_time("to", self.until),
            outcome=self.outcome,
            table=self.table.strip().lower() if self.table else None,
        )


def _audit_time(name: str, text: str | None) -> str | None:
    if text is None:
        return None
    try:
        # "Z" is accepted by fromisoformat from 3.11 on; a time without zone is UTC.
        return audit_time(datetime.fromisoformat(text.strip()))
    except ValueError:
        detail = f"{name} must be an ISO 8601 time such as 2026-01-31T10:00:00Z, not {text!r}"
        raise bad_request("INVALID_REQUEST", detail, reason=detail) from None


class AuditRecordModel(OpenModel):
    """One query run or refused (roles and tables as lists)."""

    record_id: str
    at: str = Field(description="When the query ended (UTC).")
    key_id: str | None = Field(description="The API key's id, never the key.")
    user_id: str
    roles: list[str]
    thread_id: str | None
    run_id: str | None
    question: str | None
    model_sql: str | None = Field(description="The SQL as the model wrote it.")
    run_sql: str | None = Field(description="The SQL that ran (rewritten); null if none ran.")
    tables: list[str]
    row_count: int | None
    duration_ms: int | None
    outcome: str
    reason: str | None = Field(description="Why it was refused, failed or rejected.")
    subagent: str | None
    kind: Literal["run", "check", "export"] = Field(
        description="run (run_sql), check (check_sql: planned, not run) or export (a CSV)."
    )


class AuditPageData(OpenModel):
    """One page of audit records, newest first."""

    records: list[AuditRecordModel]
    pagination: Pagination
    columns: list[str] = Field(description="The fields of a record, in the CSV's order.")
    audit_enabled: bool = Field(description="Whether new queries are recorded (AUDIT).")


class AuditEnvelope(OpenModel):
    """A page of the audit trail."""

    openapi_csv_alternative: ClassVar[str] = (
        "With format=csv: the same page as CSV (UTF-8 with a BOM, a header line of the "
        "record's fields, lists joined with `;`)."
    )

    code: Literal[200]
    success: Literal[True]
    message: str
    data: AuditPageData


class UsageQuery(BaseModel):
    """Whose use to show: the caller's (a key bound to one user needs no user_id)."""

    user_id: str | None = Field(default=None, max_length=50, description="The user.")
    lang: str | None = Field(default=None, description="zh-CN (default) or en-US.")


class UsageData(OpenModel):
    """A user's questions this minute and tokens today, their limits and when each resets."""

    user_id: str
    quotas_enabled: bool = Field(description="Whether quotas are counted at all.")
    questions_this_minute: int
    tokens_today: int
    limits: dict[str, int | None] = Field(description="null: no limit.")
    resets: dict[str, str] = Field(description="When each window ends (UTC, ISO 8601).")


class UsageEnvelope(OpenModel):
    """The caller's use and limits."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: UsageData
