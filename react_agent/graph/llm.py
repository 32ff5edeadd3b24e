"""The chat model: langchain-openai's ChatOpenAI on any OpenAI-compatible server."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import LanguageModelInput
from langchain_openai import ChatOpenAI

from config import Settings

PLACEHOLDER_API_KEY = "not-needed"
"""Local servers (vLLM, Ollama) ignore the key, but the OpenAI client insists on one."""

_SENT_AS_BUILT = ("messages", "tools")
"""Request fields langchain-openai has already built as the API's JSON."""


class ServiceChatOpenAI(ChatOpenAI):
    """ChatOpenAI whose messages and tools go to the server as langchain-openai built them.

    The openai SDK walks every request body against its typed-dict declarations
    (`async_maybe_transform`) to rename aliased keys and encode files and dates; the
    messages and tool schemas langchain-openai builds have none of those, yet the walk
    cost about 2 ms of CPU per model call, an eighth of a question's
    (`python -m bench.cost_per_question`). Given as `extra_body`, which the SDK merges
    into the body as it is, they reach the server unchanged: the same JSON
    (tests/react_agent/graph/test_llm.py compares the two bodies).
    """

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
        for key in _SENT_AS_BUILT:
            if key in payload and key not in extra_body:
                extra_body[key] = payload.pop(key)
        # The SDK requires the argument; extra_body's messages replace it in the body.
        payload["messages"] = []
        payload["extra_body"] = extra_body
        return payload


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
        max_retries=settings.llm_max_retries,
        stream_usage=True,
        http_async_client=http_async_client,
    )
