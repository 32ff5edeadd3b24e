"""A ledger database per test, on SQLite and on a throwaway PostgreSQL database."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from react_agent.audit.database import LedgerDatabase, open_ledger_database
from react_agent.audit.schema import create_ledger_schema


@pytest.fixture(params=["sqlite", "postgres"])
async def ledger_database(request, tmp_path) -> AsyncIterator[LedgerDatabase]:
    """Return a migrated ledger database of each kind."""
    if request.param == "postgres":
        url = request.getfixturevalue("postgres_database")
    else:
        url = f"sqlite:///{tmp_path / 'checkpoints.db'}"
    database = await open_ledger_database(url)
    await create_ledger_schema(database)
    try:
        yield database
    finally:
        await database.aclose()
