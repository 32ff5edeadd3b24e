"""Listing a user's threads from the SQLite and in-memory checkpointers."""

from __future__ import annotations

import pytest

from react_agent.conversations.thread_index import list_thread_ids
from tests.support.scripted_model import ScriptedChatModel, answer


@pytest.fixture(params=["sqlite", "memory"])
def checkpoint_overrides(request: pytest.FixtureRequest, settings) -> dict[str, str]:
    """Give the setting overrides that keep conversations in each local checkpointer kind."""
    if request.param == "memory":
        return {"checkpoint_database_url": "memory"}
    return {"checkpoint_database_url": settings.checkpoint_database_url}


async def test_only_the_users_threads_are_listed_newest_first_up_to_the_limit(
    open_service, checkpoint_overrides
):
    model = ScriptedChatModel(default=answer("ok"))
    async with open_service(model, **checkpoint_overrides) as service:
        # wang10 and wang share wang1's prefix; only the `wang1:` key range is wang1's.
        for thread_id in ("wang1:old", "wang10:x", "wang:y", "wang1:mid", "li4:z", "wang1:new"):
            await service.runner.ask("hello", thread_id)
        await service.runner.ask("again", "wang1:old")  # now the most recently updated

        listed = await list_thread_ids(service.checkpointer, "wang1", 10)
        first_two = await list_thread_ids(service.checkpointer, "wang1", 2)
        nobody = await list_thread_ids(service.checkpointer, "nobody", 10)

    assert listed == ["wang1:old", "wang1:new", "wang1:mid"]
    assert first_two == ["wang1:old", "wang1:new"]
    assert nobody == []
