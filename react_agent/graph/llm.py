"""The chat model: langchain-openai's ChatOpenAI on any OpenAI-compatible server."""

from __future__ import annotations

from typing import Any

from langchain_openai import ChatOpenAI

from config import Settings

PLACEHOLDER_API_KEY = "not-needed"
"""Local servers (vLLM, Ollama) ignore the key, but the OpenAI client insists on one."""


def build_chat_model(settings: Settings, *, http_async_client: Any = None) -> ChatOpenAI:
    """Return the configured chat model; call only when `settings.llm_configured`.

    Args:
        settings: The LLM settings.
        http_async_client: An httpx client to use instead of langchain-openai's shared one.

    """
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
    return ChatOpenAI(
        model=settings.llm_model,
        api_key=key or PLACEHOLDER_API_KEY,
        base_url=settings.openai_base_url,
        temperature=settings.llm_temperature,
        timeout=settings.llm_timeout,
        max_retries=settings.llm_max_retries,
        stream_usage=True,
        http_async_client=http_async_client,
    )
