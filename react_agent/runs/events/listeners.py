"""Run-event listeners: what metrics, traces, the audit and quotas watch, beside the run log.

Every event a run appends to its log (`Run.append`) is also given to the process's
listeners, and so are the events only listeners need (`Run.report`): `RunAccepted`,
`ModelCalled`, `QueryFinished` and `SchemaRetrieved`. Those never enter the log, so the
SSE and NDJSON streams, the run event store and the sync answer are exactly what they were.

A listener is called synchronously in the run's task (or, for `RunAccepted`, in the
request that started the run), so it must be cheap and must not block; whatever it
raises is logged and dropped, never raised into the run.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from react_agent.access.actor import Actor

logger = logging.getLogger(__name__)

ModelOutcome = Literal["ok", "error", "cancelled"]
QueryOutcome = Literal["ok", "refused", "error", "timeout", "rejected"]
QueryKind = Literal["run", "check", "export"]
"""What the statement was for: run_sql, check_sql (planned, not run), a CSV export."""
SchemaOutcome = Literal["ok", "empty", "error"]


@dataclass(frozen=True)
class RunAccepted:
    """A run was created for a question (or a resume), in the request that asked it.

    Reported before the run's task starts, in the caller's context: a listener may read
    the request's context here (the tracing listener takes its span as the run's parent).
    """

    question: str
    resume: bool = False


@dataclass(frozen=True)
class ModelCalled:
    """One call of the chat model ended (react_agent.graph.nodes.agent.AgentNodes.call_model)."""

    model: str
    outcome: ModelOutcome
    seconds: float
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    subagent: dict[str, str] | None = None
    """`{id, description}` when a sub-agent's model was called."""
    cached_tokens: int | None = None
    """Prompt tokens the provider served from its prefix cache (`prompt_tokens_details`)."""
    error_type: str | None = None
    """A failed call's error as a client would see it (react_agent.errors.classify_exception)."""
    error: str | None = None
    """That error's detail."""


@dataclass(frozen=True)
class QueryFinished:
    """One run_sql or check_sql ended: it ran, or was refused (react_agent.tools.sql_tools).

    `outcome` is ok, refused (the SQL guard or the scope: `reason` says why), error or
    timeout (the database: `reason` is its message) or rejected (a person refused it at
    approval).
    """

    sql: str
    """The SQL as the model wrote it."""
    sql_run: str | None
    """The SQL as it reached the database (None when it did not)."""
    backend: str
    """The database's sqlglot dialect: sqlite, postgres, mysql, duckdb."""
    outcome: QueryOutcome
    seconds: float
    reason: str | None = None
    tables: tuple[str, ...] = ()
    row_count: int | None = None
    subagent: dict[str, str] | None = None
    """`{id, description}` when a sub-agent ran the query."""
    kind: QueryKind = "run"
    """run_sql's query, check_sql's plan (row_count None), or (outside runs) an export."""


@dataclass(frozen=True)
class SchemaRetrieved:
    """The schema catalogue's part of a question's prompt was made (react_agent.catalog.context).

    Once per question, at its first model call. `outcome` is ok (a schema section), empty
    (no catalogue built yet: the prompt lists table names) or error (left out).
    """

    outcome: SchemaOutcome
    seconds: float
    subagent: dict[str, str] | None = None
    """`{id, description}` when a sub-agent's prompt was made."""


class ListenedRun(Protocol):
    """What a listener may read of the run (a react_agent.runs.run.Run): never change it."""

    run_id: str
    thread_id: str
    lang: str | None
    trace_id: str | None
    actor: Actor | None
    """Who asks (given to the runner by the accept path; None: the thread's owner)."""


class RunListener(Protocol):
    """Told of every event of every run this process owns (see the module docstring)."""

    def on_run_event(self, run: ListenedRun, event: Any) -> None:
        """Take note of `event` of `run` (read-only); cheap, never blocking, never raising."""


@dataclass
class RunListeners:
    """The process's listeners, told of each event in the order they were added."""

    listeners: list[RunListener] = field(default_factory=list)

    def add(self, listener: RunListener) -> None:
        """Register a listener (once, when the service is assembled)."""
        self.listeners.append(listener)

    def extend(self, listeners: Iterable[RunListener]) -> None:
        """Register several listeners."""
        self.listeners.extend(listeners)

    def notify(self, run: ListenedRun, event: Any) -> None:
        """Tell every listener of `event`; a listener that raises is logged and skipped."""
        for listener in self.listeners:
            try:
                listener.on_run_event(run, event)
            except Exception:
                logger.exception(
                    "run listener %s failed on %s", type(listener).__name__, type(event).__name__
                )
