"""Opening the checkpointer that keeps conversations: SQLite, PostgreSQL or memory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from react_agent.conversations.postgres_checkpointer import open_postgres_checkpointer
from react_agent.conversations.sqlite_checkpointer import SqliteCheckpointSaver
from react_agent.databases.urls import database_kind, sqlite_path_from_url


@asynccontextmanager
async def open_checkpointer(
    url: str, **postgres_options: object
) -> AsyncIterator[BaseCheckpointSaver]:
    """Open the checkpointer for `url` and close it on exit.

    Args:
        url: `memory`, `sqlite:///file.db` or `postgresql://…`.
        postgres_options: Pool options for PostgreSQL (see postgres_checkpointer).

    """
    kind = database_kind(url)
    if kind == "memory":
        yield InMemorySaver()
    elif kind == "sqlite":
        path = sqlite_path_from_url(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        async with SqliteCheckpointSaver.from_conn_string(str(path)) as saver:
            await saver.setup()
            yield saver
    else:
        async with open_postgres_checkpointer(url, **postgres_options) as saver:
            yield saver
