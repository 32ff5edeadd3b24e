"""The SQLite checkpointer writes what LangGraph's AsyncSqliteSaver writes, one trip a write."""

from __future__ import annotations

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
