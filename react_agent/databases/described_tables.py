"""Tables' descriptions read once and reused a while, for catalogues slow to read."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from react_agent.databases.base import TableInfo

DESCRIBE_CACHE_SECONDS = 30.0
"""How long the tables' columns, comments and counts are reused before being read again."""


class DescribedTables:
    """The tables' columns, comments and counts, read by `read` and kept for `seconds`.

    One read at a time: a hundred questions at once each listing the tables wait for one
    read of the catalogue rather than queueing a hundred on it.
    """

    def __init__(
        self,
        read: Callable[[], Awaitable[dict[str, TableInfo]]],
        seconds: float = DESCRIBE_CACHE_SECONDS,
    ) -> None:
        self._read = read
        self._seconds = seconds
        self._described: tuple[float, dict[str, TableInfo]] | None = None
        self._lock = asyncio.Lock()

    async def names(self) -> list[str]:
        """Return the tables' names in order."""
        return sorted(await self._tables())

    async def describe(self, names: list[str]) -> list[TableInfo]:
        """Return the named tables that exist, in the order asked, each once."""
        found = await self._tables()
        return [found[name] for name in dict.fromkeys(names) if name in found]

    async def _tables(self) -> dict[str, TableInfo]:
        async with self._lock:
            now = time.monotonic()
            if self._described is None or now - self._described[0] > self._seconds:
                self._described = (now, await self._read())
            return self._described[1]
