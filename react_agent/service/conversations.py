"""The conversations the agent keeps, for the web layer: list, read, rename, delete, pauses.

The one way app/ reaches a thread's checkpoints: it never holds the compiled graph or its
checkpointer (tests/test_architecture.py checks it), so where and how conversations are
kept can change behind these methods.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AnyMessage, HumanMessage

from react_agent.approval.pending import pending_approval
from react_agent.conversations.continuation import find_continued_thread
from react_agent.conversations.history import read_conversation
from react_agent.conversations.thread_index import (
    count_thread_checkpoints,
    count_user_threads,
    list_thread_ids,
    namespaces_containing,
)
from react_agent.graph.messages import message_text
from react_agent.runs.runner import AgentRunner
from react_agent.subagents.progress import running_delegations, subagent_progress
from react_agent.subagents.subagent_run import SUBAGENT_NAMESPACE

SEARCH_SCAN_LIMIT = 200
"""How many of a user's newest conversations a search looks through."""


@dataclass(frozen=True)
class ConversationPage:
    """A user's newest conversations (thread id, conversation), and how many they have."""

    conversations: list[tuple[str, dict[str, Any]]]
    total_count: int


class Conversations:
    """A user's conversations, kept as checkpoints of the runner's graph.

    Args:
        runner: The runner whose graph (and its checkpointer) holds the conversations.

    """

    def __init__(self, runner: AgentRunner) -> None:
        self._runner = runner
        self._graph = runner.graph

    async def page(self, user_id: str, limit: int, search: str = "") -> ConversationPage:
        """Return up to `limit` of the user's conversations, newest first.

        A non-empty `search` keeps those whose title or a question contains it
        (casefolded), among the user's newest SEARCH_SCAN_LIMIT.
        """
        checkpointer = self._graph.checkpointer
        search = search.strip().casefold()
        scan = SEARCH_SCAN_LIMIT if search else limit
        found: list[tuple[str, dict[str, Any]]] = []
        for thread_id in await list_thread_ids(checkpointer, user_id, scan):
            conversation = await read_conversation(self._graph, thread_id)
            if conversation is not None and matches_search(conversation, search):
                found.append((thread_id, conversation))
            if len(found) == limit:
                break
        return ConversationPage(found, await count_user_threads(checkpointer, user_id))

    async def read(self, thread_id: str) -> dict[str, Any] | None:
        """Return a thread's messages, title, times and pause, or None when it has none."""
        return await read_conversation(self._graph, thread_id)

    async def count_checkpoints(self, thread_id: str) -> int:
        """Return how many checkpoints the thread has."""
        return await count_thread_checkpoints(self._graph.checkpointer, thread_id)

    async def is_running(self, thread_id: str) -> bool:
        """Whether a question runs on the thread now, on any worker."""
        return await self._runner.locks.is_running(thread_id)

    async def rename(self, thread_id: str, title: str | None) -> dict[str, Any] | None:
        """Give the thread a title of its own (None: its first question); return it read back."""
        config = {"configurable": {"thread_id": thread_id}}
        await self._graph.aupdate_state(config, {"custom_title": title})
        return await read_conversation(self._graph, thread_id)

    async def delete(self, thread_id: str) -> None:
        """Delete every checkpoint of the thread, its sub-agents' too."""
        await self._graph.checkpointer.adelete_thread(thread_id)

    async def pending_pause(self, thread_id: str) -> dict[str, Any] | None:
        """Return the pause the thread waits at (SQL to approve, a question), or None."""
        return pending_approval(await self._graph.aget_state(self._runner.config_for(thread_id)))

    async def continued_thread(
        self, user_id: str, questions: list[str], last_reply: str
    ) -> str | None:
        """Return the user's thread whose questions are `questions` and whose answer ends it."""
        return await find_continued_thread(self._graph, user_id, questions, last_reply)

    async def running_subagents(
        self, thread_id: str, messages: list[AnyMessage]
    ) -> list[dict[str, Any]]:
        """Return where each sub-agent of the thread's running delegate call is.

        Read from the sub-agents' checkpoints under the thread (not from the run's events):
        every run writes them, streamed or not, on whichever worker runs it.
        """
        subagents = running_delegations(messages)
        if not subagents:
            return []
        checkpointer = self._graph.checkpointer
        calls = {subagent["id"].rpartition("-")[0] for subagent in subagents}
        namespaces = [
            namespace
            for call_id in sorted(calls)
            for namespace in await namespaces_containing(
                checkpointer, thread_id, f"{SUBAGENT_NAMESPACE}:{call_id}-"
            )
        ]
        return await subagent_progress(checkpointer, thread_id, subagents, namespaces)


def matches_search(conversation: dict[str, Any], search: str) -> bool:
    """Whether a conversation's title or one of its questions contains `search` (casefolded)."""
    if not search:
        return True
    texts = [conversation["title"]] + [
        message_text(m) for m in conversation["messages"] if isinstance(m, HumanMessage)
    ]
    return any(search in text.casefold() for text in texts)
