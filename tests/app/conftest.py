"""Fixtures for the web layer: the app served by Hypercorn with a scripted model."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from config import Settings
from tests.support.live_server import ServiceClient, running_service
from tests.support.scripted_model import ScriptedChatModel


@pytest.fixture
def model() -> ScriptedChatModel:
    """Return an empty scripted model; each test writes its script."""
    return ScriptedChatModel()


@pytest.fixture
async def service(settings: Settings, model: ScriptedChatModel) -> AsyncIterator[ServiceClient]:
    """Yield the app served over real HTTP with the scripted model."""
    async with running_service(
        settings.model_copy(update={"stream_resume_grace": 0.0}), model=model
    ) as client:
        yield client
