"""Checkpoints and writes in one statement each: the same rows as AsyncPostgresSaver's."""

from __future__ import annotations

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
