"""Assembling the agent once per process: database, checkpointer, model, graph, runner."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.base import BaseCheckpointSaver

from config import Settings
from react_agent.checkpointer import open_checkpointer
from react_agent.database import SQLDatabase, database_kind, open_database
from react_agent.errors import ServiceError
from react_agent.graph import build_graph
from react_agent.llm import build_chat_model
from react_agent.nodes import AgentNodes
from react_agent.runner import AgentRunner
from react_agent.thread_locks import InProcessThreadLocks, ThreadLocks
from react_agent.tools import build_sql_tools

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

    def require_runner(self) -> AgentRunner:
        """Return the runner, or raise the 503 that says why there is none."""
        if self.runner is not None:
            return self.runner
        for component in ("llm", "data_database", "checkpointer"):
            if component in self.problems:
                raise self.problems[component]
        raise ServiceError(503, "AGENT_NOT_READY", "the agent is not running", can_retry=True)


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
    up, reports the problem in /health and answers 503 with the reason.

    Args:
        settings: The service's settings.
        model: A chat model to use instead of ChatOpenAI (tests pass scripted ones).
        locks: Thread claims; in-process ones by default.

    """
    service = AgentService(settings)
    async with AsyncExitStack() as stack:
        try:
            service.database = await open_database(settings.data_database_url)
            stack.push_async_callback(service.database.aclose)
            service.tables = await service.database.list_tables()
        except ServiceError as exc:
            service.problems["data_database"] = exc
        except Exception as exc:
            logger.warning("data database unavailable: %s", exc)
            service.problems["data_database"] = ServiceError(
                503, "DATABASE_UNAVAILABLE", f"data database: {exc}", can_retry=True
            )
        try:
            service.checkpointer = await stack.enter_async_context(
                open_checkpointer(settings.resolved_checkpoint_database_url)
            )
        except Exception as exc:
            logger.warning("checkpointer unavailable: %s", exc)
            service.problems["checkpointer"] = ServiceError(
                503, "CHECKPOINTER_UNAVAILABLE", f"checkpointer: {exc}", can_retry=True
            )
        if model is None and not settings.llm_configured:
            service.problems["llm"] = llm_not_configured()
        if not service.problems:
            service.runner = _build_runner(service, model or build_chat_model(settings), locks)
            stack.push_async_callback(service.runner.aclose)
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
    )
    nodes = AgentNodes(
        model=model.bind_tools(tools),
        dialect=service.database.dialect,
        tables=service.tables,
        max_turns=settings.trim_max_turns,
        max_tokens=settings.trim_max_tokens,
        row_limit=settings.sql_row_limit,
        preview_rows=settings.sql_preview_rows,
        language_hint=settings.agent_language_hint,
    )
    graph = build_graph(nodes, tools, service.checkpointer)
    return AgentRunner(
        graph,
        locks or InProcessThreadLocks(),
        recursion_limit=settings.recursion_limit,
        run_timeout=settings.run_timeout,
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
            "ok": service.checkpointer is not None,
        },
        "data_database": {
            "kind": database_kind(data_url) if data_url else "sqlite",
            "sample": data_url is None,
            "ok": "data_database" not in service.problems,
            "tables": service.tables,
        },
    }
