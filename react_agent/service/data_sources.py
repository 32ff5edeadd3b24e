"""Opening a data source with the settings of its kind: pools, DuckDB's limits."""

from __future__ import annotations

from contextlib import AsyncExitStack
from functools import partial

from config import Settings
from react_agent.databases.base import SQLDatabase
from react_agent.databases.fair_share import FairShare
from react_agent.databases.federation.sources import NamedSources
from react_agent.databases.federation.specs import SourceSpec
from react_agent.databases.gated import GatedDatabase
from react_agent.databases.open import (
    DEFAULT_SOURCE,
    duckdb_options,
    open_configured,
    open_named,
    open_with_settings,
)
from react_agent.databases.registry import engine_for
from react_agent.databases.routing import DataSourceRouter
from react_agent.datasets.service import Datasets
from react_agent.runs.events.event_sink import current_event_sink
from react_agent.runs.events.events import SourceWaiting
from react_agent.sample_data import SAMPLE_DATABASE_URL
from react_agent.service.state import AgentService

EMBEDDED_CONCURRENCY = 8
"""Statements at once on SQLite and DuckDB when DATA_SOURCE_MAX_CONCURRENT is 0."""


async def open_data_source(settings: Settings, url: str | None) -> SQLDatabase:
    """Open the data database at `url` (None: the sample) with its kind's settings."""
    return await open_with_settings(settings, url or SAMPLE_DATABASE_URL)


async def open_service_data(service: AgentService) -> SQLDatabase:
    """Open the data the settings name (databases/open.open_configured), each source gated."""
    return await open_configured(service.settings, SAMPLE_DATABASE_URL, partial(gate, service))


def fair_share(
    settings: Settings, url: str | None, source: str = DEFAULT_SOURCE, limit: int = 0
) -> FairShare:
    """Return the turns of the source at `url`: its own limit, the setting's, else its pool's."""
    limit = limit or settings.data_source_max_concurrent
    if not limit:
        package = engine_for(url or SAMPLE_DATABASE_URL, settings.data_engine).package
        pools = {
            "postgres": settings.postgres_pool_max_size,
            "clickhouse": settings.postgres_pool_max_size,
            "mysql": settings.mysql_pool_max_size,
            "generic": settings.mysql_pool_max_size,
        }
        limit = pools.get(package, EMBEDDED_CONCURRENCY)
    return FairShare(source, limit, settings.data_source_max_wait)


def report_source_wait(source: str, ahead: int) -> None:
    """Tell the run whose statement waits on a busy source where it stands (its progress)."""
    sink = current_event_sink()
    if sink is not None:
        sink.append(SourceWaiting(source, ahead, step=sink.steps()))


def gate(
    service: AgentService,
    database: SQLDatabase,
    url: str | None,
    source: str = DEFAULT_SOURCE,
    limit: int = 0,
) -> SQLDatabase:
    """Put `database` behind its fair share, kept on the service for /health and /metrics."""
    share = fair_share(service.settings, url, source, limit)
    if service.settings.metrics:
        # Imported only when METRICS is on (it reads PROMETHEUS_MULTIPROC_DIR at import).
        from react_agent.observability.metrics import process_metrics
        from react_agent.observability.source_shares import report_share

        share.on_change = report_share(process_metrics())
    service.shares[share.source] = share
    return GatedDatabase(database, share, report_source_wait)


async def open_named_sources(
    settings: Settings, service: AgentService | None = None
) -> SQLDatabase:
    """Open every source of DATA_SOURCES (checked at start: settings_checks) as one database.

    Each source is behind its own fair share (its `max_concurrent` in the YAML file, else
    the setting's) when the service is given.
    """
    return await open_named(settings, None if service is None else partial(gate, service))


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


def prompt_dialect(database: SQLDatabase) -> str:
    """Return the dialect the model is told: the database's, or the named sources' rule."""
    named = getattr(database, "default", database)  # a dataset router wraps the sources
    if not isinstance(named, NamedSources):
        return database.dialect
    if named is database:
        return named.prompt_dialect()
    # Datasets on: a conversation about an upload reads it as one more source.
    return named.prompt_dialect().replace(
        ". Name every table",
        f"; a conversation about the user's uploaded file also has it, as {PRIVATE_SOURCE}"
        ". Name every table",
        1,
    )


PRIVATE_SOURCE = "mine"
"""The name a user's uploaded dataset takes beside the named sources (`mine.table`)."""


async def conversation_source(service: AgentService, thread_id: str) -> SQLDatabase | None:
    """Return the data source of the conversation's runs and exports (None: the shared one).

    A conversation bound to a dataset (a question named it) reads the dataset: alone
    beside a DATA_DATABASE_URL, or as `mine` beside the named sources of DATA_SOURCES,
    joinable with them.

    Raises:
        ServiceError: 404 DATASET_NOT_FOUND when its dataset is gone meanwhile.

    """
    if service.datasets is None:
        return None
    found = await service.datasets.source_of_conversation(thread_id)
    if found is None:
        return None
    url, dataset = found
    database = service.database
    base = database.default if isinstance(database, DataSourceRouter) else database
    if isinstance(base, NamedSources):
        spec = SourceSpec(PRIVATE_SOURCE, url, "your uploaded dataset")
        return base.with_private(spec, dataset)
    return dataset
