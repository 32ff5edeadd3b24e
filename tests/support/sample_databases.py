"""The sample data on both dialects: the embedded SQLite file and a fresh PostgreSQL copy."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from react_agent.databases.base import SQLDatabase
from react_agent.databases.open import open_database
from react_agent.sample_data import SAMPLE_DATABASE_URL
from react_agent.sample_data.load_postgres import load_into_postgres


@pytest.fixture(params=["sqlite", "postgres"])
async def sample_database(request: pytest.FixtureRequest) -> AsyncIterator[SQLDatabase]:
    """Yield the sample data opened read-only, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        url = SAMPLE_DATABASE_URL
    else:
        url = request.getfixturevalue("postgres_database")
        load_into_postgres(url)
    database = await open_database(url, connect_timeout=5)
    try:
        yield database
    finally:
        await database.aclose()
