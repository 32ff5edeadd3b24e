"""Fixtures for the catalogue's tests: the sample catalogue with its semantic file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from react_agent.catalog.service import CatalogService
from react_agent.databases.base import SQLDatabase
from react_agent.databases.open import open_database
from react_agent.sample_data import SAMPLE_DATABASE_URL

SAMPLE_FILE = Path(__file__).resolve().parents[3] / "config" / "semantic.sample.yaml"


@pytest.fixture
async def sample_data() -> AsyncIterator[SQLDatabase]:
    """Yield the embedded sample database."""
    database = await open_database(SAMPLE_DATABASE_URL)
    try:
        yield database
    finally:
        await database.aclose()


@pytest.fixture
async def sample_catalog_service(sample_data: SQLDatabase) -> CatalogService:
    """Return a catalogue of the sample built in this process, with the sample semantic file."""
    service = CatalogService(sample_data, None, semantic_file=SAMPLE_FILE)
    await service.refresh()
    return service
