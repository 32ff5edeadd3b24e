"""The model's input in two parts: a stable prefix for the thread, then each question's context.

Everything the same for every question of a thread (the system prompt, the tools, the
schema, the notes) is the first message, byte for byte the same on every call. What a
question adds (its examples, value links or retrieved tables, the index of earlier turns,
the results so far, the time) is made once, at its first model call, kept in the state by
the question's message id, and sent as a system message just before that question, then
and in every later request of the thread. So each request starts with the previous one,
and a provider's prefix cache (OpenAI, DeepSeek, Qwen) serves most of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from langchain_core.messages import AnyMessage, HumanMessage, SystemMessage

MAX_KEPT_CONTEXTS = 64
"""Questions whose context a thread keeps (older questions are trimmed from the window)."""


def keep_contexts(
    left: Mapping[str, str] | None, right: Mapping[str, str] | None
) -> dict[str, str]:
    """Reduce the questions' contexts: add the new ones, keep the newest MAX_KEPT_CONTEXTS."""
    merged = {**(left or {}), **(right or {})}
    return dict(list(merged.items())[-MAX_KEPT_CONTEXTS:])


def last_question(messages: Sequence[AnyMessage]) -> HumanMessage | None:
    """Return the newest person's message (the question being answered), if any."""
    return next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)


def with_question_contexts(
    stable: str, context: Sequence[AnyMessage], contexts: Mapping[str, str]
) -> list[AnyMessage]:
    """Return the request: the stable prompt, then `context`, each question's context before it.

    A question without one (asked before #48) has none.
    """
    messages: list[AnyMessage] = [SystemMessage(stable)]
    for message in context:
        made = contexts.get(message.id or "") if isinstance(message, HumanMessage) else None
        if made:
            messages.append(SystemMessage(made))
        messages.append(message)
    return messages
