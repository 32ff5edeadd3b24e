"""The sub-agents part of a thread's status: where each sub-agent of a running delegate is.

Read from the sub-agents' checkpoints under the thread (not from the run's events): every
run writes them, streamed or not, on whichever worker runs it, and they outlive the
process; the run event store holds streamed runs only, by run id, for a while.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AnyMessage

from config import node_display
from react_agent.conversations.thread_index import namespaces_containing
from react_agent.runs.runner import AgentRunner
from react_agent.subagents.progress import running_delegations, subagent_progress
from react_agent.subagents.subagent_run import SUBAGENT_NAMESPACE


async def running_subagents(
    runner: AgentRunner, thread_id: str, messages: list[AnyMessage], lang: str | None
) -> list[dict[str, Any]]:
    """Return the sub-agents of the running delegate call, read from their checkpoints."""
    subagents = running_delegations(messages)
    if not subagents:
        return []
    checkpointer = runner.graph.checkpointer
    calls = {subagent["id"].rpartition("-")[0] for subagent in subagents}
    namespaces = [
        namespace
        for call_id in sorted(calls)
        for namespace in await namespaces_containing(
            checkpointer, thread_id, f"{SUBAGENT_NAMESPACE}:{call_id}-"
        )
    ]
    progress = await subagent_progress(checkpointer, thread_id, subagents, namespaces)
    for entry in progress:
        display = node_display(entry["node"], lang)
        entry.update(name=display["display_name"], icon=display["icon"])
    return progress
