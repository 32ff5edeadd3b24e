"""One sub-agent answering one sub-question: its graph run, its events, and what it found."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from react_agent.graph.messages import stamped
from react_agent.graph.run_context import RunContext
from react_agent.graph.state import new_question_state
from react_agent.runs.events.event_sink import CURRENT_EVENT_SINK, EventSink
from react_agent.runs.events.events import NodeFinished, TokenStreamed
from react_agent.runs.events.tool_events import ToolEventTracker
from react_agent.runs.execution.graph_io import answer_token, tool_names
from react_agent.runs.execution.turn_work import TurnWork
from react_agent.tools.results import result_artifacts

SUBAGENT_NAMESPACE = "sql_subagent"
"""Name part of a sub-agent's checkpoint namespace under the parent thread."""

ATTEMPT_SEPARATOR = "."
"""Between a sub-agent's id and the attempt part of its namespace (see subagent_config)."""


@dataclass
class SubagentOutcome:
    """What one sub-agent found: its answer, statements and results, or its error."""

    subagent: dict[str, str]
    question: str
    answer: str | None = None
    error: str | None = None
    refused: str | None = None
    """Why it was not asked (the asker's quota), or None."""
    sqls: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    """Its model calls' summed token usage, in LangChain's `usage_metadata` names."""


def subagent_input(question: str) -> dict[str, Any]:
    """Return a sub-agent's whole starting state: its sub-question and fresh counters.

    Nothing of the parent's state is passed on: not its messages, history blocks, todo
    state or trimming window, so the sub-agent's context is its sub-question alone.
    """
    return {"messages": [stamped(HumanMessage(question))], **new_question_state()}


def subagent_config(
    config: RunnableConfig, subagent_id: str, recursion_limit: int
) -> RunnableConfig:
    """Return the config a sub-agent runs with: its own step limit and checkpoint namespace.

    The namespace nests under the calling tool's, so the sub-agent's checkpoints are kept
    in the parent thread (LangGraph subgraph namespaces) apart from its siblings':
    `sql_subagent:<tool_call_id>-<n>.<attempt>`. The attempt part is new on every call, so
    a re-run of the same tool call (a resume of the parent from the checkpoint before its
    tools) starts each sub-agent afresh instead of resuming a stale checkpoint of the
    first attempt, whose finished sub-agents would answer nothing and whose unfinished
    ones would go on with the old messages.
    """
    configurable = dict(config.get("configurable") or {})
    parent_ns = configurable.get("checkpoint_ns") or ""
    attempt = uuid.uuid4().hex[:8]
    own = f"{SUBAGENT_NAMESPACE}:{subagent_id}{ATTEMPT_SEPARATOR}{attempt}"
    configurable["checkpoint_ns"] = f"{parent_ns}|{own}" if parent_ns else own
    return {**config, "configurable": configurable, "recursion_limit": recursion_limit}


async def run_subagent(
    graph: CompiledStateGraph,
    outcome: SubagentOutcome,
    config: RunnableConfig,
    sink: EventSink | None,
    context: RunContext | None = None,
) -> SubagentOutcome:
    """Run the sub-agent's graph to its answer, reporting its steps to the run's sink.

    Its node, tool and token events carry `subagent`; its statements and run_sql results
    are collected into `outcome`. Errors propagate (the delegate tool reports them). It runs
    with the calling run's `context` (graph/run_context: its language).
    """
    tools = ToolEventTracker()
    work = TurnWork()
    stream_tokens = sink is not None and sink.stream_tokens
    modes = ["updates", "messages"] if stream_tokens else ["updates"]
    step = 0
    if sink is not None:
        # What the sub-agent's nodes report themselves (the memory's retrieval) is its own.
        # This runs in the sub-agent's task: the setting stays in that task's context.
        CURRENT_EVENT_SINK.set(replace(sink, steps=lambda: step, subagent=outcome.subagent))
    async for mode, chunk in graph.astream(
        subagent_input(outcome.question), config, context=context, stream_mode=modes
    ):
        if mode == "messages":
            token = answer_token(chunk)
            if token and sink is not None:
                sink.append(TokenStreamed(token, subagent=outcome.subagent))
            continue
        for node, update in chunk.items():
            step += 1
            work.add(update)
            _collect(outcome, update)
            if sink is None:
                continue
            sink.append(NodeFinished(node, step, tool_names(update), outcome.subagent))
            for event in tools.events_for(update, step):
                sink.append(replace(event, subagent=outcome.subagent))
    outcome.sqls = [{**entry, "subagent": outcome.subagent} for entry in work.sqls]
    outcome.usage = sum_usage(work.usage_by_message.values())
    return outcome


def sum_usage(usages: Any) -> dict[str, int]:
    """Return token usages (LangChain's `usage_metadata` names) added up; {} for none."""
    total: dict[str, int] = {}
    for usage in usages:
        for name in ("input_tokens", "output_tokens", "total_tokens"):
            total[name] = total.get(name, 0) + int(usage.get(name) or 0)
    return total


def _collect(outcome: SubagentOutcome, update: Any) -> None:
    if not isinstance(update, dict):
        return
    if update.get("final_answer") is not None:
        outcome.answer = update["final_answer"]
    for message in update.get("messages") or []:
        if isinstance(message, ToolMessage):
            outcome.results.extend(result_artifacts(message))
