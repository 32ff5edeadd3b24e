"""Answering one question on a claimed thread: the graph streamed, its events and its result."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Durability

from react_agent.approval.decisions import SQL_APPROVAL_KIND, ApprovalDecision
from react_agent.approval.pending import INTERRUPT_UPDATE, describe_interrupt
from react_agent.databases.fair_share import ASKER
from react_agent.graph.run_context import RunContext
from react_agent.runs.events.event_sink import CURRENT_EVENT_SINK, EventSink
from react_agent.runs.events.events import RunResult, RunStarted, TokenStreamed
from react_agent.runs.events.tool_events import ToolEventTracker
from react_agent.runs.execution.answer_review import AnswerChecker, review_answer
from react_agent.runs.execution.graph_io import (
    answer_token,
    graph_input_for,
    new_thread_snapshot,
    node_finished,
)
from react_agent.runs.execution.turn_work import TurnWork
from react_agent.runs.run import Run
from react_agent.runs.run_flags import RunFlags
from react_agent.runs.run_scope import scope_of_run


@dataclass(frozen=True)
class GraphTurn:
    """What answering a question needs of the runner: its graph and how it runs it."""

    graph: CompiledStateGraph
    config: dict[str, Any]
    """The thread's graph config (AgentRunner.config_for)."""
    run_timeout: float
    durability: Durability
    check_answer: AnswerChecker | None


async def answer_question(
    turn: GraphTurn,
    run: Run,
    question: str | ApprovalDecision,
    stream_tokens: bool,
    flags: RunFlags,
) -> RunResult:
    """Stream the graph for one question on a claimed thread; return the turn's result.

    Appends the run's events (started, node by node, tool events, tokens) to its log as
    they happen; raises TimeoutError past the turn's run_timeout.
    """
    if isinstance(question, ApprovalDecision) and question.kind == SQL_APPROVAL_KIND:
        # A resumed approval asks again: the model's next query waits as well.
        flags = replace(flags, approve_sql=True)
    path: list[str] = []
    approval: dict[str, Any] | None = None
    # The thread is claimed, so the run has started: say so before any slower step.
    run.append(RunStarted(run.thread_id))
    # Sub-agents (react_agent/subagents) add their own events to the run through it.
    CURRENT_EVENT_SINK.set(
        EventSink(run.append, stream_tokens, lambda: len(path), report=run.report)
    )
    # Whose turn the run's statements take on a busy data source (databases/fair_share).
    ASKER.set(run.actor.user_id if run.actor else run.thread_id.split(":", 1)[0])
    async with asyncio.timeout(turn.run_timeout):
        if flags.new_thread:
            snapshot = new_thread_snapshot(turn.config)
        else:
            snapshot = await turn.graph.aget_state(turn.config)
        graph_input, tally = graph_input_for(snapshot, question, run.lang)
        scope = scope_of_run(run, snapshot, graph_input)
        if scope.approve_sql:  # the role's approval holds on a resume too
            flags = replace(flags, approve_sql=True)
        context = RunContext(run.lang, flags.approve_sql, flags.clarify)
        tool_events = ToolEventTracker()  # tool_call / tool_result (runs/events/tool_events.py)
        work = TurnWork()  # sqls and usage (runs/execution/turn_work.py)
        modes = ["updates", "messages"] if stream_tokens else ["updates"]
        async for mode, chunk in turn.graph.astream(
            graph_input, turn.config, context=context, stream_mode=modes, durability=turn.durability
        ):
            if mode == "updates":
                for node, update in chunk.items():
                    if node == INTERRUPT_UPDATE:
                        approval = describe_interrupt(update)
                        continue
                    path.append(node)
                    tally.add(update)
                    work.add(update)
                    run.append(node_finished(node, len(path), update))
                    # Tool events come after their node's event (runs/events/tool_events.py).
                    for tool_event in tool_events.events_for(update, len(path)):
                        run.append(tool_event)
            else:
                token = answer_token(chunk)
                if token:
                    run.append(TokenStreamed(token))
    result = tally.result(run.thread_id, path)
    asked = question if isinstance(question, str) else ""
    history = snapshot.values.get("messages", [])
    return replace(
        result,
        sqls=work.sqls,
        lint=work.lint,
        usage=work.usage(),
        question=asked,
        approval=approval,
        answer_check=review_answer(
            turn.check_answer,
            result.answer,
            asked,
            history,
            work.records_read,
            work.sqls,
            repaired_from=tally.values.get("answer_repair"),
        ),
        trace_id=run.trace_id,
        show_sql=scope.show_sql,
    )
