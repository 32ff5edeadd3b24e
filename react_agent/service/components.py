"""The service's components now: their pings, and what /health says of them."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any

from config.masking import mask_url_password
from react_agent.databases.federation.sources import NamedSources
from react_agent.databases.urls import database_kind
from react_agent.errors import ServiceError
from react_agent.guard.sql_guard import is_table_allowed
from react_agent.sample_data import SAMPLE_DATABASE_URL
from react_agent.service.state import AgentService, reconnects_by_itself

logger = logging.getLogger(__name__)


def describe_components(service: AgentService) -> dict[str, Any]:
    """Return what /health reports of each component (never the API key)."""
    settings = service.settings
    data_url = settings.data_database_url
    return {
        "agent": {"ready": service.runner is not None},
        "llm": {
            "configured": settings.llm_configured,
            "model": settings.llm_model,
            "base_url": mask_url_password(settings.openai_base_url or "https://api.openai.com/v1"),
            "api_key_set": bool(
                settings.openai_api_key and settings.openai_api_key.get_secret_value()
            ),
            "timeout": settings.llm_timeout,
        },
        "checkpointer": {
            "kind": database_kind(settings.resolved_checkpoint_database_url),
            "ok": service.checkpointer is not None and "checkpointer" not in service.problems,
        },
        "data_database": {
            "kind": "sources"
            if settings.data_sources
            else database_kind(data_url or SAMPLE_DATABASE_URL, settings.data_engine),
            "sample": data_url is None and not settings.data_sources,
            "ok": "data_database" not in service.problems,
            "tables": service.tables,
            "shares": {name: asdict(share.counts()) for name, share in service.shares.items()},
            **describe_sources(service),
        },
        "memory": {
            "kind": database_kind(settings.resolved_memory_database_url),
            "ok": service.memory is not None,
            "in_prompt": settings.memory,
            "embedding_model": settings.embedding_model,
        },
        "schema": describe_catalog(service),
        "policy": service.policy.describe() if service.policy else {"enabled": False},
    }


def describe_catalog(service: AgentService) -> dict[str, Any]:
    """Return what /health says of the schema catalogue: its build, file and drift."""
    catalog = service.catalog
    if catalog is None:
        return {"enabled": False}
    snapshot = catalog.snapshot
    return {
        "enabled": True,
        "status": catalog.status,
        "built_at": snapshot.catalog.built_at if snapshot else None,
        "tables": len(snapshot.catalog.tables) if snapshot else 0,
        "columns": snapshot.catalog.column_count if snapshot else 0,
        "semantic_problems": list(snapshot.problems) if snapshot else [],
        "stale_examples": catalog.stale_examples,
        "error": mask_url_password(catalog.error) if catalog.error else None,
    }


async def check_components(service: AgentService, *, timeout: float) -> dict[str, ServiceError]:
    """Ping the databases and return what keeps the agent from answering right now.

    PostgreSQL components reconnect by themselves, so their entries in `service.problems`
    are refreshed here: set while the server is unreachable, cleared once it answers (and
    the tables are listed then if they are not known yet). Other components keep their
    start-up problems; a failed ping of theirs only shows in the result.

    Args:
        service: The service to check.
        timeout: Seconds each ping may take; the pings run concurrently.

    """
    pings: dict[str, Callable[[], Awaitable[None]]] = {}
    database: Any = service.database
    if database is not None:
        reconnects = reconnects_by_itself(service, "data_database")
        pings["data_database"] = (lambda: database.ping(timeout)) if reconnects else database.ping
    if reconnects_by_itself(service, "checkpointer"):
        saver: Any = service.checkpointer
        pings["checkpointer"] = lambda: saver.ping(timeout)
    outcomes = await asyncio.gather(
        *(_ping_outcome(component, ping, timeout) for component, ping in pings.items())
    )
    failed = {c: problem for c, problem in zip(pings, outcomes, strict=True) if problem}
    for component in pings:
        if reconnects_by_itself(service, component):
            service.problems.pop(component, None)
            if component in failed:
                service.problems[component] = failed[component]
    problems = {**service.problems, **failed}
    if service.catalog is not None and service.memory is not None:
        try:
            service.catalog.stale_examples = await service.memory.examples.count_stale()
        except Exception as exc:
            logger.warning("could not count the stale examples: %s", exc)
    if database is not None and "data_database" not in problems and not service.tables:
        try:
            # In place: the agent's prompt holds this very list.
            service.tables[:] = await list_allowed_tables(service)
        except Exception as exc:
            logger.warning("could not list the tables: %s", exc)
    return problems


async def _ping_outcome(
    component: str, ping: Callable[[], Awaitable[None]], timeout: float
) -> ServiceError | None:
    """Return the 503 that a failed ping of `component` stands for, or None."""
    error_type = {"data_database": "DATABASE_UNAVAILABLE"}.get(
        component, "CHECKPOINTER_UNAVAILABLE"
    )
    name = component.replace("_", " ")
    try:
        # A little longer than the pings' own limit: theirs come with better reasons.
        async with asyncio.timeout(timeout + 1):
            await ping()
    except ServiceError as exc:
        return exc
    except TimeoutError:
        return ServiceError(503, error_type, f"{name}: no answer within {timeout:g} s")
    except Exception as exc:
        return ServiceError(503, error_type, f"{name}: {exc}", can_retry=True)
    return None


async def list_allowed_tables(service: AgentService) -> list[str]:
    """Return the data database's tables that the model's SQL may read."""
    assert service.database is not None
    # The prompt and /health name only the tables the model's SQL may read.
    return [
        name
        for name in await service.database.list_tables()
        if is_table_allowed(name, service.database.dialect, service.settings.allowed_tables)
    ]


def describe_sources(service: AgentService) -> dict[str, Any]:
    """Return /health's `sources` of DATA_SOURCES: each one's name, kind, description, state."""
    database = service.database
    named = getattr(database, "default", database)
    if not isinstance(named, NamedSources):
        return {}
    return {
        "sources": [
            {
                "name": name,
                "kind": database_kind(member.spec.url),
                "description": member.spec.description,
                "ok": member.database is not None and member.problem is None,
            }
            for name, member in named.members.items()
        ]
    }
