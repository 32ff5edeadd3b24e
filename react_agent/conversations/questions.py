"""The user's questions in a conversation: the first names it, the last previews it."""

from __future__ import annotations

from langchain_core.messages import AnyMessage, HumanMessage

from react_agent.graph.messages import message_text

CONVERSATION_TITLE_CHARS = 50
"""The replaced service's title: the first question's first 50 characters, then `...`."""


def user_questions(messages: list[AnyMessage]) -> list[str]:
    """Return the text of the user's questions, oldest first."""
    return [message_text(m).strip() for m in messages if isinstance(m, HumanMessage)]


def conversation_title(messages: list[AnyMessage]) -> str:
    """Return the first question, cut to 50 characters plus `...` when longer."""
    questions = user_questions(messages)
    first = questions[0] if questions else ""
    if len(first) <= CONVERSATION_TITLE_CHARS:
        return first
    return first[:CONVERSATION_TITLE_CHARS] + "..."


def last_question(messages: list[AnyMessage]) -> str:
    """Return the user's newest question, in full ("" when there is none)."""
    questions = user_questions(messages)
    return questions[-1] if questions else ""
