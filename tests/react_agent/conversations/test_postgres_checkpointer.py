"""The PostgreSQL checkpointer: conversations across services, set-up races, URL forms."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

import psycopg
import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.postgres.base import BasePostgresSaver

from config import Settings
from react_agent.conversations.postgres_checkpointer import open_postgres_checkpointer
from react_agent.conversations.thread_index import list_thread_ids
from react_agent.databases.postgres.pool import postgres_conninfo
from react_agent.errors import ServiceError
from react_agent.runs.store.events import FINISHED, RunRecord
from react_agent.runs.store.postgres.locks import PostgresThreadLocks
from react_agent.service import open_agent_service
from tests.support.held_runs import poll_until
from tests.support.postgres import unreachable_postgres_url
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool


@pytest.fixture
def postgres_settings(settings: Settings, postgres_database: str) -> Settings:
    """Return settings that keep conversations in a fresh PostgreSQL database."""
    return settings.model_copy(update={"checkpoint_database_url": postgres_database})


async def test_a_conversation_continues_in_a_second_service_on_the_same_checkpointer(
    postgres_settings,
):
    first_model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql="SELECT COUNT(*) AS n FROM orders"), answer("4000")]
    )
    async with open_agent_service(postgres_settings, model=first_model) as service:
        assert isinstance(service.runner.locks, PostgresThreadLocks)
        await service.runner.ask("how many orders", "wang1:pg1")

    second_model = ScriptedChatModel(replies=[answer("you asked about orders")])
    async with open_agent_service(postgres_settings, model=second_model) as service:
        second = await service.runner.ask("what did I ask?", "wang1:pg1")

    assert "how many orders" in [message.content for message in second_model.seen[0]]
    assert second.answer == "you asked about orders"
    assert second.conversation_rounds == 2 and second.sql is None


async def test_checkpointers_starting_together_on_a_fresh_database_set_it_up_once(
    postgres_database,
):
    async with AsyncExitStack() as stack:
        savers = await asyncio.gather(
            *(
                stack.enter_async_context(open_postgres_checkpointer(postgres_database))
                for _ in range(4)
            )
        )
        # A ping needs a connection, and the pool hands none out before set-up finished.
        await asyncio.gather(*(saver.ping(10) for saver in savers))
        assert all(saver.setup_state.done for saver in savers)

    with psycopg.connect(postgres_database) as connection:
        versions = [v for (v,) in connection.execute("SELECT v FROM checkpoint_migrations")]
    assert sorted(versions) == list(range(len(BasePostgresSaver.MIGRATIONS)))


@pytest.mark.parametrize(("threshold", "prepares"), [(None, False), (0, True)])
async def test_prepare_threshold_none_never_prepares_and_zero_prepares_everything(
    postgres_settings, threshold, prepares
):
    settings = postgres_settings.model_copy(
        update={"postgres_prepare_threshold": threshold, "postgres_pool_max_size": 2}
    )
    model = ScriptedChatModel(default=answer("ok"))
    async with open_agent_service(settings, model=model) as service:
        for n in range(3):
            await service.runner.ask(f"question {n}", "wang1:prepared")
        saver = service.checkpointer
        async with saver.pool.connection() as connection:
            cursor = await connection.execute("SELECT count(*) AS n FROM pg_prepared_statements")
            prepared = (await cursor.fetchone())["n"]

    assert (prepared > 0) is prepares


@pytest.mark.parametrize("scheme", ["postgresql", "postgres", "postgresql+psycopg"])
async def test_every_postgres_url_form_opens_the_checkpointer(postgres_database, scheme):
    url = scheme + postgres_database.removeprefix("postgresql")

    async with open_postgres_checkpointer(url) as saver:
        await saver.ping(10)

    assert postgres_conninfo(url) == postgres_database


def test_a_key_value_connection_string_is_passed_through():
    assert postgres_conninfo(" host=db dbname=app ") == "host=db dbname=app"


async def test_an_unreachable_checkpointer_opens_at_once_and_its_ping_says_why():
    # A pool that waited for its server would wait out the connect timeout, far beyond the
    # hang guard; one that does not wait opens however slow the machine is.
    url = unreachable_postgres_url()
    async with asyncio.timeout(30), open_postgres_checkpointer(url, connect_timeout=300) as saver:
        with pytest.raises(ServiceError) as pinged:
            await saver.ping(2)

    assert pinged.value.status == 503 and pinged.value.error_type == "CHECKPOINTER_UNAVAILABLE"
    assert "refused" in pinged.value.detail.lower()


async def test_a_users_conversations_are_listed_from_postgres_newest_first(postgres_settings):
    model = ScriptedChatModel(default=answer("ok"))
    async with open_agent_service(postgres_settings, model=model) as service:
        for thread_id in ("wang1:old", "li4:other", "wang1:new"):
            await service.runner.ask("hello", thread_id)

        listed = await list_thread_ids(service.checkpointer, "wang1", 10)

    assert listed == ["wang1:new", "wang1:old"]


async def test_a_checkpoint_write_goes_on_while_a_read_waits_at_the_server(postgres_database):
    config = {"configurable": {"thread_id": "wang1:side-by-side", "checkpoint_ns": ""}}
    async with open_postgres_checkpointer(postgres_database) as saver:
        written = await saver.aput(config, empty_checkpoint(), {}, {})
        with psycopg.connect(postgres_database, autocommit=True) as blocker:
            with blocker.transaction():
                # Reads of `checkpoints` wait for this lock; pending writes go to their own table.
                blocker.execute("LOCK TABLE checkpoints IN ACCESS EXCLUSIVE MODE")
                read = asyncio.create_task(saver.aget_tuple(config))
                assert await poll_until(lambda: _sessions_waiting_for_a_lock(blocker), 1)

                # With one lock around every statement of the process, this would wait too.
                await asyncio.wait_for(
                    saver.aput_writes(written, [("messages", "pending")], "task-1"), 60
                )
                assert not read.done()
        assert (await read).checkpoint["id"] == written["configurable"]["checkpoint_id"]
        assert (await saver.aget_tuple(written)).pending_writes == [
            ("task-1", "messages", "pending")
        ]


async def _sessions_waiting_for_a_lock(connection: psycopg.Connection) -> int:
    row = connection.execute(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE wait_event_type = 'Lock' AND datname = current_database()"
    ).fetchone()
    return int(row[0])


async def test_the_run_store_answers_while_every_checkpointer_connection_is_busy(
    postgres_settings,
):
    settings = postgres_settings.model_copy(update={"postgres_pool_max_size": 2})
    model = ScriptedChatModel(default=answer("ok"))
    async with open_agent_service(settings, model=model) as service:
        pool = service.checkpointer.pool
        async with pool.connection(), pool.connection():
            assert pool.get_stats()["pool_available"] == 0
            record = RunRecord("run-own-pool", "wang1:own-pool", "wang1", "zh-CN", "owner")
            await asyncio.wait_for(service.run_store.events.open_run(record, lambda: None), 60)
            await service.run_store.events.append("run-own-pool", 1, {"type": "started"})
            await service.run_store.events.finish("run-own-pool")

        assert (await service.run_store.events.record("run-own-pool")).status == FINISHED
