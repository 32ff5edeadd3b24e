"""Opening the schema catalogue of the service: shared build, drift checks, prompt and tool."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from contextlib import AsyncExitStack

from langchain_core.tools import BaseTool

from react_agent.access.current import current_scope
from react_agent.catalog.context import SchemaContext, describe_search
from react_agent.catalog.drift import mark_drifted_examples
from react_agent.catalog.service import CatalogService
from react_agent.catalog.store import CatalogStore
from react_agent.catalog.view import ScopedReadable, TableAllowList
from react_agent.databases.catalog_model import Catalog
from react_agent.memory.retrieval.verified import ValueLinks
from react_agent.sample_data import SAMPLE_DATABASE_URL
from react_agent.service.state import AgentService
from react_agent.tools.schema_tools import SchemaTools


def source_key(url: str | None) -> str:
    """Return the key the catalogue of the data at `url` (or DATA_SOURCES) is kept under."""
    return hashlib.sha256((url or SAMPLE_DATABASE_URL).encode()).hexdigest()[:32]


def open_catalog(service: AgentService, stack: AsyncExitStack) -> None:
    """Start building the catalogue in the background (SCHEMA_CATALOG); stopped by `stack`."""
    settings = service.settings
    if not settings.schema_catalog or service.database is None:
        return
    memory = service.memory
    store = (
        CatalogStore(
            memory.database, source_key(settings.data_sources or settings.data_database_url)
        )
        if memory
        else None
    )

    async def check_drift(previous: Catalog | None, current: Catalog) -> None:
        if memory is not None:
            await mark_drifted_examples(memory.examples, previous, current)

    # Values of a column any role marks sensitive are never read into the catalogue.
    sensitive = service.policy.current().sensitive_columns() if service.policy else frozenset()
    catalog = CatalogService(
        service.database,
        store,
        sensitive=sensitive,
        semantic_file=settings.semantic_file,
        max_distinct=settings.schema_values_max_distinct,
        refresh_seconds=settings.schema_refresh_seconds,
        on_built=check_drift,
    )
    catalog.start()
    stack.push_async_callback(catalog.aclose)
    service.catalog = catalog


def schema_context(service: AgentService) -> SchemaContext | None:
    """Return the schema for the model's prompt, or None when SCHEMA_PROMPT_BUDGET is 0."""
    settings = service.settings
    if service.catalog is None:
        return None
    if settings.schema_prompt_budget <= 0 and settings.semantic_file is None:
        return None  # no schema in the prompt, and no file that could hold instructions
    return SchemaContext(
        service.catalog,
        settings.schema_prompt_budget,
        # The scope of the question being answered (a run's task sets it).
        current=_running_question(service),
        as_of=settings.instructions_as_of,
    )


def value_links_source(service: AgentService) -> ValueLinks | None:
    """Return the catalogue's value links of a text (verified near matches); None: no catalogue."""
    if service.catalog is None:
        return None
    context = SchemaContext(service.catalog, 0, current=_running_question(service))

    async def links(text: str) -> list[tuple[str, str, str, str]]:
        snapshot = await context.catalog.current()
        if snapshot is None:
            return []
        found = context.value_links(snapshot, text)
        return [(link.said, link.value, link.table, link.column) for link in found]

    return links


def _running_question(service: AgentService) -> Callable[[], ScopedReadable]:
    """Return the filter of the question being answered (its scope; all without a policy)."""
    allowed = TableAllowList(service.settings.allowed_tables)
    policy = service.policy

    def running_question() -> ScopedReadable:
        return ScopedReadable(allowed, current_scope() if policy is not None else None)

    return running_question


def schema_tools(context: SchemaContext | None) -> list[BaseTool]:
    """Return search_schema over `context`, or nothing without one."""
    if context is None or context.budget_chars <= 0:
        return []  # instructions only: the schema is not in the prompt, nor searched

    async def search(query: str) -> str:
        return await describe_search(context, query)

    return SchemaTools(search).as_tools()
