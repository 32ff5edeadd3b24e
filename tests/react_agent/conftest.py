"""Fixtures for the agent's tests: the agent service on the sample data with a scripted model."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager

import pytest

from config import Settings
from react_agent.service import AgentService, open_agent_service
from tests.support.scripted_model import ScriptedChatModel

OpenService = Callable[..., AbstractAsyncContextManager[AgentService]]


@pytest.fixture
def open_service(settings: Settings) -> OpenService:
    """Return a function opening the agent service with a scripted model and setting overrides."""

    def opener(
        model: ScriptedChatModel, **overrides: object
    ) -> AbstractAsyncContextManager[AgentService]:
        return open_agent_service(settings.model_copy(update=overrides), model=model)

    return opener


@pytest.fixture
async def sample_service(
    settings: Settings,
) -> AsyncIterator[tuple[AgentService, ScriptedChatModel]]:
    """Yield the agent service on the sample data with an empty script to fill in."""
    model = ScriptedChatModel()
    async with open_agent_service(settings, model=model) as service:
        yield service, model
