"""Fixtures of the answer candidates' tests: ChatOpenAI on the stub, three candidates."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from pydantic import SecretStr

from config import Settings
from react_agent.service.assembly import open_agent_service
from react_agent.service.state import AgentService
from tests.support.openai_stub import OpenAIStub


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


@pytest.fixture
def candidate_settings(settings: Settings, stub: OpenAIStub) -> Settings:
    """Return settings whose model is ChatOpenAI on the stub, with three candidates."""
    return settings.model_copy(
        update={
            "openai_base_url": stub.base_url,
            "openai_api_key": SecretStr("test-key"),
            "llm_model": "stub-model",
            "llm_max_retries": 0,
            "llm_timeout": 10.0,
            "answer_candidates": "3",
        }
    )


@pytest.fixture
async def service(candidate_settings: Settings) -> AsyncIterator[AgentService]:
    async with open_agent_service(candidate_settings) as opened:
        yield opened
