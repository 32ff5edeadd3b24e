"""Opening a data source with the settings of its kind: pools, DuckDB's limits."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

from config import Settings
from react_agent.databases.base import SQLDatabase
from react_agent.databases.fair_share import FairShare
from react_agent.databases.gated import GatedDatabase
from react_agent.databases.open import open_database
from react_agent.databases.routing import DataSourceRouter
from react_agent.databases.urls import database_kind
from react_agent.datasets.service import Datasets
from react_agent.runs.events.event_sink import current_event_sink
from react_agent.runs.events.events import SourceWaiting
from react_agent.sample_data import SAMPLE_DATABASE_URL
from react_agent.service.state import AgentService, postgres_pool_options


def duckdb_options(settings: Settings) -> dict[str, Any]:
    """Return DuckDB's memory limit and thread count from the settings."""
    return {"memory_limit": settings.duckdb_memory_limit, "threads": settings.duckdb_threads}


DEFAULT_SOURCE = "default"
"""The name of DATA_DATABASE_URL's source in progress, errors, /health and /metrics."""

EMBEDDED_CONCURRENCY = 8
"""Statements at once on SQLite and DuckDB when DATA_SOURCE_MAX_CONCURRENT is 0."""


async def open_data_source(settings: Settings, url: str | None) -> SQLDatabase:
    """Open the data database at `url` (None: the sample) with its kind's settings."""
    url = url or SAMPLE_DATABASE_URL
    if database_kind(url) == "mysql":
        return await open_database(
            url,
            max_size=settings.mysql_pool_max_size,
            connect_timeout=settings.postgres_connect_timeout,
        )
    return await open_database(
        url, file_options=duckdb_options(settings), **postgres_pool_options(settings)
    )


def fair_share(settings: Settings, url: str | None, source: str = DEFAULT_SOURCE) -> FairShare:
    """Return the turns of the source at `url`: DATA_SOURCE_MAX_CONCURRENT, else its pool's."""
    limit = settings.data_source_max_concurrent
    if not limit:
        kind = database_kind(url or SAMPLE_DATABASE_URL)
        pools = {"postgres": settings.postgres_pool_max_size, "mysql": settings.mysql_pool_max_size}
        limit = pools.get(kind, EMBEDDED_CONCURRENCY)
    return FairShare(source, limit, settings.data_source_max_wait)


def report_source_wait(source: str, ahead: int) -> None:
    """Tell the run whose statement waits on a busy source where it stands (its progress)."""
    sink = current_event_sink()
    if sink is not None:
        sink.append(SourceWaiting(source, ahead, step=sink.steps()))


def gate(service: AgentService, database: SQLDatabase, url: str | None) -> SQLDatabase:
    """Put `database` behind its fair share, kept on the service for /health and /metrics."""
    share = fair_share(service.settings, url)
    if service.settings.metrics:
        # Imported only when METRICS is on (it reads PROMETHEUS_MULTIPROC_DIR at import).
        from react_agent.observability.metrics import process_metrics
        from react_agent.observability.source_shares import report_share

        share.on_change = report_share(process_metrics())
    service.shares[share.source] = share
    return GatedDatabase(database, share, report_source_wait)


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
