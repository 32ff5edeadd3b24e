"""A run's trace, built from its events: run → graph nodes → model calls, queries, sub-agents.

A listener (runs/events/listeners) that notes each event with its time and, when the run ends,
writes the spans with those times: a node's span ends at its NodeFinished and starts at
the previous one of its graph; a model call or a query belongs to the node running when
it was reported; a sub-agent's nodes nest in a span of the sub-agent, inside the parent's
node that ran it. Noting costs one tuple per event; the spans are made once per run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer

from react_agent.observability.run_metrics import run_outcome
from react_agent.observability.span_attributes import (
    model_span_attributes,
    query_span_attributes,
    query_span_name,
)
from react_agent.observability.tracing import tracer
from react_agent.runs.events.events import NodeFinished, RunFailed, RunFinished, RunStarted
from react_agent.runs.events.listeners import ListenedRun, ModelCalled, QueryFinished, RunAccepted


@dataclass
class _Node:
    """A finished node of one graph (the run's or a sub-agent's), with what ran inside it."""

    name: str
    start: int
    end: int
    step: int
    calls: list[tuple[int, Any]] = field(default_factory=list)
    subagents: list[_Subagent] = field(default_factory=list)


@dataclass
class _Subagent:
    """A sub-agent's nodes, in order."""

    tag: dict[str, str]
    start: int
    nodes: list[_Node] = field(default_factory=list)


@dataclass
class _RunTrace:
    """What one run's trace is built from."""

    parent: otel_context.Context
    created: int
    question: str
    boundary: dict[str, int] = field(default_factory=dict)
    pending: dict[str, list[tuple[int, Any]]] = field(default_factory=dict)
    nodes: list[_Node] = field(default_factory=list)
    subagents: dict[str, _Subagent] = field(default_factory=dict)
    unplaced: list[_Subagent] = field(default_factory=list)
    """Sub-agents not yet inside a node of the run's graph (its node is still running)."""


MAIN = ""
"""The lane of the run's own graph; a sub-agent's lane is its id."""


class RunTracing:
    """Writes each run's spans when it ends (see the module docstring)."""

    def __init__(self) -> None:
        self._runs: dict[str, _RunTrace] = {}
        # Once: the SDK builds a new Tracer (and compares scopes) on every get_tracer.
        self._tracer = tracer()

    def on_run_event(self, run: ListenedRun, event: Any) -> None:
        """Note the event; at the run's end, write its spans."""
        now = time.time_ns()
        if isinstance(event, RunAccepted):
            # In the request's context: its span (if any) is the run's parent.
            self._runs[run.run_id] = _RunTrace(otel_context.get_current(), now, event.question)
            return
        noted = self._runs.get(run.run_id)
        if noted is None:
            return
        if isinstance(event, RunStarted):
            noted.boundary[MAIN] = now
        elif isinstance(event, ModelCalled | QueryFinished):
            noted.pending.setdefault(_lane(event.subagent), []).append((now, event))
        elif isinstance(event, NodeFinished):
            self._node_finished(noted, event, now)
        elif isinstance(event, RunFinished | RunFailed):
            del self._runs[run.run_id]
            _write_run(self._tracer, run, noted, event, now)

    def _node_finished(self, noted: _RunTrace, event: NodeFinished, now: int) -> None:
        lane = _lane(event.subagent)
        start = noted.boundary.get(lane, noted.boundary.get(MAIN, noted.created))
        node = _Node(event.node, start, now, event.step, noted.pending.pop(lane, []))
        noted.boundary[lane] = now
        if lane == MAIN:
            node.subagents, noted.unplaced = noted.unplaced, []
            noted.nodes.append(node)
            return
        assert event.subagent is not None
        subagent = noted.subagents.get(lane)
        if subagent is None:
            subagent = noted.subagents[lane] = _Subagent(event.subagent, start)
            noted.unplaced.append(subagent)
        subagent.nodes.append(node)


def _lane(subagent: dict[str, str] | None) -> str:
    return (subagent or {}).get("id", "?") if subagent is not None else MAIN


def _write_run(
    tracer: Tracer, run: ListenedRun, noted: _RunTrace, event: RunFinished | RunFailed, now: int
) -> None:
    outcome = run_outcome(event)
    span = tracer.start_span(
        "invoke_agent sql_react_agent",
        context=noted.parent,
        kind=SpanKind.INTERNAL,
        start_time=noted.created,
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "sql_react_agent",
            "sqlagent.run_id": run.run_id,
            "sqlagent.thread_id": run.thread_id,
            "sqlagent.user_id": run.thread_id.split(":", 1)[0],
            "sqlagent.outcome": outcome,
        },
    )
    if isinstance(event, RunFailed):
        span.set_attribute("error.type", event.error.error_type)
        if outcome == "failed":
            span.set_status(Status(StatusCode.ERROR, event.error.detail))
    parent = trace.set_span_in_context(span)
    for node in noted.nodes:
        _write_node(tracer, node, parent)
    # What a cancelled or failed run left unfinished belongs to the run itself.
    for subagent in noted.unplaced:
        _write_subagent(tracer, subagent, parent, now)
    for lane_calls in noted.pending.values():
        _write_calls(tracer, lane_calls, parent)
    span.end(end_time=now)


def _write_node(tracer: Tracer, node: _Node, parent: otel_context.Context) -> None:
    span = tracer.start_span(
        f"node {node.name}",
        context=parent,
        start_time=node.start,
        attributes={"langgraph.node": node.name, "langgraph.step": node.step},
    )
    inside = trace.set_span_in_context(span)
    _write_calls(tracer, node.calls, inside)
    for subagent in node.subagents:
        _write_subagent(tracer, subagent, inside, node.end)
    span.end(end_time=node.end)


def _write_subagent(
    tracer: Tracer, subagent: _Subagent, parent: otel_context.Context, end: int
) -> None:
    last = subagent.nodes[-1].end if subagent.nodes else end
    span = tracer.start_span(
        "invoke_agent sql_subagent",
        context=parent,
        start_time=subagent.start,
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "sql_subagent",
            "gen_ai.agent.id": subagent.tag.get("id", ""),
            "gen_ai.agent.description": subagent.tag.get("description", ""),
        },
    )
    inside = trace.set_span_in_context(span)
    for node in subagent.nodes:
        _write_node(tracer, node, inside)
    span.end(end_time=last)


def _write_calls(
    tracer: Tracer, calls: list[tuple[int, Any]], parent: otel_context.Context
) -> None:
    for end, event in calls:
        start = end - int(event.seconds * 1e9)
        if isinstance(event, ModelCalled):
            span = tracer.start_span(
                f"chat {event.model}",
                context=parent,
                kind=SpanKind.CLIENT,
                start_time=start,
                attributes=model_span_attributes(event),
            )
            failed = event.outcome == "error"
        else:
            span = tracer.start_span(
                query_span_name(event),
                context=parent,
                kind=SpanKind.CLIENT,
                start_time=start,
                attributes=query_span_attributes(event),
            )
            failed = event.outcome in ("error", "timeout")
        if failed:
            span.set_status(Status(StatusCode.ERROR, getattr(event, "reason", None) or "error"))
        span.end(end_time=end)
