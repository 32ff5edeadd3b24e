"""Choosing which whole turns of a conversation the model sees."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AnyMessage, HumanMessage
from langchain_core.messages.utils import count_tokens_approximately


def split_turns(messages: Sequence[AnyMessage]) -> list[list[AnyMessage]]:
    """Split a conversation into turns, each starting at a human message."""
    turns: list[list[AnyMessage]] = []
    for message in messages:
        if isinstance(message, HumanMessage) or not turns:
            turns.append([])
        turns[-1].append(message)
    return turns


def select_context_start(messages: Sequence[AnyMessage], *, max_turns: int, max_tokens: int) -> int:
    """Return the index of the first message the model should see.

    Keeps the newest `max_turns` turns, then drops the oldest kept turns while the total
    is over `max_tokens`; the current turn is always kept whole, so no tool call is ever
    separated from its result.
    """
    turns = split_turns(messages)
    kept = turns[-max_turns:]
    sizes = [count_tokens_approximately(turn) for turn in kept]
    while len(kept) > 1 and sum(sizes) > max_tokens:
        kept.pop(0)
        sizes.pop(0)
    return len(messages) - sum(len(turn) for turn in kept)
