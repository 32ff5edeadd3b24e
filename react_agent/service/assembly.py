"""Assembling the agent once per process: database, checkpointer, model, graph, runner."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from functools import partial

from langchain_core.language_models import BaseChatModel
from psycopg_pool import AsyncConnectionPool

from config import Settings
from react_agent.access.policy_file.policy_checks import PolicyError
from react_agent.access.policy_file.policy_source import open_policy_source, require_known_users
from react_agent.access.scoping.catalog import TableColumns
from react_agent.access.sensitive.masking import set_token_key
from react_agent.conversations.checkpointer import open_checkpointer
from react_agent.databases.catalog_model import Catalog
from react_agent.errors import ConfigurationError, ServiceError
from react_agent.graph.builder import build_graph
from react_agent.graph.features import GraphParts
from react_agent.graph.llm import build_chat_model
from react_agent.graph.nodes.agent import AgentNodes
from react_agent.lint.linter import SqlLinter
from react_agent.log_reminders import quiet_repeated_warnings
from react_agent.memory.store import open_memory
from react_agent.results.answer_check import check_answer
from react_agent.runs.admission.auto import open_admission
from react_agent.runs.events.listener_reports import (
    report_model_call,
    report_query,
    report_schema_retrieval,
)
from react_agent.runs.events.listeners import RunListeners
from react_agent.runs.runner import AgentRunner
from react_agent.runs.store.locks import ThreadLocks
from react_agent.runs.store.open import open_run_store
from react_agent.runs.store.run_store import RunStore
from react_agent.service.components import check_components, list_allowed_tables
from react_agent.service.data_sources import (
    conversation_source,
    open_datasets,
    open_service_data,
    prompt_dialect,
)
from react_agent.service.graph_features import graph_features
from react_agent.service.ledger import open_ledger
from react_agent.service.schema_catalog import open_catalog
from react_agent.service.settings_checks import check_database_urls
from react_agent.service.start_report import degraded_start_lines
from react_agent.service.state import (
    AgentService,
    checkpoint_pool,
    checkpoint_writer,
    llm_not_configured,
    postgres_pool_options,
    reconnects_by_itself,
)
from react_agent.storage.postgres_batches import StatementBatches
from react_agent.tools.sql_tools import CHECK_SQL, build_sql_tools

logger = logging.getLogger(__name__)


@asynccontextmanager
async def open_agent_service(
    settings: Settings,
    *,
    model: BaseChatModel | None = None,
    locks: ThreadLocks | None = None,
) -> AsyncIterator[AgentService]:
    """Build the agent and everything it needs; close it all on exit.

    A missing LLM or an unreachable database does not stop start-up: the service comes
    up, reports the problem in /health and answers 503 with the reason. A wrong setting
    does (a database URL of an unsupported kind, a policy file that does not check out):
    ConfigurationError, which `python -m app` prints as one line. PostgreSQL pools
    keep reconnecting in the background, so the agent is built even while PostgreSQL is
    down and answers again once it is back, without a restart.

    Args:
        settings: The service's settings.
        model: A chat model to use instead of ChatOpenAI (tests pass scripted ones).
        locks: Thread claims; by default advisory locks when the checkpointer is
            PostgreSQL (shared by every process), else in-process ones.

    """
    check_database_urls(settings)
    # psycopg's pools warn at each failed attempt while PostgreSQL is down.
    quiet_repeated_warnings("psycopg.pool")
    service = AgentService(settings)
    async with AsyncExitStack() as stack:
        await _open_data(service, stack)
        await _open_policy(service)
        try:
            service.checkpointer = await stack.enter_async_context(
                open_checkpointer(
                    settings.resolved_checkpoint_database_url, **postgres_pool_options(settings)
                )
            )
        except Exception as exc:
            service.problems["checkpointer"] = ServiceError(
                503, "CHECKPOINTER_UNAVAILABLE", f"checkpointer: {exc}", can_retry=True
            )
        if settings.metrics and service.checkpointer is not None:
            from react_agent.observability.checkpoint_timing import time_checkpoint_writes

            time_checkpoint_writes(service.checkpointer)
        try:
            service.memory = await stack.enter_async_context(open_memory(settings))
        except Exception as exc:
            service.memory_problem = ServiceError(
                503, "MEMORY_UNAVAILABLE", f"memory database: {exc}", can_retry=True
            )
        # Before the runs, so that it closes (writing the last audit records) after them.
        policy = service.policy.current() if service.policy is not None else None
        service.ledger = await stack.enter_async_context(
            open_ledger(
                settings,
                audit=policy is not None and policy.reads_audit(),
                quotas=policy is not None and policy.sets_quotas(),
            )
        )
        # After the memory, where workers share one build; closed before it.
        open_catalog(service, stack)
        # PostgreSQL pools open without waiting for the server: see whether it answers.
        await check_components(service, timeout=settings.postgres_connect_timeout)
        if model is None and not settings.llm_configured:
            service.problems["llm"] = llm_not_configured()
        for line in degraded_start_lines(service):
            logger.warning("degraded start: %s", line)
        await _start_runs(service, stack, model, locks)
        yield service


async def _open_data(service: AgentService, stack: AsyncExitStack) -> None:
    """Open the data database (and users' datasets); a failure is a problem, not a stop."""
    try:
        service.database = await open_service_data(service)
        stack.push_async_callback(service.database.aclose)
        await open_datasets(service, stack)
        # PostgreSQL's tables are listed by check_components below, once it answers.
        if not reconnects_by_itself(service, "data_database"):
            service.tables = await list_allowed_tables(service)
    except ServiceError as exc:
        service.problems["data_database"] = exc
    except Exception as exc:
        service.problems["data_database"] = ServiceError(
            503, "DATABASE_UNAVAILABLE", f"data database: {exc}", can_retry=True
        )


async def _open_policy(service: AgentService) -> None:
    """Read POLICY_FILE, checked against the data database (a wrong one stops start-up).

    Raises:
        ConfigurationError: The file is missing, unreadable, or does not check out.

    """
    settings = service.settings
    if settings.access_token_key is not None:
        set_token_key(settings.access_token_key.get_secret_value())
    if service.database is not None:
        service.columns = TableColumns(service.database)
    if settings.policy_file is None:
        return
    keys = settings.api_keys.get_secret_value().strip() if settings.api_keys else ""
    try:
        service.policy = await open_policy_source(
            settings.policy_file,
            service.columns,
            settle_seconds=settings.policy_reload_settle_seconds,
        )
        require_known_users(
            settings.policy_file,
            keys_set=bool(keys) or settings.api_keys_file is not None,
            trusted_gateway=settings.auth_trusted_gateway,
        )
    except PolicyError as exc:  # its text names the file and the line, or the settings
        detail = str(exc) if str(exc).startswith("POLICY_FILE") else f"POLICY_FILE {exc}"
        raise ConfigurationError("POLICY_FILE", detail) from exc
    except OSError as exc:
        raise ConfigurationError(
            "POLICY_FILE",
            f"POLICY_FILE {settings.policy_file}: {exc.strerror or exc}; "
            "set POLICY_FILE to a readable policy file (docs/security.md), or unset it",
        ) from exc


async def _start_runs(
    service: AgentService,
    stack: AsyncExitStack,
    model: BaseChatModel | None,
    locks: ThreadLocks | None,
) -> None:
    """Open the run store and, if the agent can answer, the runner, closed by `stack`.

    The store is entered before the runner, so it closes after the runs end. While a
    part that does not come back by itself is missing, nothing runs, and the streams
    get a store in memory that has no run to show.
    """
    if not all(reconnects_by_itself(service, part) for part in service.problems):
        service.run_store = await stack.enter_async_context(
            _open_run_store(service, None, None, None)
        )
        return
    service.run_store = await stack.enter_async_context(
        _open_run_store(service, checkpoint_pool(service), locks, checkpoint_writer(service))
    )
    model = model or build_chat_model(service.settings)
    service.runner = _build_runner(service, model, service.run_store.locks)
    # The model's last-known reachability for /ready, from the calls that answer questions.
    service.runner.listeners.add(service.model_reachability)
    if service.ledger is not None:  # the audit trail and the token tally (AUDIT, QUOTA_*)
        service.runner.listeners.add(service.ledger.listener)
    stack.push_async_callback(service.runner.aclose)
    interrupts = service.run_store.interrupts
    if interrupts is not None:
        # on_busy=interrupt reaches a question running in another process.
        interrupts.on_thread_cancel = service.runner.cancel_thread_here
        service.runner.interrupt_elsewhere = interrupts.request_thread_cancel


def _open_run_store(
    service: AgentService,
    pool: AsyncConnectionPool | None,
    locks: ThreadLocks | None,
    writer: StatementBatches | None,
) -> AbstractAsyncContextManager[RunStore]:
    settings = service.settings
    return open_run_store(
        pool,
        ttl=settings.run_events_ttl,
        max_run_seconds=settings.run_timeout,
        pool_options=postgres_pool_options(settings),
        locks=locks,
        writer=writer,
    )


def _linter(service: AgentService) -> SqlLinter | None:
    """Return the SQL lint (SQL_LINT), reading the schema catalogue's keys when it has one."""
    if service.settings.sql_lint == "off":
        return None

    def catalog() -> Catalog | None:
        snapshot = service.catalog.snapshot if service.catalog is not None else None
        return snapshot.catalog if snapshot is not None else None

    return SqlLinter(catalog, service.settings.sql_lint)


def _build_runner(service: AgentService, model: BaseChatModel, locks: ThreadLocks) -> AgentRunner:
    settings = service.settings
    assert service.database is not None
    tools = build_sql_tools(
        service.database,
        row_limit=settings.sql_row_limit,
        preview_rows=settings.sql_preview_rows,
        timeout=settings.sql_timeout,
        allowed_tables=settings.allowed_tables,
        report_query=report_query,
        columns=service.columns if service.policy is not None else None,
        linter=_linter(service),
    )
    if settings.sql_check_tool == "off":
        tools = [tool for tool in tools if tool.name != CHECK_SQL]
    nodes = AgentNodes(
        model=model,
        dialect=prompt_dialect(service.database),
        tables=service.tables,
        max_turns=settings.trim_max_turns,
        max_tokens=settings.trim_max_tokens,
        row_limit=settings.sql_row_limit,
        preview_rows=settings.sql_preview_rows,
        language_hint=settings.agent_language_hint,
        report_model_call=report_model_call,
        model_name=settings.llm_model,
        report_schema_retrieval=report_schema_retrieval,
        # check_sql only for runs that stop for approval (SQL_CHECK_TOOL=approval).
        check_tool=CHECK_SQL if settings.sql_check_tool == "approval" else None,
    )
    parts = GraphParts(nodes, model, tuple(tools))
    # The one seam of the optional features: history, memory, schema, sub-agents, pauses,
    # the answer's review.
    for feature in graph_features(service):
        parts = feature.attach(parts)
    graph = build_graph(parts, service.checkpointer)
    runner = AgentRunner(
        graph,
        locks,
        recursion_limit=settings.recursion_limit,
        run_timeout=settings.run_timeout,
        durability=settings.checkpoint_durability,
        admission=open_admission(settings.runs_max_active, settings.runs_max_queued),
        check_answer=None if settings.answer_check == "off" else check_answer,
        listeners=run_listeners(settings),
    )
    if service.datasets is not None:  # a conversation about a dataset keeps reading it
        runner.source_of_thread = partial(conversation_source, service)
    return runner


def run_listeners(settings: Settings) -> RunListeners:
    """Return the listeners told of every run's events in this process (runs/events/listeners).

    The one place they are registered: metrics, traces, the audit trail and quotas add
    theirs here. Tests add their own with `service.runner.listeners.add(...)`. What is
    off is not even imported (docs/observability.md).
    """
    listeners = RunListeners()
    if settings.metrics:
        from react_agent.observability.metrics import process_metrics
        from react_agent.observability.run_metrics import RunMetrics

        listeners.add(RunMetrics(process_metrics()))
    if settings.otel_traces_exporter or settings.otel_exporter_otlp_endpoint:
        from react_agent.observability.run_tracing import RunTracing
        from react_agent.observability.tracing import configure_tracing, tracing_enabled

        if tracing_enabled(settings):
            configure_tracing(settings)
            listeners.add(RunTracing())
    return listeners
