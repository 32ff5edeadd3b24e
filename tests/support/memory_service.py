"""The app over real HTTP with its memory on SQLite or on PostgreSQL (a fixture for both)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from config import Settings
from tests.support.live_server import ServiceClient, running_service
from tests.support.scripted_model import ScriptedChatModel


@pytest.fixture(params=["sqlite", "postgres"])
async def memory_service(
    request: pytest.FixtureRequest, settings: Settings
) -> AsyncIterator[ServiceClient]:
    """Yield the served app whose memory is on SQLite (the default) or a fresh PostgreSQL."""
    if request.param == "postgres":
        url = request.getfixturevalue("postgres_database")
        settings = settings.model_copy(update={"memory_database_url": url})
    model = ScriptedChatModel()
    async with running_service(settings, model=model) as client:
        client.scripted_model = model  # type: ignore[attr-defined]
        yield client
