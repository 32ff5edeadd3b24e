"""A policy for the OpenAI stub that scripts each conversation apart, by its first question.

Sub-agents start with only their sub-question and run at the same time, so their requests
reach the stub in any order; the stub's own queue answers in arrival order. With this
policy (``stub.default_policy = RoutedReplies(...)``, queue left empty) every request gets
the next reply of the script of its conversation, named by the request's first user
message, however the conversations interleave::

    stub.default_policy = RoutedReplies(
        {"sub-question 1": [Reply(tool_calls=[...]), Reply(text="…")]},
        parent=[Reply(tool_calls=[ToolCall("delegate", {...})]), Reply(text="…")],
    )
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from typing import Any

from tests.support.openai_stub import Policy, Reply, default_policy, message_text


def first_question(body: dict[str, Any]) -> str:
    """Return the text of a chat-completions request's first user message ('' if none)."""
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "user":
            return message_text(message)
    return ""


class RoutedReplies:
    """Answers a request from the script of its first question, else from `parent`.

    A conversation whose script has run out (or that has none and no `parent` script left)
    gets `fallback`'s reply. Handler threads call it concurrently, hence the lock.
    """

    def __init__(
        self,
        routes: dict[str, Sequence[Reply]],
        *,
        parent: Sequence[Reply] = (),
        fallback: Policy = default_policy,
    ) -> None:
        self._scripts = {question: deque(replies) for question, replies in routes.items()}
        self._parent = deque(parent)
        self._fallback = fallback
        self._lock = threading.Lock()
        self.routed: list[str] = []
        """The route of each request answered, in arrival order ('parent' for the parent)."""

    def __call__(self, body: dict[str, Any]) -> Reply:
        question = first_question(body)
        with self._lock:
            route = question if question in self._scripts else "parent"
            self.routed.append(route)
            script = self._scripts.get(question, self._parent)
            if script:
                return script.popleft()
        return self._fallback(body)
