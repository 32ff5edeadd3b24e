"""The graph's and the tools' reports (model calls, queries, schema), told to the run's listeners.

Given to the nodes and the SQL tools by react_agent/service/assembly.py (they know only
their Protocols); outside a run, nothing happens. A sub-agent's report carries its tag.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from react_agent.errors import classify_exception
from react_agent.guard.sql_guard import QueryRejected, parse_statement
from react_agent.runs.events.event_sink import current_event_sink
from react_agent.runs.events.listeners import (
    ModelCalled,
    ModelOutcome,
    QueryFinished,
    QueryKind,
    QueryOutcome,
    SchemaOutcome,
    SchemaRetrieved,
)


def report_model_call(
    model: str,
    outcome: ModelOutcome,
    seconds: float,
    usage: dict[str, Any] | None,
    error: BaseException | None = None,
) -> None:
    """Tell the run's listeners of one model call.

    Args:
        model: The model's name (as the server answered it, else as configured).
        outcome: ok, error or cancelled.
        seconds: How long the call took.
        usage: The answer's `usage_metadata` (input_tokens, output_tokens), if any.
        error: What a failed call raised (classified as a client would see it).

    """
    sink = current_event_sink()
    if sink is None:
        return
    usage = usage or {}
    problem = classify_exception(error) if error is not None and outcome == "error" else None
    sink.report(
        ModelCalled(
            model=model,
            outcome=outcome,
            seconds=seconds,
            prompt_tokens=usage.get("input_tokens"),
            completion_tokens=usage.get("output_tokens"),
            cached_tokens=cached_tokens(usage),
            subagent=sink.subagent,
            error_type=problem.error_type if problem is not None else None,
            error=problem.detail if problem is not None else None,
        )
    )


def cached_tokens(usage: dict[str, Any]) -> int | None:
    """Return the prompt tokens served from the provider's cache, when it said so.

    LangChain's `input_token_details.cache_read`, from OpenAI's
    `prompt_tokens_details.cached_tokens`.
    """
    details = usage.get("input_token_details")
    if isinstance(details, dict) and details.get("cache_read") is not None:
        return int(details["cache_read"])
    return None


def report_query(
    sql: str,
    sql_run: str | None,
    backend: str,
    outcome: QueryOutcome,
    seconds: float,
    *,
    reason: str | None = None,
    row_count: int | None = None,
    kind: QueryKind = "run",
) -> None:
    """Tell the run's listeners that one run_sql or check_sql ended (see QueryFinished)."""
    sink = current_event_sink()
    if sink is None:
        return
    sink.report(
        QueryFinished(
            sql=sql,
            sql_run=sql_run,
            backend=backend,
            outcome=outcome,
            seconds=seconds,
            reason=reason,
            tables=tables_read(sql_run, backend) if sql_run is not None else (),
            row_count=row_count,
            subagent=sink.subagent,
            kind=kind,
        )
    )


def report_schema_retrieval(outcome: SchemaOutcome, seconds: float) -> None:
    """Tell the run's listeners that a question's schema section was made (SchemaRetrieved)."""
    sink = current_event_sink()
    if sink is None:
        return
    sink.report(SchemaRetrieved(outcome=outcome, seconds=seconds, subagent=sink.subagent))


def tables_read(sql: str, dialect: str) -> tuple[str, ...]:
    """Return the lower-case names of the tables `sql` reads (the guard's cached parse)."""
    try:
        root = parse_statement(sql, dialect)
    except QueryRejected:
        return ()
    ctes = {cte.alias_or_name.lower() for cte in root.find_all(exp.CTE)}
    names = {
        ".".join(part for part in (table.db, table.name) if part).lower()
        for table in root.find_all(exp.Table)
    }
    return tuple(sorted(names - ctes))
