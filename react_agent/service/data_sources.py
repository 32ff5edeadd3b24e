"""Opening a data source with the settings of its kind: pools, DuckDB's limits."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

from config import Settings
from react_agent.databases.base import SQLDatabase
from react_agent.databases.open import open_database
from react_agent.databases.registry import engine_for
from react_agent.databases.routing import DataSourceRouter
from react_agent.datasets.service import Datasets
from react_agent.sample_data import SAMPLE_DATABASE_URL
from react_agent.service.state import AgentService, postgres_pool_options


def duckdb_options(settings: Settings) -> dict[str, Any]:
    """Return DuckDB's memory limit and thread count from the settings."""
    return {"memory_limit": settings.duckdb_memory_limit, "threads": settings.duckdb_threads}


async def open_data_source(settings: Settings, url: str | None) -> SQLDatabase:
    """Open the data database at `url` (None: the sample) with its kind's settings."""
    url = url or SAMPLE_DATABASE_URL
    engine = settings.data_engine
    if engine_for(url, engine).package in ("mysql", "generic"):
        return await open_database(
            url,
            engine=engine,
            max_size=settings.mysql_pool_max_size,
            connect_timeout=settings.postgres_connect_timeout,
        )
    return await open_database(
        url, file_options=duckdb_options(settings), **postgres_pool_options(settings)
    )


async def open_datasets(service: AgentService, stack: AsyncExitStack) -> None:
    """With DATASETS_ENABLED, keep users' datasets and route a question to the one it names."""
    settings = service.settings
    if not settings.datasets_enabled or service.database is None:
        return
    service.datasets = Datasets(
        settings.datasets_dir or settings.data_dir / "datasets",
        max_per_user=settings.datasets_max_per_user,
        file_options=duckdb_options(settings),
    )
    stack.push_async_callback(service.datasets.aclose)
    service.database = DataSourceRouter(service.database)
