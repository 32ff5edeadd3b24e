"""Checkpoints and writes in one statement each: the same rows as AsyncPostgresSaver's."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.base import WRITES_IDX_MAP, create_checkpoint, empty_checkpoint
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from react_agent.conversations.postgres_checkpointer import open_postgres_checkpointer

INTERRUPT = "__interrupt__"
"""A special channel: its writes are upserted (the last one of a task wins)."""


def _config(thread_id: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    configurable = {"thread_id": thread_id, "checkpoint_ns": ""}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def _checkpoint(step: int, versions: dict[str, int]) -> Any:
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {
        "messages": [HumanMessage("how many orders", id="h1"), AIMessage("4000", id="a1")],
        "answer": "4000",
        "rounds": step,
        "empty": None,
    }
    checkpoint["channel_versions"] = dict(versions)
    return create_checkpoint(checkpoint, None, step)


CHECKPOINTS = (
    _checkpoint(0, {"messages": 1, "answer": 1, "rounds": 1, "empty": 1}),
    _checkpoint(1, {"messages": 2, "answer": 1, "rounds": 2, "empty": 1}),
)


async def _store_a_question(saver: Any, thread_id: str) -> dict[str, Any]:
    """Two checkpoints, ordinary writes, and an interrupt written twice (the last one wins)."""
    first = await saver.aput(
        _config(thread_id),
        CHECKPOINTS[0],
        {"source": "input", "step": 0},
        {"messages": 1, "answer": 1, "rounds": 1, "empty": 1},
    )
    second = await saver.aput(
        first, CHECKPOINTS[1], {"source": "loop", "step": 1}, {"messages": 2, "rounds": 2}
    )
    await saver.aput_writes(
        second, [("messages", [AIMessage("SELECT 1")]), ("branch:agent", None)], "task-1", "~1"
    )
    await saver.aput_writes(second, [(INTERRUPT, {"question": "first"})], "task-2")
    await saver.aput_writes(second, [(INTERRUPT, {"question": "second"})], "task-2")
    return second


def _rows(url: str, table: str, columns: str, thread_id: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as connection:
        return connection.execute(
            f"SELECT {columns} FROM {table} WHERE thread_id = %s ORDER BY {columns}", (thread_id,)
        ).fetchall()


async def test_a_question_stores_the_same_rows_and_reads_back_the_same(postgres_database):
    async with open_postgres_checkpointer(postgres_database) as saver:
        stock = AsyncPostgresSaver(saver.pool)
        ours_config = await _store_a_question(saver, "wang1:ours")
        stock_config = await _store_a_question(stock, "wang1:stock")
        ours = await stock.aget_tuple(_config("wang1:ours"))
        theirs = await stock.aget_tuple(_config("wang1:stock"))
        read_by_ours = await saver.aget_tuple(_config("wang1:stock"))

    assert INTERRUPT in WRITES_IDX_MAP
    assert ours is not None and theirs is not None and read_by_ours is not None
    assert ours.checkpoint == theirs.checkpoint == read_by_ours.checkpoint
    assert ours.metadata == theirs.metadata
    assert ours.pending_writes == theirs.pending_writes == read_by_ours.pending_writes
    assert ("task-2", INTERRUPT, {"question": "second"}) in ours.pending_writes
    assert ours.checkpoint["channel_values"]["messages"][1].content == "4000"
    assert ours.parent_config is not None and theirs.parent_config is not None
    assert ours_config["configurable"]["checkpoint_id"] == ours.checkpoint["id"]
    assert stock_config["configurable"]["checkpoint_id"] == theirs.checkpoint["id"]
    for table, columns in (
        ("checkpoint_blobs", "channel, version, type, blob"),
        ("checkpoint_writes", "task_id, task_path, idx, channel, type, blob"),
    ):
        assert _rows(postgres_database, table, columns, "wang1:ours") == _rows(
            postgres_database, table, columns, "wang1:stock"
        )


async def test_checkpoints_of_many_questions_at_once_go_in_few_statements(postgres_database):
    threads = [f"wang1:many{n}" for n in range(60)]
    async with open_postgres_checkpointer(postgres_database) as saver:
        before = saver.writes.statements
        stored = await asyncio.gather(
            *(
                saver.aput(
                    _config(thread_id),
                    CHECKPOINTS[0],
                    {"source": "input", "step": 0},
                    {"messages": 1, "answer": 1, "rounds": 1, "empty": 1},
                )
                for thread_id in threads
            )
        )
        statements = saver.writes.statements - before
        read = await asyncio.gather(*(saver.aget_tuple(config) for config in stored))

    assert statements <= len(threads) // 4
    assert [t.config["configurable"]["thread_id"] for t in read] == threads
    assert all(t.checkpoint["channel_values"]["messages"][1].content == "4000" for t in read)


async def test_writes_of_one_task_sent_together_are_stored_in_order(postgres_database):
    async with open_postgres_checkpointer(postgres_database) as saver:
        config = await saver.aput(_config("wang1:order"), CHECKPOINTS[0], {}, {"messages": 1})
        # Other questions' writes fill the statements in flight, so the three queue together.
        await asyncio.gather(
            *(
                saver.aput(_config(f"wang1:busy{n}"), CHECKPOINTS[0], {}, {"messages": 1})
                for n in range(8)
            ),
            *(
                saver.aput_writes(config, [(INTERRUPT, {"question": n})], "task-1")
                for n in range(3)
            ),
        )
        pending = (await saver.aget_tuple(config)).pending_writes

    assert pending == [("task-1", INTERRUPT, {"question": 2})]
