"""The sub-agents part of a thread's status: where each sub-agent of a running delegate is.

Read by the agent service's conversations from the sub-agents' checkpoints under the thread
(not from the run's events): every run writes them, streamed or not, on whichever worker
runs it, and they outlive the process; the run event store holds streamed runs only.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AnyMessage

from config import node_display
from react_agent.service.conversations import Conversations


async def running_subagents(
    conversations: Conversations, thread_id: str, messages: list[AnyMessage], lang: str | None
) -> list[dict[str, Any]]:
    """Return the sub-agents of the running delegate call, each with its step's display."""
    progress = await conversations.running_subagents(thread_id, messages)
    for entry in progress:
        display = node_display(entry["node"], lang)
        entry.update(name=display["display_name"], icon=display["icon"])
    return progress
