"""What the runner gives the graph for a question, and what it reads from the graph's stream."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessageChunk, AnyMessage, HumanMessage
from langgraph.types import Command, StateSnapshot

from react_agent.approval.decisions import ApprovalDecision
from react_agent.approval.pending import close_pending_approval, pending_approval
from react_agent.graph.messages import message_text, stamped
from react_agent.graph.node_names import AGENT
from react_agent.graph.state import new_question_state
from react_agent.runs.events.events import NodeFinished
from react_agent.runs.execution.tally import ResultTally
from react_agent.runs.execution.turn_repair import close_unfinished_turn


def new_thread_snapshot(config: dict[str, Any]) -> StateSnapshot:
    """Return the state of a thread that has no checkpoint, as `graph.aget_state` would.

    For a thread minted for its question (RunFlags.new_thread): reading it would cost a
    checkpointer statement or trip to learn that it is empty.
    """
    return StateSnapshot(
        values={},
        next=(),
        config=config,
        metadata=None,
        created_at=None,
        parent_config=None,
        tasks=(),
        interrupts=(),
    )


def graph_input_for(
    snapshot: Any, question: str | ApprovalDecision, lang: str | None
) -> tuple[Any, ResultTally]:
    """Return the graph's input for a question or a resume, and the tally of its result.

    The result is read from the updates, not from the checkpoint afterwards: that would
    load and decode the whole conversation again for every question.
    """
    history: list[AnyMessage] = snapshot.values.get("messages", [])
    if isinstance(question, ApprovalDecision):
        # The question goes on: its per-question fields so far count in its result.
        values = {k: v for k, v in snapshot.values.items() if k != "messages"}
        return Command(resume=question.as_resume_value()), ResultTally(history, values)
    if (pending := pending_approval(snapshot)) is not None:
        # A new question on a paused thread rejects the waiting SQL, leaves the question.
        closing = close_pending_approval(history, lang, pending["kind"])
    else:
        closing = close_unfinished_turn(history, lang)
    graph_input = {
        "messages": [*closing, stamped(HumanMessage(question))],
        **new_question_state(),
    }
    return graph_input, ResultTally(history, graph_input)


def node_finished(node: str, step: int, update: Any) -> NodeFinished:
    """Return the event of a finished node: the tools it ran, the repair turn it asked for."""
    repair = update.get("answer_repair") if isinstance(update, dict) else None
    return NodeFinished(node, step, tool_names(update), answer_repair=repair)


def tool_names(update: Any) -> list[str]:
    """Return the names of the tools whose results a node's update holds."""
    if not isinstance(update, dict):
        return []
    return [
        message.name
        for message in update.get("messages") or []
        if getattr(message, "type", None) == "tool" and message.name
    ]


def answer_token(chunk: Any) -> str:
    """Return the text of a streamed chunk of the agent's answer ('' for other nodes)."""
    message, metadata = chunk
    if metadata.get("langgraph_node") != AGENT or not isinstance(message, AIMessageChunk):
        return ""
    return message_text(message)
