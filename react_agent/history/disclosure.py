"""Progressive disclosure: what of the history the model sees, and the graph's history hooks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.messages import AnyMessage

from react_agent.history.blocks import latest_block, missing_blocks, turn_of_message
from react_agent.history.index import index_section

HistoryMode = Literal["blocks", "window"]

DISCLOSED_TURNS = 2
"""Whole turns the model sees in blocks mode: the latest finished one and the current one."""


@dataclass(frozen=True)
class TurnHistory:
    """The graph's history hooks, for one mode.

    Args:
        mode: `blocks` (index of earlier turns plus the latest turn in full) or `window`
            (the newest whole turns, as trimming chose them before blocks existed).
        index_max: Most index lines in the prompt (blocks mode).
        dialect: The SQL dialect, to read the tables of a turn's queries.

    """

    mode: HistoryMode = "blocks"
    index_max: int = 20
    dialect: str | None = None

    def context_turns(self, window_turns: int) -> int:
        """Return how many newest whole turns the model sees (within the token budget).

        Blocks mode shows at most DISCLOSED_TURNS, and never more than the window would.
        """
        return min(DISCLOSED_TURNS, window_turns) if self.mode == "blocks" else window_turns

    def backfill(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        """Return blocks for finished turns that have none (threads older than blocks)."""
        return missing_blocks(state["messages"], state.get("history_blocks", []), self.dialect)

    def record(self, messages: Sequence[AnyMessage]) -> dict[str, Any]:
        """Return the block of the turn that has just finished, the newest in `messages`."""
        return latest_block(messages, self.dialect)

    def prompt_section(self, state: dict[str, Any]) -> str:
        """Return what the system prompt adds about earlier turns ('' in window mode)."""
        if self.mode != "blocks":
            return ""
        first_visible = turn_of_message(state["messages"], state.get("context_start_id"))
        blocks = state.get("history_blocks", [])
        section = index_section(blocks, first_visible, self.index_max)
        return "\n\n" + section if section else ""

    def results_source(
        self, state: dict[str, Any], visible: Sequence[AnyMessage]
    ) -> Sequence[AnyMessage]:
        """Return the messages whose results the prompt lists.

        In blocks mode the index names the older turns' results, so the list holds only
        those of the turns shown in full.
        """
        return visible if self.mode == "blocks" else state["messages"]
