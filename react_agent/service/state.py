"""What the service holds once built, and which of its parts PostgreSQL keeps."""

from __future__ import annotations

from dataclasses import dataclass, field

from langgraph.checkpoint.base import BaseCheckpointSaver
from psycopg_pool import AsyncConnectionPool

from config import Settings
from react_agent.access.policy_file.policy_source import PolicySource
from react_agent.access.scoping.catalog import TableColumns
from react_agent.catalog.service import CatalogService
from react_agent.conversations.postgres_checkpointer import PostgresCheckpointSaver
from react_agent.databases.base import SQLDatabase
from react_agent.databases.fair_share import FairShare
from react_agent.databases.open import postgres_pool_options as postgres_pool_options
from react_agent.datasets.service import Datasets
from react_agent.errors import ConfigurationError, ServiceError
from react_agent.memory.store import Memory
from react_agent.runs.runner import AgentRunner
from react_agent.runs.store.run_store import RunStore
from react_agent.service.conversations import Conversations
from react_agent.service.ledger import Ledger
from react_agent.service.model_reachability import ModelReachability
from react_agent.storage.postgres_batches import StatementBatches


@dataclass
class AgentService:
    """Everything built at start-up; `runner` is None while the agent cannot answer."""

    settings: Settings
    database: SQLDatabase | None = None
    checkpointer: BaseCheckpointSaver | None = None
    runner: AgentRunner | None = None
    tables: list[str] = field(default_factory=list)
    problems: dict[str, ServiceError] = field(default_factory=dict)
    shares: dict[str, FairShare] = field(default_factory=dict)
    """Each data source's fair share of turns, by source name (/health, /metrics)."""
    """What keeps the agent from answering, by component (llm, data_database, checkpointer)."""
    memory: Memory | None = None
    """Ratings and examples; None when their database could not be opened."""
    memory_problem: ServiceError | None = None
    """Why `memory` is None (the agent answers without examples then)."""
    run_store: RunStore | None = None
    """Thread claims, streamed runs' events and thread ids: PostgreSQL (shared by every
    worker) or memory; opened with the service, whether or not it can answer."""
    model_reachability: ModelReachability = field(default_factory=ModelReachability)
    """The outcome of the model's last call, for /ready (a run listener: no call of its own)."""
    ledger: Ledger | None = None
    """The audit trail and the quota counters; None when AUDIT and every quota are off."""
    catalog: CatalogService | None = None
    """The schema catalogue (SCHEMA_CATALOG); None when off or without a data database."""
    policy: PolicySource | None = None
    """The access policy (POLICY_FILE); None: every caller may read everything."""
    columns: TableColumns | None = None
    """The data database's columns, for the policy's rewrite of the model's SQL."""
    datasets: Datasets | None = None
    """Users' uploaded files (DATASETS_ENABLED); None when off."""

    def require_runner(self) -> AgentRunner:
        """Return the runner, or raise the 503 that says why there is none."""
        if self.runner is not None:
            return self.runner
        for component in ("llm", "data_database", "checkpointer"):
            if component in self.problems:
                raise self.problems[component]
        raise ServiceError(503, "AGENT_NOT_READY", "the agent is not running", can_retry=True)

    def conversations(self) -> Conversations:
        """Return the conversations the runner's graph keeps, or raise the 503 of no runner."""
        return Conversations(self.require_runner())

    def require_memory(self) -> Memory:
        """Return the memory, or raise the 503 that says why there is none."""
        if self.memory is not None:
            return self.memory
        raise self.memory_problem or ServiceError(
            503, "MEMORY_UNAVAILABLE", "the memory is not open", can_retry=True
        )


def llm_not_configured() -> ServiceError:
    """Return the 503 that tells a user which settings give the service its LLM (no retry)."""
    return ConfigurationError(
        "OPENAI_BASE_URL",
        "No LLM endpoint is configured. Set OPENAI_API_KEY (for api.openai.com) or "
        "OPENAI_BASE_URL (for DeepSeek, Qwen, vLLM, Ollama or any OpenAI-compatible server) "
        "and LLM_MODEL, in the environment or in .env, then restart the service.",
        error_type="LLM_NOT_CONFIGURED",
    )


def reconnects_by_itself(service: AgentService, component: str) -> bool:
    """Whether `component` is on a pool (PostgreSQL, MySQL, ClickHouse) whose problems pass."""
    if component == "data_database":
        return service.database is not None and service.database.dialect in (
            "postgres",
            "mysql",
            "clickhouse",
        )
    if component == "checkpointer":
        return checkpoint_pool(service) is not None
    return False


def checkpoint_pool(service: AgentService) -> AsyncConnectionPool | None:
    """Return the checkpointer's pool when it is PostgreSQL (runs are shared there), else None."""
    if isinstance(service.checkpointer, PostgresCheckpointSaver):
        return service.checkpointer.pool
    return None


def checkpoint_writer(service: AgentService) -> StatementBatches | None:
    """Return the checkpointer's statement writer when it is PostgreSQL, else None."""
    if isinstance(service.checkpointer, PostgresCheckpointSaver):
        return service.checkpointer.writes
    return None
