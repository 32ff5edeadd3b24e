"""The metrics of runs, model calls and queries: a listener on the run events."""

from __future__ import annotations

import re
import time
from typing import Any

from react_agent.memory.retrieval.retriever import SEARCH_EXAMPLES
from react_agent.observability.metrics import ServiceMetrics
from react_agent.runs.events.events import RunFailed, RunFinished, RunStarted, RunWaiting
from react_agent.runs.events.listeners import (
    ListenedRun,
    ModelCalled,
    QueryFinished,
    RunAccepted,
    SchemaRetrieved,
)
from react_agent.runs.events.tool_events import ToolReturned

CANCELLED_ERRORS = frozenset({"RUN_CANCELLED", "SHUTTING_DOWN"})
INTERRUPTED_ERRORS = frozenset({"RUN_INTERRUPTED"})

SCOPE_RULE = re.compile(r"[A-Z][A-Z_]+: ")
"""How a scope refusal's reason starts (its rule), e.g. `COLUMN_DENIED: …`."""

# The guard's refusal sentences (react_agent/guard/sql_guard.py) → a bounded label value.
# Parse errors first: their sentence quotes the query, which may contain any other words.
REFUSAL_REASONS = (
    ("could not be parsed", "syntax"),
    ("could not be read", "syntax"),
    ("not in the allowed list", "table_not_allowed"),
    ("system table", "system_catalog"),
    ("database-qualified", "qualified_name"),
    ("only one statement", "multiple_statements"),
    ("the query is empty", "empty"),
    ("locking clauses", "locking"),
    ("unicode-escaped", "unicode_name"),
    ("function ", "function"),
    ("select … into", "write"),
    ("read-only", "write"),
)


def refusal_reason(sentence: str | None) -> str:
    """Return the label value of a guard refusal: one of a fixed set of words."""
    if SCOPE_RULE.match(sentence or ""):
        return "scope"  # the access policy's refusals: `RULE: sentence` (tools/sql_tools)
    text = (sentence or "").lower()
    for words, reason in REFUSAL_REASONS:
        if words in text:
            return reason
    return "other" if text else ""


def run_outcome(event: RunFinished | RunFailed) -> str:
    """Return how a run ended: completed, awaiting_approval, cancelled, interrupted, failed."""
    if isinstance(event, RunFinished):
        return "awaiting_approval" if event.result.approval is not None else "completed"
    if event.error.error_type in CANCELLED_ERRORS:
        return "cancelled"
    if event.error.error_type in INTERRUPTED_ERRORS:
        return "interrupted"
    return "failed"


class RunMetrics:
    """Moves the run, model and SQL metrics as each run's events come (runs/events/listeners)."""

    def __init__(self, metrics: ServiceMetrics) -> None:
        self.metrics = metrics
        self._created: dict[str, float] = {}
        self._queued: set[str] = set()
        self._active: set[str] = set()

    def on_run_event(self, run: ListenedRun, event: Any) -> None:
        """Count the event (see docs/observability.md for what each metric means)."""
        m = self.metrics
        if isinstance(event, ModelCalled):
            m.model_calls.labels(event.model, event.outcome).inc()
            m.model_duration.labels(event.model).observe(event.seconds)
            if event.prompt_tokens:
                m.model_tokens.labels(event.model, "prompt").inc(event.prompt_tokens)
            if event.completion_tokens:
                m.model_tokens.labels(event.model, "completion").inc(event.completion_tokens)
            if event.cached_tokens:  # the provider's prefix cache (prompt_tokens_details)
                m.model_tokens.labels(event.model, "cached").inc(event.cached_tokens)
        elif isinstance(event, QueryFinished) and event.kind == "run":  # run_sql calls only
            reason = refusal_reason(event.reason) if event.outcome == "refused" else ""
            m.sql_queries.labels(event.backend, event.outcome, reason).inc()
            m.sql_duration.labels(event.backend).observe(event.seconds)
            if event.row_count is not None:
                m.sql_rows.labels(event.backend).observe(event.row_count)
        elif isinstance(event, ToolReturned):
            if event.auto and event.tool_name == SEARCH_EXAMPLES and event.duration_ms is not None:
                m.retrieval_duration.observe(event.duration_ms / 1000)
        elif isinstance(event, SchemaRetrieved):
            m.schema_retrieval_duration.labels(event.outcome).observe(event.seconds)
        elif isinstance(event, RunAccepted):
            m.runs_started.inc()
            self._created[run.run_id] = time.monotonic()
        elif isinstance(event, RunWaiting):
            if run.run_id not in self._queued:
                self._queued.add(run.run_id)
                m.runs_queued.inc()
        elif isinstance(event, RunStarted):
            self._leave_queue(run.run_id)
            self._active.add(run.run_id)
            m.runs_active.inc()
        elif isinstance(event, RunFinished | RunFailed):
            self._end(run.run_id, run_outcome(event))

    def _leave_queue(self, run_id: str) -> None:
        if run_id in self._queued:
            self._queued.discard(run_id)
            self.metrics.runs_queued.dec()

    def _end(self, run_id: str, outcome: str) -> None:
        self._leave_queue(run_id)
        if run_id in self._active:
            self._active.discard(run_id)
            self.metrics.runs_active.dec()
        self.metrics.runs_finished.labels(outcome).inc()
        created = self._created.pop(run_id, None)
        if created is not None:
            self.metrics.run_duration.labels(outcome).observe(time.monotonic() - created)
