"""The data database's tables and columns, read once, for the rewrite and the policy's checks."""

from __future__ import annotations

import asyncio

from react_agent.databases.base import SQLDatabase


class TableColumns:
    """Lower-case table name → its columns as the database spells them, read on first use."""

    def __init__(self, database: SQLDatabase) -> None:
        self.database = database
        self._columns: dict[str, list[str]] | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> dict[str, list[str]]:
        """Return every table's (and view's) columns, reading them the first time."""
        if self._columns is None:
            async with self._lock:
                if self._columns is None:
                    infos = await self.database.describe_tables(await self.database.list_tables())
                    self._columns = {
                        info.name.lower(): [name for name, _ in info.columns] for info in infos
                    }
        return self._columns
