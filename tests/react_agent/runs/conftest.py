"""Fixtures of the run tests: the run event store of two processes on one PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from react_agent.runs.store.postgres.events import PostgresRunEvents
from tests.support.run_stores import open_two_stores


@pytest.fixture
async def two_stores(postgres_database: str) -> AsyncIterator[tuple[PostgresRunEvents, ...]]:
    """Yield stores on two separate pools of one database: two service processes."""
    async with open_two_stores(postgres_database, ttl=60) as stores:
        yield stores
