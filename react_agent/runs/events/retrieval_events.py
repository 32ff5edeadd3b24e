"""An automatic retrieval of examples, shown in the run's events as a step of its own."""

from __future__ import annotations

import uuid

from react_agent.graph.node_names import RETRIEVE_EXAMPLES
from react_agent.runs.events.event_sink import current_event_sink
from react_agent.runs.events.events import NodeFinished
from react_agent.runs.events.tool_events import ToolCalled, ToolReturned
from react_agent.timestamps import now_timestamp


def report_retrieval(tool_name: str, query: str, ids: list[str], duration_ms: int) -> None:
    """Add the retrieval the agent node made before calling the model to the run's events.

    Not a graph node (a node would cost a superstep and a checkpoint write per question):
    the agent node calls this while it runs, so the events come before that node's own,
    numbered with its step. When examples were found, a `retrieve_examples` step (shown as
    a progress event); always a `tool_call` / `tool_result` pair marked `auto`, with the
    ids found (shown to clients that asked for tool events). Outside a run, nothing.

    Args:
        tool_name: The tool the model would call for the same search (search_examples).
        query: What was searched for: the question.
        ids: The ids of the examples and notes put in the prompt, best first.
        duration_ms: How long the retrieval took.

    """
    sink = current_event_sink()
    if sink is None:
        return
    step = sink.steps() + 1
    if ids:
        sink.append(NodeFinished(RETRIEVE_EXAMPLES, step, [tool_name], sink.subagent))
    call_id = f"auto-{uuid.uuid4().hex[:16]}"
    sink.append(
        ToolCalled(
            tool_call_id=call_id,
            tool_name=tool_name,
            args={"query": query},
            sql=None,
            step=step,
            timestamp=now_timestamp(),
            subagent=sink.subagent,
            auto=True,
        )
    )
    sink.append(
        ToolReturned(
            tool_call_id=call_id,
            tool_name=tool_name,
            status="ok",
            error=None,
            row_count=None,
            columns=None,
            rows=None,
            is_limited=None,
            result_id=None,
            duration_ms=duration_ms,
            step=step,
            timestamp=now_timestamp(),
            subagent=sink.subagent,
            auto=True,
            example_ids=list(ids),
        )
    )
