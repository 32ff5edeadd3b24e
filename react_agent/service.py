"""Assembling the agent once per process: database, checkpointer, model, graph, runner."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.base import BaseCheckpointSaver

from config import Settings
from react_agent.approval.node import SqlApproval
from react_agent.conversations.checkpointer import open_checkpointer
from react_agent.conversations.postgres_checkpointer import PostgresCheckpointSaver
from react_agent.databases.base import SQLDatabase
from react_agent.databases.open import open_database
from react_agent.databases.urls import database_kind
from react_agent.errors import ServiceError
from react_agent.graph.builder import build_graph
from react_agent.graph.llm import build_chat_model
from react_agent.graph.nodes import AgentNodes
from react_agent.history.disclosure import TurnHistory
from react_agent.history.tools import build_history_tools
from react_agent.memory.retrieval import build_memory_tools
from react_agent.memory.store import Memory, open_memory
from react_agent.runs.admission import Admission
from react_agent.runs.event_store import InProcessRunEvents, RunEventStore
from react_agent.runs.postgres_event_store import PostgresRunEvents
from react_agent.runs.retrieval_events import report_retrieval
from react_agent.runs.runner import AgentRunner
from react_agent.runs.thread_locks import InProcessThreadLocks, PostgresThreadLocks, ThreadLocks
from react_agent.subagents.delegate import build_delegate_tool
from react_agent.tools.sql_guard import is_table_allowed
from react_agent.tools.sql_tools import build_sql_tools

logger = logging.getLogger(__name__)


@dataclass
class AgentService:
    """Everything built at start-up; `runner` is None while the agent cannot answer."""

    settings: Settings
    database: SQLDatabase | None = None
    checkpointer: BaseCheckpointSaver | None = None
    runner: AgentRunner | None = None
    tables: list[str] = field(default_factory=list)
    problems: dict[str, ServiceError] = field(default_factory=dict)
    """What keeps the agent from answering, by component (llm, data_database, checkpointer)."""
    memory: Memory | None = None
    """Ratings and examples; None when their database could not be opened."""
    memory_problem: ServiceError | None = None
    """Why `memory` is None (the agent answers without examples then)."""
    run_events: RunEventStore | None = None
    """Where streamed runs keep their events: PostgreSQL (shared by every worker) or memory."""

    def require_runner(self) -> AgentRunner:
        """Return the runner, or raise the 503 that says why there is none."""
        if self.runner is not None:
            return self.runner
        for component in ("llm", "data_database", "checkpointer"):
            if component in self.problems:
                raise self.problems[component]
        raise ServiceError(503, "AGENT_NOT_READY", "the agent is not running", can_retry=True)

    def require_memory(self) -> Memory:
        """Return the memory, or raise the 503 that says why there is none."""
        if self.memory is not None:
            return self.memory
        raise self.memory_problem or ServiceError(
            503, "MEMORY_UNAVAILABLE", "the memory is not open", can_retry=True
        )


def llm_not_configured() -> ServiceError:
    """Return the 503 that tells a user which settings give the service its LLM."""
    return ServiceError(
        503,
        "LLM_NOT_CONFIGURED",
        "No LLM endpoint is configured. Set OPENAI_API_KEY (for api.openai.com) or "
        "OPENAI_BASE_URL (for DeepSeek, Qwen, vLLM, Ollama or any OpenAI-compatible server) "
        "and LLM_MODEL, in the environment or in .env, then restart the service.",
    )


@asynccontextmanager
async def open_agent_service(
    settings: Settings,
    *,
    model: BaseChatModel | None = None,
    locks: ThreadLocks | None = None,
) -> AsyncIterator[AgentService]:
    """Build the agent and everything it needs; close it all on exit.

    A missing LLM or an unreachable database does not stop start-up: the service comes
    up, reports the problem in /health and answers 503 with the reason. PostgreSQL pools
    keep reconnecting in the background, so the agent is built even while PostgreSQL is
    down and answers again once it is back, without a restart.

    Args:
        settings: The service's settings.
        model: A chat model to use instead of ChatOpenAI (tests pass scripted ones).
        locks: Thread claims; by default advisory locks when the checkpointer is
            PostgreSQL (shared by every process), else in-process ones.

    """
    service = AgentService(settings)
    async with AsyncExitStack() as stack:
        try:
            service.database = await open_database(
                settings.data_database_url, **postgres_pool_options(settings)
            )
            stack.push_async_callback(service.database.aclose)
            # PostgreSQL's tables are listed by check_components below, once it answers.
            if not _reconnects_by_itself(service, "data_database"):
                service.tables = await _list_allowed_tables(service)
        except ServiceError as exc:
            service.problems["data_database"] = exc
        except Exception as exc:
            logger.warning("data database unavailable: %s", exc)
            service.problems["data_database"] = ServiceError(
                503, "DATABASE_UNAVAILABLE", f"data database: {exc}", can_retry=True
            )
        try:
            service.checkpointer = await stack.enter_async_context(
                open_checkpointer(
                    settings.resolved_checkpoint_database_url, **postgres_pool_options(settings)
                )
            )
        except Exception as exc:
            logger.warning("checkpointer unavailable: %s", exc)
            service.problems["checkpointer"] = ServiceError(
                503, "CHECKPOINTER_UNAVAILABLE", f"checkpointer: {exc}", can_retry=True
            )
        try:
            service.memory = await stack.enter_async_context(open_memory(settings))
        except Exception as exc:
            logger.warning("memory unavailable: %s", exc)
            service.memory_problem = ServiceError(
                503, "MEMORY_UNAVAILABLE", f"memory database: {exc}", can_retry=True
            )
        # PostgreSQL pools open without waiting for the server: see whether it answers.
        await check_components(service, timeout=settings.postgres_connect_timeout)
        for component, problem in service.problems.items():
            logger.warning("%s: %s", component, problem.detail)
        if model is None and not settings.llm_configured:
            service.problems["llm"] = llm_not_configured()
        if all(_reconnects_by_itself(service, component) for component in service.problems):
            if locks is None:
                locks = _default_locks(service)
                if isinstance(locks, PostgresThreadLocks):
                    # Pushed before the runner's aclose, so it runs after the runs end.
                    stack.push_async_callback(locks.aclose)
            service.run_events = _open_run_events(service, locks or _default_locks(service))
            # Pushed before the runner's aclose, so it runs after the runs end.
            stack.push_async_callback(service.run_events.aclose)
            service.runner = _build_runner(service, model or build_chat_model(settings), locks)
            stack.push_async_callback(service.runner.aclose)
            if isinstance(service.run_events, PostgresRunEvents):
                # on_busy=interrupt reaches a question running in another process.
                service.run_events.on_thread_cancel = service.runner.cancel_thread_here
                service.runner.interrupt_elsewhere = service.run_events.request_thread_cancel
        yield service


def _build_runner(
    service: AgentService, model: BaseChatModel, locks: ThreadLocks | None
) -> AgentRunner:
    settings = service.settings
    assert service.database is not None
    tools = build_sql_tools(
        service.database,
        row_limit=settings.sql_row_limit,
        preview_rows=settings.sql_preview_rows,
        timeout=settings.sql_timeout,
        allowed_tables=settings.allowed_tables,
    ) + build_history_tools(service.database.dialect)
    retriever = service.memory.retriever if service.memory and settings.memory else None
    if retriever is not None:
        tools += build_memory_tools(retriever)
    nodes = AgentNodes(
        model=model.bind_tools(tools),
        dialect=service.database.dialect,
        tables=service.tables,
        max_turns=settings.trim_max_turns,
        max_tokens=settings.trim_max_tokens,
        row_limit=settings.sql_row_limit,
        preview_rows=settings.sql_preview_rows,
        language_hint=settings.agent_language_hint,
        retriever=retriever,
        report_retrieval=report_retrieval,
        history=TurnHistory(
            settings.history_mode, settings.history_index_max, service.database.dialect
        ),
    )
    if settings.subagents:
        # The sub-agents get the SQL tools only, so they cannot delegate again.
        tools = [
            *tools,
            build_delegate_tool(
                build_graph(nodes, list(tools), None),
                max_parallel=settings.subagents_max_parallel,
                recursion_limit=settings.subagent_recursion_limit,
            ),
        ]
        nodes = replace(nodes, model=model.bind_tools(tools))
    approval = SqlApproval(service.database.dialect, settings.allowed_tables)
    graph = build_graph(nodes, tools, service.checkpointer, approval)
    return AgentRunner(
        graph,
        locks or _default_locks(service),
        recursion_limit=settings.recursion_limit,
        run_timeout=settings.run_timeout,
        durability=settings.checkpoint_durability,
        admission=Admission(settings.runs_max_active, settings.runs_max_queued),
    )


def describe_components(service: AgentService) -> dict[str, Any]:
    """Return what /health reports of each component (never the API key)."""
    settings = service.settings
    data_url = settings.data_database_url
    return {
        "agent": {"ready": service.runner is not None},
        "llm": {
            "configured": settings.llm_configured,
            "model": settings.llm_model,
            "base_url": settings.openai_base_url or "https://api.openai.com/v1",
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
            "kind": database_kind(data_url) if data_url else "sqlite",
            "sample": data_url is None,
            "ok": "data_database" not in service.problems,
            "tables": service.tables,
        },
        "memory": {
            "kind": database_kind(settings.resolved_memory_database_url),
            "ok": service.memory is not None,
            "in_prompt": settings.memory,
            "embedding_model": settings.embedding_model,
        },
    }


def postgres_pool_options(settings: Settings) -> dict[str, Any]:
    """Return the options of both PostgreSQL pools (see react_agent.databases.postgres_pool)."""
    return {
        "min_size": settings.postgres_pool_min_size,
        "max_size": settings.postgres_pool_max_size,
        "max_lifetime": settings.postgres_pool_max_lifetime,
        "max_idle": settings.postgres_pool_max_idle,
        "prepare_threshold": settings.postgres_prepare_threshold,
        "connect_timeout": settings.postgres_connect_timeout,
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
        reconnects = _reconnects_by_itself(service, "data_database")
        pings["data_database"] = (lambda: database.ping(timeout)) if reconnects else database.ping
    if _reconnects_by_itself(service, "checkpointer"):
        saver: Any = service.checkpointer
        pings["checkpointer"] = lambda: saver.ping(timeout)
    outcomes = await asyncio.gather(
        *(_ping_outcome(component, ping, timeout) for component, ping in pings.items())
    )
    failed = {c: problem for c, problem in zip(pings, outcomes, strict=True) if problem}
    for component in pings:
        if _reconnects_by_itself(service, component):
            service.problems.pop(component, None)
            if component in failed:
                service.problems[component] = failed[component]
    problems = {**service.problems, **failed}
    if database is not None and "data_database" not in problems and not service.tables:
        try:
            # In place: the agent's prompt holds this very list.
            service.tables[:] = await _list_allowed_tables(service)
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


async def _list_allowed_tables(service: AgentService) -> list[str]:
    assert service.database is not None
    # The prompt and /health name only the tables the model's SQL may read.
    return [
        name
        for name in await service.database.list_tables()
        if is_table_allowed(name, service.database.dialect, service.settings.allowed_tables)
    ]


def _open_run_events(service: AgentService, locks: ThreadLocks) -> RunEventStore:
    """Return the run event store: in the checkpoint database when that is PostgreSQL."""
    settings = service.settings
    if not _reconnects_by_itself(service, "checkpointer"):
        return InProcessRunEvents(settings.run_events_ttl)
    store = PostgresRunEvents(
        service.checkpointer.pool,  # type: ignore[union-attr]
        locks,
        ttl=settings.run_events_ttl,
        max_run_seconds=settings.run_timeout,
    )
    store.start()
    return store


def _default_locks(service: AgentService) -> ThreadLocks:
    if _reconnects_by_itself(service, "checkpointer"):
        # Claims must hold across every process that shares the conversations.
        return PostgresThreadLocks(service.checkpointer.pool)  # type: ignore[union-attr]
    return InProcessThreadLocks()


def _reconnects_by_itself(service: AgentService, component: str) -> bool:
    """Whether `component` is on a PostgreSQL pool, whose problems come and go with the server."""
    if component == "data_database":
        return service.database is not None and service.database.dialect == "postgres"
    if component == "checkpointer":
        return isinstance(service.checkpointer, PostgresCheckpointSaver)
    return False
