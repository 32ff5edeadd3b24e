"""The verified memory: proposed examples are checked once and not served until reviewed."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from config import Settings
from react_agent.databases.open import open_database
from react_agent.errors import ServiceError
from react_agent.eval.memory_set import memory_golden_set
from react_agent.memory.curation.training import add_feedback_to_examples
from react_agent.memory.curation.verification import reviewed_type
from react_agent.memory.database import (
    MIGRATION_LOCK_KEY,
    VERSION_TABLE,
    Migrations,
    open_memory_database,
)
from react_agent.memory.examples import ERROR_SQL, REJECTED, SQL, VERIFIED
from react_agent.memory.migrations import MIGRATIONS, migrate_memory
from react_agent.memory.store import Memory, open_memory
from react_agent.sample_data import SAMPLE_DATABASE_URL


@pytest.fixture
async def memory(settings: Settings, memory_url: str) -> AsyncIterator[Memory]:
    async with open_memory(settings.model_copy(update={"memory_database_url": memory_url})) as m:
        yield m


async def rate(memory: Memory, question: str, sql: str, up: bool = True) -> int:
    return await memory.feedback.add(question=question, sql=sql, is_thumb_up=up, user_id="wang1")


async def train(memory: Memory, ids: list[int]) -> dict:
    database = await open_database(SAMPLE_DATABASE_URL)
    try:
        return await add_feedback_to_examples(
            memory, ids, dialect="sqlite", allowed_tables=None, database=database
        )
    finally:
        await database.aclose()


async def test_an_example_from_feedback_is_proposed_checked_once_and_not_served(memory: Memory):
    feedback_id = await rate(memory, "门店有多少家", "SELECT COUNT(*) AS n FROM stores")
    summary = await train(memory, [feedback_id])
    assert summary["summary"]["positive_trained"] == 1
    (item,) = await memory.examples.all_items()
    assert item.status == "proposed"
    check = json.loads(item.check_result)
    assert check["rows"] == [{"n": 32}] and check["total_row_count"] == 1
    assert await memory.retriever.search("门店有多少家") == []

    await memory.examples.set_status(item.id, VERIFIED, SQL)
    assert [found.id for found in await memory.retriever.search("门店有多少家")] == [item.id]


async def test_a_failing_proposal_keeps_its_error_for_the_reviewer(memory: Memory):
    feedback_id = await rate(memory, "broken", "SELECT nope FROM stores")
    await train(memory, [feedback_id])
    (item,) = await memory.examples.all_items()
    assert "nope" in json.loads(item.check_result)["error"]
    assert item.as_record()["status"] == "proposed"


async def test_the_same_pair_rated_twice_is_stored_once(memory: Memory):
    first = await rate(memory, "q", "SELECT 1")
    second = await rate(memory, "q", "SELECT 1")
    summary = await train(memory, [first, second])
    assert summary["summary"]["positive_trained"] == 1
    assert summary["summary"]["already_trained"] == 1
    assert len(await memory.examples.all_items()) == 1


async def test_a_rejected_example_is_served_as_a_known_wrong_negative(memory: Memory):
    await train(memory, [await rate(memory, "退款总额", "SELECT SUM(total_amount) FROM orders")])
    (item,) = await memory.examples.all_items()
    await memory.examples.set_status(item.id, REJECTED, reviewed_type(item, REJECTED))
    (served,) = await memory.retriever.search("退款总额")
    assert (served.training_data_type, served.status) == (ERROR_SQL, REJECTED)


async def test_only_an_sql_example_can_be_rejected(memory: Memory):
    note = await memory.examples.add("documentation", None, "GMV excludes refunds")
    with pytest.raises(ServiceError) as raised:
        reviewed_type(note, REJECTED)
    assert raised.value.error_type == "CANNOT_REJECT"
    with pytest.raises(ServiceError):
        reviewed_type(note, "maybe")


async def test_items_stored_before_the_migration_stay_served_as_verified(memory_url: str):
    database = await open_memory_database(memory_url)
    try:
        first_two = {k: v[:2] for k, v in MIGRATIONS.items()}
        await database.migrate(Migrations(first_two, VERSION_TABLE, MIGRATION_LOCK_KEY))
        await database.execute(
            "INSERT INTO memory_items (id, training_data_type, question, content, created_at, "
            "updated_at) VALUES ('old', 'sql', 'q', 'SELECT 1', 't', 't')"
        )
        await migrate_memory(database)
        rows = await database.fetch_all("SELECT status FROM memory_items WHERE id = 'old'")
        assert rows == [{"status": "verified"}]
    finally:
        await database.aclose()


async def test_eval_from_memory_turns_only_verified_examples_into_a_golden_set(
    memory: Memory,
):
    await train(memory, [await rate(memory, "门店有多少家", "SELECT COUNT(*) FROM stores")])
    await train(memory, [await rate(memory, "会员有多少", "SELECT COUNT(*) FROM customers")])
    verified = next(i for i in await memory.examples.all_items() if i.question == "会员有多少")
    await memory.examples.set_status(verified.id, VERIFIED, SQL)
    (question,) = await memory_golden_set(memory)
    assert question.turns == ("会员有多少",)
    assert question.gold_sql == "SELECT COUNT(*) FROM customers"
    assert question.id == f"memory-{verified.id}"
