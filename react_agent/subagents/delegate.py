"""The delegate tool: sub-questions answered concurrently by isolated SQL sub-agents."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, InjectedToolCallId, StructuredTool
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import InjectedState
from pydantic import BaseModel, Field

from react_agent.errors import classify_exception
from react_agent.graph.run_context import run_context
from react_agent.runs.events.event_sink import current_event_sink
from react_agent.subagents.bounds import (
    DELEGATE,
    DelegateLimits,
    SubquestionQuota,
    delegate_refusal,
    delegated_before,
)
from react_agent.subagents.subagent_run import (
    SubagentOutcome,
    run_subagent,
    subagent_config,
    sum_usage,
)

DELEGATE_DESCRIPTION = """Hand independent parts of the question to SQL sub-agents that \
work at the same time. Use it when the question has two or more parts that can be answered \
separately (e.g. compare two years AND list the top products per region); answer simple \
questions yourself. Each sub-agent sees only its own sub-question (not this conversation), \
so write each one out in full. You get each sub-agent's answer, its SQL and the result_id \
of each result (read_result reads them). At most {max_tasks} tasks per call, and \
{max_per_question} per question in all."""

logger = logging.getLogger(__name__)


class SubQuestion(BaseModel):
    """One part of the question for one sub-agent."""

    description: str = Field(description="A short label of this part, e.g. '2024 vs 2025'.")
    question: str = Field(description="The sub-question in full, answerable on its own.")


class DelegateInput(BaseModel):
    """The delegate tool's arguments."""

    tasks: list[SubQuestion] = Field(min_length=1, description="The sub-questions.")
    tool_call_id: Annotated[str, InjectedToolCallId]
    state: Annotated[dict[str, Any], InjectedState] = Field(default_factory=dict)


DELEGATION_OFF_UNDER_APPROVAL = (
    "Error: delegation is off while each query needs a person's approval. "
    "Answer the parts yourself, one query at a time, with run_sql."
)


def build_delegate_tool(
    subagent_graph: CompiledStateGraph,
    *,
    max_parallel: int,
    recursion_limit: int,
    limits: DelegateLimits | None = None,
    quota: SubquestionQuota | None = None,
) -> BaseTool:
    """Return the delegate tool over the sub-agent graph (which has no delegate tool).

    Args:
        subagent_graph: The SQL agent graph the sub-agents run, compiled without a
            checkpointer of its own (it keeps its state under the parent thread).
        max_parallel: Most sub-agents of one call that run at the same time.
        recursion_limit: Each sub-agent's step limit.
        limits: Most tasks per call and per question (default 5 and 10); a call over them
            is a tool error.
        quota: Counts each sub-question against the asker's question quota (None: none).

    """
    limits = limits or DelegateLimits()

    async def delegate(
        tasks: list[SubQuestion],
        tool_call_id: Annotated[str, InjectedToolCallId],
        config: RunnableConfig,
        state: Annotated[dict[str, Any] | None, InjectedState] = None,
    ) -> ToolMessage:
        context = run_context()  # the sub-agents run with the run's language
        if context.approve_sql:
            # Sub-agents run their SQL without stopping; a run whose queries each need a
            # person's approval must not hand any to them.
            return _refused(DELEGATION_OFF_UNDER_APPROVAL, tool_call_id)
        before = delegated_before(state or {}, tool_call_id, limits.max_tasks)
        refusal = delegate_refusal(len(tasks), before, limits)
        if refusal is not None:
            return _refused(refusal, tool_call_id)
        gate = asyncio.Semaphore(max_parallel)
        outcomes = [
            SubagentOutcome(
                {"id": f"{tool_call_id}-{n}", "description": task.description}, task.question
            )
            for n, task in enumerate(tasks, start=1)
        ]
        for outcome in outcomes:  # each sub-question is a question of the asker's quota
            outcome.refused = await quota.take() if quota is not None else None

        async def answer(outcome: SubagentOutcome) -> SubagentOutcome:
            async with gate:
                sub_config = subagent_config(config, outcome.subagent["id"], recursion_limit)
                try:
                    return await run_subagent(
                        subagent_graph, outcome, sub_config, current_event_sink(), context
                    )
                except Exception as exc:  # one failing sub-agent is that task's result
                    error = classify_exception(exc)
                    if error.error_type == "DATABASE_UNAVAILABLE":
                        raise error from exc  # an outage ends the question, as in the parent
                    logger.warning("sub-agent %s failed: %s", outcome.subagent["id"], exc)
                    outcome.error = error.detail
                    return outcome

        # Awaited here, in the tool call: cancelling the run cancels every sub-agent.
        await asyncio.gather(*(answer(o) for o in outcomes if o.refused is None))
        return delegate_message(outcomes, tool_call_id)

    return StructuredTool.from_function(
        coroutine=delegate,
        name=DELEGATE,
        description=DELEGATE_DESCRIPTION.format(
            max_tasks=limits.max_tasks, max_per_question=limits.max_per_question
        ),
        args_schema=DelegateInput,
    )


def _refused(reason: str, tool_call_id: str) -> ToolMessage:
    """Return the delegate call's error result: nothing was delegated, for `reason`."""
    return ToolMessage(content=reason, tool_call_id=tool_call_id, name=DELEGATE, status="error")


def delegate_message(outcomes: list[SubagentOutcome], tool_call_id: str) -> ToolMessage:
    """Return the delegate tool's one result: each sub-agent's answer and its SQL.

    The artifact carries the sub-agents' run_sql results (`results`, read by read_result)
    and their statements marked with `subagent` (`sqls`, for the final data).
    """
    parts = [_describe(n, outcome) for n, outcome in enumerate(outcomes, start=1)]
    artifact: dict[str, Any] = {
        "outcome": "delegated",
        "tasks": [
            {
                **outcome.subagent,
                "answer": outcome.answer,
                "error": outcome.error or outcome.refused,
            }
            for outcome in outcomes
        ],
        "started": sum(outcome.refused is None for outcome in outcomes),
        "sqls": [entry for outcome in outcomes for entry in outcome.sqls],
        "results": [result for outcome in outcomes for result in outcome.results],
    }
    usage = sum_usage(outcome.usage for outcome in outcomes if outcome.usage)
    if usage:
        artifact["usage_metadata"] = usage  # added to the turn's usage (runs/execution/turn_work)
    return ToolMessage(
        content="\n\n".join(parts),
        tool_call_id=tool_call_id,
        name=DELEGATE,
        artifact=artifact,
    )


def _describe(number: int, outcome: SubagentOutcome) -> str:
    head = f"[{number}] {outcome.subagent['description']}"
    if outcome.refused is not None:
        return f"{head}\nError: not asked ({outcome.refused}). Answer it yourself or say so."
    if outcome.error is not None:
        return f"{head}\nError: this sub-agent failed: {outcome.error}"
    lines = [head, f"Answer: {outcome.answer or '(no answer)'}"]
    for entry in outcome.sqls:
        if entry["status"] == "ok":
            found = f"result_id: {entry['result_id']} ({entry['row_count']} rows)"
            lines.append(f"SQL: {entry['sql']} -> {found}")
        else:
            lines.append(f"SQL ({entry['status']}): {entry['sql']}")
    return "\n".join(lines)
