"""The chat model: langchain-openai's ChatOpenAI on any OpenAI-compatible server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any
from urllib.parse import urlsplit

import openai
from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import invalid_tool_call
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig
from langchain_openai import ChatOpenAI

from config import Settings
from react_agent.errors import ServiceError
from react_agent.graph.model_output import (
    RepetitionWatch,
    length_fault,
    repeating,
    repetition_fault,
)
from react_agent.graph.nodes.tool_calls import (
    UNPARSED_ARGUMENTS,
    StreamedArguments,
    split_non_object_calls,
)

PLACEHOLDER_API_KEY = "not-needed"
"""Local servers (vLLM, Ollama) ignore the key, but the OpenAI client insists on one."""

_SENT_AS_BUILT = ("messages", "tools")
"""Request fields langchain-openai has already built as the API's JSON."""


class ServiceChatOpenAI(ChatOpenAI):
    """ChatOpenAI bounded in time and length, whose messages and tools go out as built.

    A whole call (streamed or not, retries included) ends within `call_timeout` seconds
    (LLM_TIMEOUT) as 504 LLM_TIMEOUT; an answer the server cut at `max_tokens`
    (LLM_MAX_TOKENS, finish_reason "length") and one that repeats itself (stopped as soon
    as seen while streaming) are 503 model faults (LLM_ANSWER_TOO_LONG, LLM_REPEATING), never
    a hang. `also_max_tokens` sends the bound as the older `max_tokens` beside
    langchain-openai's `max_completion_tokens`, for servers that read only the older name.

    The openai SDK walks every request body against its typed-dict declarations
    (`async_maybe_transform`) to rename aliased keys and encode files and dates; the
    messages and tool schemas langchain-openai builds have none of those, yet the walk
    cost about 2 ms of CPU per model call, an eighth of a question's
    (`python -m bench.cost_per_question`). Given as `extra_body`, which the SDK merges
    into the body as it is, they reach the server unchanged: the same JSON
    (tests/react_agent/graph/test_llm.py compares the two bodies).
    """

    call_timeout: float | None = None
    also_max_tokens: bool = False

    async def ainvoke(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> BaseMessage:
        """Call the model, the whole call bounded by `call_timeout` (LLM_TIMEOUT)."""
        if not self.call_timeout:
            return await super().ainvoke(input, config, stop=stop, **kwargs)
        try:
            async with asyncio.timeout(self.call_timeout):
                return await super().ainvoke(input, config, stop=stop, **kwargs)
        except TimeoutError as exc:
            raise ServiceError(
                504,
                "LLM_TIMEOUT",
                f"the model call took longer than LLM_TIMEOUT ({self.call_timeout:g} s)",
            ) from exc

    async def _agenerate(self, *args: Any, **kwargs: Any) -> ChatResult:
        result = await super()._agenerate(*args, **kwargs)
        for generation in result.generations:
            text = _written(generation.message)
            if repeating(text):  # first: a loop is why a reply is cut, and the better word
                raise repetition_fault(text)
            if (generation.generation_info or {}).get("finish_reason") == "length":
                raise length_fault(self.max_tokens)
        return result

    def _get_request_payload(
        self,
        input_: LanguageModelInput,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> dict:
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)
        # Chat Completions only: the Responses API and structured output keep their path.
        if "messages" not in payload or "response_format" in payload:
            return payload
        if self._use_responses_api(payload):
            return payload
        extra_body = dict(payload.get("extra_body") or {})
        if self.also_max_tokens and payload.get("max_completion_tokens"):
            extra_body.setdefault("max_tokens", payload["max_completion_tokens"])
        for key in _SENT_AS_BUILT:
            if key in payload and key not in extra_body:
                extra_body[key] = payload.pop(key)
        # The SDK requires the argument; extra_body's messages replace it in the body.
        payload["messages"] = []
        payload["extra_body"] = extra_body
        return payload

    async def _astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        """Stream as langchain-openai does, then say which calls' arguments were not JSON.

        A reply cut at max_tokens or repeating itself is stopped as a model fault.
        Streamed arguments are read leniently (a cut `{"sql": "SELECT 1` becomes a call);
        the whole text of each is checked strictly at the end, and the calls that fail
        are named in the answer's metadata (UNPARSED_ARGUMENTS) for vet_model_calls.
        """
        arguments = StreamedArguments()
        watch = RepetitionWatch()
        # aclosing: a stopped answer closes the response, so the server stops writing too.
        async with aclosing(super()._astream(*args, **kwargs)) as chunks:
            async for chunk in chunks:
                if (chunk.generation_info or {}).get("finish_reason") == "length":
                    raise length_fault(self.max_tokens)
                if watch.add(_written(chunk.message)):
                    raise repetition_fault(watch.text())
                if isinstance(chunk.message, AIMessageChunk):
                    arguments.add(chunk.message.tool_call_chunks)
                yield chunk
        if unparsed := arguments.unparsed():
            metadata = {UNPARSED_ARGUMENTS: unparsed}
            yield ChatGenerationChunk(
                message=AIMessageChunk(content="", response_metadata=metadata)
            )

    def _create_chat_result(
        self, response: dict | openai.BaseModel, generation_info: dict | None = None
    ) -> ChatResult:
        """Read an answer; tool calls whose arguments are no JSON object become invalid calls.

        langchain-openai would fail the whole answer on them (a 500 for a model's mistake);
        streamed, the same arguments already arrive as invalid calls.
        """
        dumped = response
        if isinstance(response, openai.BaseModel):
            dumped = response.model_dump(
                exclude={"choices": {"__all__": {"message": {"parsed"}}}}, warnings=False
            )
        apart: dict[int, list[Any]] = {}
        for index, choice in enumerate(
            dumped.get("choices") or [] if isinstance(dumped, dict) else []
        ):
            message = choice.get("message") if isinstance(choice, dict) else None
            if isinstance(message, dict) and message.get("tool_calls"):
                message["tool_calls"], calls = split_non_object_calls(message["tool_calls"])
                if calls:
                    apart[index] = calls
        if apart:  # else the answer goes on as it came (structured output keeps `parsed`)
            response = dumped
        result = super()._create_chat_result(response, generation_info)
        for index, calls in apart.items():
            answer = result.generations[index].message
            if isinstance(answer, AIMessage):
                answer.invalid_tool_calls.extend(
                    invalid_tool_call(
                        name=call["function"].get("name"),
                        args=call["function"].get("arguments"),
                        id=call.get("id"),
                        error="the arguments are JSON but not one object",
                    )
                    for call in calls
                )
        return result


def build_chat_model(settings: Settings, *, http_async_client: Any = None) -> ChatOpenAI:
    """Return the configured chat model; call only when `settings.llm_configured`.

    Args:
        settings: The LLM settings.
        http_async_client: An httpx client to use instead of langchain-openai's shared one.

    """
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
    return ServiceChatOpenAI(
        model=settings.llm_model,
        api_key=key or PLACEHOLDER_API_KEY,
        base_url=settings.openai_base_url,
        temperature=settings.llm_temperature,
        timeout=settings.llm_timeout,
        call_timeout=settings.llm_timeout,
        max_tokens=settings.llm_max_tokens or None,
        also_max_tokens=_reads_old_names(settings.openai_base_url),
        max_retries=settings.llm_max_retries,
        stream_usage=True,
        http_async_client=http_async_client,
    )


def _reads_old_names(base_url: str | None) -> bool:
    """Return whether the server may be one that reads `max_tokens` only (any but OpenAI's)."""
    return bool(base_url) and urlsplit(base_url).hostname != "api.openai.com"


def _written(message: Any) -> str:
    """Return what the model wrote in a message or chunk: its text and tool-call arguments."""
    content = message.content
    text = content if isinstance(content, str) else ""
    chunks = getattr(message, "tool_call_chunks", None) or []
    calls = getattr(message, "tool_calls", None) or []
    arguments = [str(c.get("args") or "") for c in chunks] or [str(c.get("args")) for c in calls]
    return text + "".join(arguments)
