"""The audit's and the quotas' tables in the conversation database: SQLite or PostgreSQL.

The service's own tables (react_agent/storage/service_tables.py): statements written
with `?` placeholders, rows as dicts, the schema applied as migrations under a lock.
"""

from __future__ import annotations

from react_agent.storage.service_tables import ServiceTables, open_service_tables

LedgerDatabase = ServiceTables
"""Where audit records and quota counters are kept."""


async def open_ledger_database(
    url: str, *, connect_timeout: float = 5.0, max_size: int = 4
) -> LedgerDatabase:
    """Open the database at `url` (`sqlite:///file.db`, `memory` or `postgresql://…`)."""
    return await open_service_tables(
        url, name="ledger", connect_timeout=connect_timeout, max_size=max_size
    )
