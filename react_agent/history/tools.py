"""The history tools the model calls: search, read and list the turns of its conversation."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.tools import BaseTool, tool
from langgraph.prebuilt import InjectedState

from react_agent.graph.messages import message_text
from react_agent.history.blocks import is_finished, thread_blocks, turn_messages
from react_agent.history.index import index_page
from react_agent.history.search import rank_blocks

SEARCH_HISTORY = "search_history"
READ_HISTORY = "read_history"
LIST_HISTORY = "list_history"
MAX_SEARCH_RESULTS = 10
MAX_LIST_LINES = 50


def build_history_tools(dialect: str | None) -> list[BaseTool]:
    """Return the history tools, reading the conversation from the graph's state."""
    return HistoryTools(dialect).as_tools()


@dataclass(frozen=True)
class HistoryTools:
    """The history tools; each docstring is what the model reads.

    Args:
        dialect: The SQL dialect, to read the tables of turns that have no block yet.

    """

    dialect: str | None = None

    def as_tools(self) -> list[BaseTool]:
        """Return the tools the model is given, in the order it is shown them."""
        return [
            tool(SEARCH_HISTORY)(self.search_history),
            tool(READ_HISTORY)(self.read_history),
            tool(LIST_HISTORY)(self.list_history),
        ]

    def blocks(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        """Return every finished turn's block of the conversation in `state`."""
        return thread_blocks(
            state.get("messages", []), state.get("history_blocks", []), self.dialect
        )

    async def search_history(
        self, query: str, state: Annotated[dict[str, Any], InjectedState], limit: int = 3
    ) -> str:
        """Find earlier turns of this conversation and return them in full.

        query: words (Chinese or English), table or column names, or result ids. Each turn
        found comes with its question, SQL with result_id and row count, tables and a
        summary of the answer. limit is at most 10.
        """
        blocks = self.blocks(state)
        answers = _answers(state.get("messages", []), blocks)
        ranked = rank_blocks(query, blocks, answers, min(max(1, limit), MAX_SEARCH_RESULTS))
        if not ranked:
            return f"No earlier turn matches {query!r} ({len(blocks)} turns searched)."
        return "\n".join(json.dumps(block, ensure_ascii=False) for _, block in ranked)

    async def read_history(
        self, block_id: str, state: Annotated[dict[str, Any], InjectedState]
    ) -> str:
        """Return the original messages of an earlier turn by its block_id (e.g. turn-3).

        That is the question, each tool call with its SQL, the result preview and the answer.
        """
        block = next((b for b in self.blocks(state) if b["block_id"] == block_id), None)
        if block is None:
            return f"Error: no turn {block_id!r}. Call list_history or search_history for ids."
        messages = turn_messages(state.get("messages", []), block["turn"])
        return "\n".join([f"{block_id} ({block.get('time')}):", *map(_describe, messages)])

    async def list_history(
        self, state: Annotated[dict[str, Any], InjectedState], offset: int = 0, limit: int = 20
    ) -> str:
        """List the earlier turns of this conversation, newest first, one line each.

        Each line has the turn's block_id, time, question, tables and result ids. Page with
        offset; limit is at most 50.
        """
        limit = min(max(1, limit), MAX_LIST_LINES)
        return index_page(self.blocks(state), max(0, offset), limit)


def _answers(messages: Sequence[AnyMessage], blocks: Sequence[dict[str, Any]]) -> dict[str, str]:
    answers = {}
    for block in blocks:
        turn = turn_messages(messages, block["turn"])
        if turn and is_finished(turn):
            answers[block["block_id"]] = message_text(turn[-1])
    return answers


def _describe(message: AnyMessage) -> str:
    if isinstance(message, HumanMessage):
        return f"User: {message_text(message)}"
    if isinstance(message, SystemMessage):  # the answer check's repair request
        return f"Service: {message_text(message)}"
    if isinstance(message, ToolMessage):
        return f"Tool {message.name} result:\n{message_text(message)}"
    if isinstance(message, AIMessage) and message.tool_calls:
        calls = "; ".join(
            f"{call['name']}({json.dumps(call['args'], ensure_ascii=False)})"
            for call in message.tool_calls
        )
        text = message_text(message)
        return f"Assistant calls {calls}" + (f" — {text}" if text else "")
    return f"Assistant: {message_text(message)}"
