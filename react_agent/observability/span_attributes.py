"""The attributes of model-call and query spans, in OpenTelemetry's GenAI and database terms."""

from __future__ import annotations

from typing import Any

from react_agent.runs.events.listeners import ModelCalled, QueryFinished

DB_SYSTEMS = {"postgres": "postgresql", "sqlite": "sqlite", "mysql": "mysql", "duckdb": "duckdb"}
"""sqlglot's dialect → OpenTelemetry's db.system.name."""


def model_span_attributes(event: ModelCalled) -> dict[str, Any]:
    """Return a chat span's attributes (gen_ai.*), tokens when the server reported them."""
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": event.model,
        "gen_ai.response.model": event.model,
        "sqlagent.outcome": event.outcome,
    }
    if event.prompt_tokens is not None:
        attributes["gen_ai.usage.input_tokens"] = event.prompt_tokens
    if event.completion_tokens is not None:
        attributes["gen_ai.usage.output_tokens"] = event.completion_tokens
    if event.outcome != "ok":
        attributes["error.type"] = event.outcome
    return attributes


def query_span_name(event: QueryFinished) -> str:
    """Return a query span's name: `SELECT <first table>`, or what happened to it."""
    if event.outcome == "refused":
        return "SELECT refused"
    return f"SELECT {event.tables[0]}" if event.tables else "SELECT"


def query_span_attributes(event: QueryFinished) -> dict[str, Any]:
    """Return a query span's attributes (db.*), with its rows and what became of it."""
    system = DB_SYSTEMS.get(event.backend, event.backend)
    attributes: dict[str, Any] = {
        "db.system": system,
        "db.system.name": system,
        "db.operation.name": "SELECT",
        "db.query.text": event.sql_run if event.sql_run is not None else event.sql,
        "sqlagent.query.outcome": event.outcome,
    }
    if event.tables:
        attributes["db.collection.name"] = event.tables[0]
    if event.row_count is not None:
        attributes["db.response.returned_rows"] = event.row_count
    if event.reason:
        attributes["sqlagent.query.reason"] = event.reason
    if event.outcome in ("error", "timeout"):
        attributes["error.type"] = event.outcome
    return attributes
