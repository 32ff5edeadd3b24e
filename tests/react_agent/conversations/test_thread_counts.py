"""Counting a user's threads and a thread's checkpoints, on every checkpointer."""

from __future__ import annotations

import psycopg
import pytest

from config import Settings
from react_agent.conversations.thread_index import (
    count_thread_checkpoints,
    count_user_threads,
    list_thread_ids,
)
from react_agent.service import open_agent_service
from tests.support.postgres import create_test_database, drop_test_database
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


async def test_listing_finds_a_users_threads_in_a_database_that_sorts_by_locale(
    postgres_url, settings: Settings
):
    # In an ICU "en-US" database 'u1:abc' < 'u1;' is false (punctuation is ignored), so a
    # key range in the database's own collation would find no thread at all.
    try:
        url = create_test_database(postgres_url, icu_locale="en-US")
    except psycopg.Error as exc:
        pytest.skip(f"this PostgreSQL cannot create an ICU en-US database: {exc}")
    try:
        local = settings.model_copy(update={"checkpoint_database_url": url})
        model = ScriptedChatModel(default=answer("ok"))
        async with open_agent_service(local, model=model) as service:
            for n in range(3):
                await service.runner.ask(f"q{n}", f"u1:2026010100000{n}")
            await service.runner.ask("other", "u10:20260101000000")
            checkpointer = service.runner.graph.checkpointer

            listed = await list_thread_ids(checkpointer, "u1", 10)
            assert listed == [f"u1:2026010100000{n}" for n in (2, 1, 0)]
            assert await count_user_threads(checkpointer, "u1") == 3
            assert await count_user_threads(checkpointer, "u10") == 1
    finally:
        drop_test_database(url)
