"""Where the sub-agents of a running delegate call are, read from their checkpoints.

Each sub-agent checkpoints under the parent thread in its own namespace (see
subagent_config), after every step with the default durability; its latest checkpoint
says which node it is about to run, how many steps it has done, and whether it failed.
Checkpoints are shared by every worker and outlive the process, unlike a run's events.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.checkpoint.base import BaseCheckpointSaver, Checkpoint

from react_agent.subagents.delegate import DELEGATE
from react_agent.subagents.subagent_run import ATTEMPT_SEPARATOR, SUBAGENT_NAMESPACE

WAITING, RUNNING, COMPLETED, FAILED = "waiting", "running", "completed", "failed"
"""A sub-agent's status: not started yet (SUBAGENTS_MAX_PARALLEL), running, done, failed."""

_ERROR_CHANNEL = "__error__"
"""The channel LangGraph writes a failed task's error to (a pending write)."""
_TRIGGER_PREFIX = "branch:to:"
"""Prefix of the channel whose new version makes a node run next (StateGraph edges)."""
_START = "__start__"
_END = "__end__"


def running_delegations(messages: Sequence[AnyMessage]) -> list[dict[str, str]]:
    """Return `{id, description}` of each sub-agent of the delegate calls now running.

    Those are the calls of the last message when it is the model asking for tools (their
    results are not in yet); ids are `<tool_call_id>-<n>` as the delegate tool gives them.
    """
    last = messages[-1] if messages else None
    if not isinstance(last, AIMessage):
        return []
    subagents = []
    for call in last.tool_calls:
        if call["name"] != DELEGATE:
            continue
        tasks = call["args"].get("tasks") if isinstance(call["args"], dict) else None
        for n, task in enumerate(tasks if isinstance(tasks, list) else [], start=1):
            description = task.get("description") if isinstance(task, dict) else None
            subagents.append({"id": f"{call['id']}-{n}", "description": str(description or "")})
    return subagents


def subagent_id_of(namespace: str) -> str | None:
    """Return the sub-agent id a checkpoint namespace belongs to, or None if no sub-agent's.

    A namespace is `…|sql_subagent:<id>.<attempt>`, where LangGraph may add `|<k>` when a
    tool call runs several graphs.
    """
    prefix = f"{SUBAGENT_NAMESPACE}:"
    for part in reversed(namespace.split("|")):
        if part.startswith(prefix):
            return part.removeprefix(prefix).rpartition(ATTEMPT_SEPARATOR)[0] or None
    return None


async def subagent_progress(
    checkpointer: BaseCheckpointSaver,
    thread_id: str,
    subagents: list[dict[str, str]],
    namespaces: Sequence[str],
) -> list[dict[str, Any]]:
    """Return each sub-agent with its status, the node it is about to run and its step.

    Args:
        checkpointer: The parent graph's checkpointer.
        thread_id: The parent thread.
        subagents: `{id, description}` of the sub-agents (running_delegations).
        namespaces: The thread's sub-agent namespaces (conversations.thread_index); of
            several attempts of one sub-agent the latest counts.

    """
    latest: dict[str, Any] = {}
    for namespace in namespaces:
        subagent_id = subagent_id_of(namespace)
        if subagent_id is None:
            continue
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": namespace}}
        saved = await checkpointer.aget_tuple(config)
        known = latest.get(subagent_id)
        if saved is not None and (known is None or saved.checkpoint["id"] > known.checkpoint["id"]):
            latest[subagent_id] = saved
    return [_progress(subagent, latest.get(subagent["id"])) for subagent in subagents]


def _progress(subagent: dict[str, str], saved: Any) -> dict[str, Any]:
    if saved is None:
        return {**subagent, "status": WAITING, "node": _START, "step": 0}
    step = max(int(saved.metadata.get("step", 0)), 0)
    following = next_nodes(saved.checkpoint)
    if any(write[1] == _ERROR_CHANNEL for write in saved.pending_writes or []):
        status = FAILED
    else:
        status = RUNNING if following else COMPLETED
    node = following[0] if following else _END
    return {**subagent, "status": status, "node": node, "step": step}


def next_nodes(checkpoint: Checkpoint) -> list[str]:
    """Return the nodes a checkpoint is about to run: those whose trigger has a new version.

    A node runs when its trigger channel (`branch:to:<node>`, or `__start__` for the input)
    holds a value of a version newer than the one the node has seen (a consumed trigger is
    emptied, which gives it a newer version too, but no value).
    """
    seen = checkpoint.get("versions_seen") or {}
    values = checkpoint.get("channel_values") or {}
    found = []
    for channel, version in (checkpoint.get("channel_versions") or {}).items():
        if channel not in values:
            continue
        if channel == _START:
            node = _START
        elif channel.startswith(_TRIGGER_PREFIX):
            node = channel.removeprefix(_TRIGGER_PREFIX)
        else:
            continue
        if _newer(version, (seen.get(node) or {}).get(channel)):
            found.append(node)
    return found


def _newer(version: Any, seen: Any) -> bool:
    if seen is None:
        return True
    if isinstance(version, int) and isinstance(seen, int):
        return version > seen
    return str(version) > str(seen)
