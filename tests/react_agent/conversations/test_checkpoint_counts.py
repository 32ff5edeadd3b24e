"""Counting a user's threads and a thread's checkpoints, on every checkpointer."""

from __future__ import annotations

import pytest

from config import Settings
from react_agent.conversations.checkpoint_counts import (
    count_thread_checkpoints,
    count_user_threads,
)
from react_agent.service import open_agent_service
from tests.support.scripted_model import ScriptedChatModel, answer


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def checkpointer_settings(request, settings: Settings) -> Settings:
    """Return settings whose conversations go to each kind of checkpointer in turn."""
    if request.param == "sqlite":
        return settings
    if request.param == "memory":
        return settings.model_copy(update={"checkpoint_database_url": "memory"})
    url = request.getfixturevalue("postgres_database")
    return settings.model_copy(update={"checkpoint_database_url": url})


async def test_a_users_threads_are_counted_without_other_users_sharing_the_prefix(
    checkpointer_settings,
):
    model = ScriptedChatModel(default=answer("ok"))
    async with open_agent_service(checkpointer_settings, model=model) as service:
        for n in range(3):
            await service.runner.ask(f"q{n}", f"wang1:{n}")
        await service.runner.ask("again", "wang1:0")
        await service.runner.ask("other", "wang10:1")
        checkpointer = service.runner.graph.checkpointer

        assert await count_user_threads(checkpointer, "wang1") == 3
        assert await count_user_threads(checkpointer, "wang10") == 1
        assert await count_user_threads(checkpointer, "nobody") == 0


async def test_a_threads_checkpoints_are_counted_as_its_saved_history(checkpointer_settings):
    model = ScriptedChatModel(default=answer("ok"))
    async with open_agent_service(checkpointer_settings, model=model) as service:
        await service.runner.ask("first", "li:1")
        await service.runner.ask("second", "li:1")
        await service.runner.ask("elsewhere", "li:2")
        runner = service.runner
        history = [s async for s in runner.graph.aget_state_history(runner.config_for("li:1"))]

        counted = await count_thread_checkpoints(runner.graph.checkpointer, "li:1")
        assert counted == len(history) > 2
        assert await count_thread_checkpoints(runner.graph.checkpointer, "li:404") == 0
