"""Which OpenAI request parameters the agent honours, refuses, or ignores (documented).

The route answers with one agent and its own tools, so a parameter that asks for several
choices, the client's own tools or a structured format cannot be honoured: it gets
OpenAI's 400 naming the parameter rather than a half-done answer. Sampling parameters
(`temperature`, `max_tokens`, `stop` …) concern the agent's model, which the service's
settings choose; they are accepted and ignored, as docs/API.md says.
"""

from __future__ import annotations

from typing import Any

from app.openai_compat.schemas import ChatCompletionRequest
from react_agent.errors import ServiceError

IGNORED_PARAMETERS = (
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "stop",
    "presence_penalty",
    "frequency_penalty",
    "seed",
    "logit_bias",
    "parallel_tool_calls",
    "service_tier",
    "store",
    "reasoning_effort",
)
"""Accepted and ignored: the service's own model settings apply (LLM_TEMPERATURE …)."""

_TOOL_CHOICES_WITHOUT_TOOLS = (None, "none", "auto")


def refuse_unsupported_parameters(body: ChatCompletionRequest) -> None:
    """Raise OpenAI's 400 (its `param` set) for the first parameter the route cannot honour."""
    extra: dict[str, Any] = body.model_extra or {}
    if body.n not in (None, 1):
        _refuse("n", f"n={body.n} is not supported: the agent gives one answer (n=1)")
    if body.tools:
        _refuse("tools", "client-defined tools are not supported: the agent has its own")
    if extra.get("functions"):
        _refuse("functions", "client-defined functions are not supported: the agent has its own")
    if body.tool_choice not in _TOOL_CHOICES_WITHOUT_TOOLS:
        _refuse("tool_choice", "tool_choice may only be 'none' or 'auto' here")
    if extra.get("function_call") not in _TOOL_CHOICES_WITHOUT_TOOLS:
        _refuse("function_call", "function_call may only be 'none' or 'auto' here")
    if body.response_format and body.response_format.get("type") != "text":
        kind = body.response_format.get("type")
        _refuse("response_format", f"response_format {kind!r} is not supported: only 'text'")
    if extra.get("logprobs"):
        _refuse("logprobs", "logprobs are not supported: the answer is not one model's output")
    modalities = extra.get("modalities")
    if modalities not in (None, ["text"]):
        _refuse("modalities", "only the 'text' modality is supported")
    if extra.get("audio"):
        _refuse("audio", "audio output is not supported")


def _refuse(param: str, detail: str) -> None:
    raise ServiceError(400, "UNSUPPORTED_PARAMETER", detail, param=param)
