"""Settings of the audit trail: whether it is kept, how it is written and how long it lives."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings


class AuditSettings(BaseSettings):
    """The audit trail's settings (react_agent/audit)."""

    audit: bool = Field(
        default=False,
        description="Keep an audit record of every query run or refused (on/off), in the "
        "conversation database; GET /api/v0/audit reads them (admin keys).",
    )
    audit_retention_days: int = Field(
        default=0,
        ge=0,
        description="Days an audit record is kept; older ones are deleted by a pruning pass "
        "every hour. 0 keeps them for ever.",
    )
    audit_flush_seconds: float = Field(
        default=0.2,
        gt=0,
        le=60,
        description="Seconds the audit writer gathers records before writing them in one "
        "batch, and the quotas' token tally its sums (answers never wait for either).",
    )
    audit_batch_size: int = Field(
        default=500,
        ge=1,
        le=2000,
        description="Most audit records written in one statement.",
    )
