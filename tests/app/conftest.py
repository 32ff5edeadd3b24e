"""Fixtures for the web layer: the app served by Hypercorn with a scripted model."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from config import Settings
from tests.support.live_server import ServiceClient, running_service
from tests.support.memory_service import memory_service  # noqa: F401
from tests.support.openai_stub import OpenAIStub
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


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    """Start an OpenAI-compatible server on 127.0.0.1 for one test."""
    with OpenAIStub() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgres"])
def checkpoint_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Return a checkpoint database that outlives one service process (SQLite, PostgreSQL)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'conversations.db'}"
    return request.getfixturevalue("postgres_database")


@pytest.fixture
def stub_settings(settings: Settings, stub: OpenAIStub) -> Settings:
    """Return settings whose LLM is the stub server (the real ChatOpenAI, no retries)."""
    return settings.model_copy(
        update={
            "openai_base_url": stub.base_url,
            "openai_api_key": SecretStr("test-key"),
            "llm_model": "stub-model",
            "llm_max_retries": 0,
            "llm_timeout": 5.0,
        }
    )
