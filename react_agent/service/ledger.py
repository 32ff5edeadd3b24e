"""The audit trail and the quota counters, opened on the conversation database when asked for."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from config import Settings
from react_agent.audit.database import LedgerDatabase, open_ledger_database
from react_agent.audit.listener import LedgerListener
from react_agent.audit.schema import SchemaOnce
from react_agent.audit.store import AuditStore
from react_agent.audit.writer import AuditWriter
from react_agent.quotas.counters import QuotaCounters
from react_agent.quotas.gate import QuotaLimits, Quotas
from react_agent.quotas.tally import TokenTally

logger = logging.getLogger(__name__)


@dataclass
class Ledger:
    """The audit's store and writer (None when AUDIT is off) and the quotas (None when off)."""

    database: LedgerDatabase
    schema: SchemaOnce
    audit: AuditStore
    writer: AuditWriter | None
    quotas: Quotas | None
    tally: TokenTally | None
    """Model tokens per user, added to the quota counters in the background."""
    listener: LedgerListener
    """The run listener that feeds the audit writer and the token tally."""


def ledger_wanted(settings: Settings, *, audit: bool = False, quotas: bool = False) -> bool:
    """Whether the audit or a quota is on (by setting, or by the policy: `audit`, `quotas`)."""
    return bool(
        settings.audit
        or audit
        or quotas
        or settings.quota_questions_per_minute
        or settings.quota_tokens_per_day
    )


@asynccontextmanager
async def open_ledger(
    settings: Settings, *, audit: bool = False, quotas: bool = False
) -> AsyncIterator[Ledger | None]:
    """Open the ledger on the conversation database (None when neither part is on).

    On exit the writer writes every record still queued, then the connections close.

    Args:
        settings: The service's settings (AUDIT*, QUOTA_*, CHECKPOINT_DATABASE_URL).
        audit: The policy has a role that reads the audit (the trail is kept then).
        quotas: The policy sets quotas for a role (counters are kept then).

    """
    if not ledger_wanted(settings, audit=audit, quotas=quotas):
        yield None
        return
    database = await open_ledger_database(
        settings.resolved_checkpoint_database_url,
        connect_timeout=settings.postgres_connect_timeout,
    )
    schema = SchemaOnce(database)
    try:
        await schema.ready()
    except Exception as exc:  # PostgreSQL away at start-up: tried again on first use
        logger.warning("audit/quota tables not created yet: %s", exc)
    writer = None
    if settings.audit or audit:
        writer = AuditWriter(
            AuditStore(database),
            flush_seconds=settings.audit_flush_seconds,
            batch_size=settings.audit_batch_size,
            retention_days=settings.audit_retention_days,
            schema=schema,
        )
        writer.start()
    counting = quotas or settings.quota_questions_per_minute or settings.quota_tokens_per_day
    limits = QuotaLimits(settings.quota_questions_per_minute, settings.quota_tokens_per_day)
    quota_gate = (
        Quotas(
            QuotaCounters(database),
            limits,
            schema,
            token_reserve=settings.quota_tokens_reserve,
        )
        if counting
        else None
    )
    tally = TokenTally(quota_gate, settings.audit_flush_seconds) if quota_gate else None
    if tally is not None:
        tally.start()
    try:
        ledger = Ledger(
            database,
            schema,
            AuditStore(database),
            writer,
            quota_gate,
            tally,
            LedgerListener(writer, tally),
        )
        yield ledger
    finally:
        try:
            for part in (writer, tally):
                if part is not None:
                    await part.aclose()
        finally:
            await database.aclose()
