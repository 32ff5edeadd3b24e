"""search_schema: the model looks for tables by meaning when the prompt holds only some."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from langchain_core.tools import BaseTool, tool

SEARCH_SCHEMA = "search_schema"

SchemaSearch = Callable[[str], Awaitable[str]]
"""Returns the tables that match a query, described (react_agent.catalog.context)."""


@dataclass(frozen=True)
class SchemaTools:
    """The schema search tool over one caller's catalogue."""

    search: SchemaSearch

    def as_tools(self) -> list[BaseTool]:
        """Return the tools the model is given."""
        return [tool(SEARCH_SCHEMA)(self.search_schema)]

    async def search_schema(self, query: str) -> str:
        """Find tables by meaning: table or column names, business terms or values.

        Returns the best matching tables with their columns, keys, descriptions and
        sample values. Use it when the tables you need are not described already.
        """
        return await self.search(query)
