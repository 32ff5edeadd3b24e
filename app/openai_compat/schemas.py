"""Request and response models of the OpenAI-compatible API (validation and OpenAPI)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Open(BaseModel):
    # OpenAI clients send and accept many more fields; unknown ones are ignored.
    model_config = ConfigDict(extra="allow")


class ChatMessage(_Open):
    """One message of the conversation the client sends."""

    role: str = Field(description="system, user, assistant, tool …; the last user one is asked.")
    content: str | list[dict[str, Any]] | None = Field(
        default=None, description="Text, or OpenAI content parts (only `text` parts are read)."
    )


class ChatCompletionRequest(_Open):
    """A chat completion request; only the last user message is asked, the rest is history."""

    model: str | None = Field(default=None, description="AGENT_MODEL_NAME (the default).")
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = Field(default=False, description="Answer as chat.completion.chunk events.")
    user: str | None = Field(default=None, description="The user id (at most 50, no ':').")
    metadata: dict[str, Any] | None = Field(
        default=None,
        description="`conversation_id` continues that conversation; `dataset_id` asks "
        "about one of the user's uploaded datasets (kept by the conversation).",
    )
    stream_options: dict[str, Any] | None = Field(
        default=None,
        description="`include_usage: true` adds a last chunk with empty `choices` and `usage`.",
    )
    n: int | None = Field(default=None, description="Only 1: the agent gives one answer.")
    tools: list[dict[str, Any]] | None = Field(
        default=None, description="Refused when not empty: the agent has tools of its own."
    )
    tool_choice: str | dict[str, Any] | None = Field(
        default=None, description="Only `none` or `auto` (client-defined tools are refused)."
    )
    response_format: dict[str, Any] | None = Field(
        default=None, description='Only `{"type": "text"}`: the answer is Markdown text.'
    )


class Model(_Open):
    """The agent, as a model."""

    id: str
    object: Literal["model"]
    created: int
    owned_by: str


class ModelList(_Open):
    """The models: only the agent."""

    object: Literal["list"]
    data: list[Model]


class AssistantMessage(_Open):
    """The answer (Markdown with the SQL and a table) and the steps as `reasoning_content`."""

    role: Literal["assistant"]
    content: str
    reasoning_content: str | None = None


class Choice(_Open):
    """The one choice."""

    index: int
    message: AssistantMessage
    finish_reason: str


class Usage(_Open):
    """Tokens of every model call of the run (sub-agents' included); 0 when unreported."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(_Open):
    """A whole answer (`stream: false`); with `stream: true`, chunk events and `[DONE]`."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[Choice]
    usage: Usage
    conversation_id: str = Field(description="Send it back to continue the conversation.")
    openapi_event_stream_alternative: ClassVar[bool] = True


class OpenAIErrorDetail(_Open):
    """What went wrong; `code` is the service's error code in lower case."""

    message: str
    type: str
    code: str
    param: str | None = None


class OpenAIError(_Open):
    """An error, in OpenAI's format."""

    error: OpenAIErrorDetail
