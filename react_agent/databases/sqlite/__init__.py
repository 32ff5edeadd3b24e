"""SQLite: one file, opened read-only per statement (engine), read by PRAGMAs (catalog)."""

from __future__ import annotations

from typing import Any


async def open_url(url: str, *, file_options: dict[str, Any], pool_options: dict[str, Any]) -> Any:
    """Open the `sqlite:///file.db` that `url` names (the registry's opener)."""
    from react_agent.databases.sqlite.engine import SQLiteDatabase
    from react_agent.databases.urls import sqlite_path_from_url

    return SQLiteDatabase(sqlite_path_from_url(url))
