"""Reading the chat-completions requests the stub LLM received: questions and tool calls."""

from __future__ import annotations

from typing import Any


def message_text(message: dict[str, Any]) -> str:
    """Return the text of a request message whose content may be a list of parts."""
    content = message.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def user_questions(request: dict[str, Any]) -> list[str]:
    """Return the texts of the user messages of a request, oldest first."""
    return [message_text(m) for m in request["messages"] if m.get("role") == "user"]


def unanswered_tool_call_ids(request: dict[str, Any]) -> list[str]:
    """Return the ids of assistant tool calls that no later `tool` message answers.

    The OpenAI API refuses a request with any such call, so a thread whose history
    produces one can never be asked anything again.
    """
    answered = {m.get("tool_call_id") for m in request["messages"] if m.get("role") == "tool"}
    return [
        call["id"]
        for message in request["messages"]
        if message.get("role") == "assistant"
        for call in message.get("tool_calls") or []
        if call["id"] not in answered
    ]


def tool_results(request: dict[str, Any]) -> list[str]:
    """Return the contents of the `tool` messages of a request, oldest first."""
    return [message_text(m) for m in request["messages"] if m.get("role") == "tool"]
