"""The SQLite checkpointer writes what LangGraph's AsyncSqliteSaver writes, one trip a write."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from react_agent.conversations.checkpointer import open_checkpointer
from react_agent.conversations.sqlite_checkpointer import SqliteCheckpointSaver

CONFIG = {"configurable": {"thread_id": "wang:1", "checkpoint_ns": ""}}


async def _write_the_same(saver: AsyncSqliteSaver) -> None:
    """Write a checkpoint, then a child with writes (plain channels and an error)."""
    first = empty_checkpoint()
    first["channel_values"] = {"messages": ["你好"], "sql": None}
    saved = await saver.aput(CONFIG, first, {"source": "input", "step": -1}, {})
    second = empty_checkpoint()
    second["channel_values"] = {"messages": ["你好", "hi"], "records": {"rows": [[1, "华东"]]}}
    child = await saver.aput(saved, second, {"source": "loop", "step": 0}, {})
    await saver.aput_writes(child, [("messages", ["more"]), ("sql", "SELECT 1")], "task-1", "p")
    await saver.aput_writes(child, [("__error__", "boom")], "task-2")


def _rows(path: Path) -> dict[str, list[tuple]]:
    with sqlite3.connect(path) as db:
        # The ids come from the clock; the rest must match column for column.
        return {
            "checkpoints": db.execute(
                "SELECT thread_id, checkpoint_ns, parent_checkpoint_id IS NULL, type, metadata "
                "FROM checkpoints ORDER BY rowid"
            ).fetchall(),
            "writes": db.execute(
                "SELECT thread_id, checkpoint_ns, task_id, task_path, idx, channel, type, value "
                "FROM writes ORDER BY rowid"
            ).fetchall(),
        }


async def test_it_writes_the_rows_langgraphs_saver_writes(tmp_path: Path):
    async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "theirs.db")) as theirs:
        await _write_the_same(theirs)
    async with SqliteCheckpointSaver.from_conn_string(str(tmp_path / "ours.db")) as ours:
        await _write_the_same(ours)
    expected = _rows(tmp_path / "theirs.db")
    assert len(expected["checkpoints"]) == 2 and len(expected["writes"]) == 3
    assert _rows(tmp_path / "ours.db") == expected


async def test_what_it_wrote_reads_back_committed_from_another_connection(tmp_path: Path):
    path = tmp_path / "checkpoints.db"
    async with SqliteCheckpointSaver.from_conn_string(str(path)) as saver:
        await _write_the_same(saver)
        latest = await saver.aget_tuple(CONFIG)
        assert latest is not None
        assert latest.checkpoint["channel_values"]["records"] == {"rows": [[1, "华东"]]}
        assert latest.metadata["step"] == 0
        assert sorted(channel for _, channel, _ in latest.pending_writes) == [
            "__error__",
            "messages",
            "sql",
        ]
        # Committed at once: another connection sees every row while the saver is open.
        assert len(_rows(path)["writes"]) == 3


async def test_open_checkpointer_gives_it_for_sqlite_in_wal_with_synchronous_normal(
    tmp_path: Path,
):
    async with open_checkpointer(f"sqlite:///{tmp_path / 'c.db'}") as saver:
        assert isinstance(saver, SqliteCheckpointSaver)
        await saver.aput(CONFIG, empty_checkpoint(), {"source": "input", "step": -1}, {})
        async with saver.conn.execute("PRAGMA journal_mode") as cursor:
            assert (await cursor.fetchone())[0] == "wal"
        async with saver.conn.execute("PRAGMA synchronous") as cursor:
            assert (await cursor.fetchone())[0] == 1  # NORMAL


async def test_writes_that_come_together_are_committed_in_fewer_trips(tmp_path: Path):
    path = tmp_path / "checkpoints.db"
    threads = [f"wang:{n}" for n in range(40)]
    async with SqliteCheckpointSaver.from_conn_string(str(path)) as saver:
        await saver.setup()

        async def one_thread(thread_id: str) -> None:
            config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
            await _write_the_same_to(saver, config)

        await asyncio.gather(*(one_thread(t) for t in threads))
        # 4 writes per thread, each awaited in turn: 160 writes, fewer trips.
        assert saver.trips < 160
        for thread_id in threads:
            latest = await saver.aget_tuple({"configurable": {"thread_id": thread_id}})
            assert latest is not None and latest.metadata["step"] == 0
            assert len(latest.pending_writes) == 3
    rows = _rows(path)
    assert len(rows["checkpoints"]) == 80 and len(rows["writes"]) == 120


async def test_a_write_that_fails_in_a_group_fails_alone(tmp_path: Path):
    async with SqliteCheckpointSaver.from_conn_string(str(tmp_path / "c.db")) as saver:
        await saver.setup()
        good = [
            saver.aput(
                {"configurable": {"thread_id": f"t{n}", "checkpoint_ns": ""}},
                empty_checkpoint(),
                {"source": "input", "step": -1},
                {},
            )
            for n in range(5)
        ]
        bad = saver._write("INSERT INTO no_such_table VALUES (?)", [(1,)])
        results = await asyncio.gather(*good[:2], bad, *good[2:], return_exceptions=True)
        assert isinstance(results[2], sqlite3.OperationalError)
        assert all(isinstance(r, dict) for r in results[:2] + results[3:])
    with sqlite3.connect(tmp_path / "c.db") as db:
        assert db.execute("SELECT count(*) FROM checkpoints").fetchone() == (5,)


async def _write_the_same_to(saver: AsyncSqliteSaver, config: dict) -> None:
    first = empty_checkpoint()
    first["channel_values"] = {"messages": ["你好"]}
    saved = await saver.aput(config, first, {"source": "input", "step": -1}, {})
    child = await saver.aput(saved, empty_checkpoint(), {"source": "loop", "step": 0}, {})
    await saver.aput_writes(child, [("messages", ["more"]), ("sql", "SELECT 1")], "task-1")
    await saver.aput_writes(child, [("__error__", "boom")], "task-2")
