"""The tests' chat models: each computes its reply from the prompt, sync or async alike."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class ReplyingChatModel(BaseChatModel):
    """A chat model whose reply `_reply` makes; an async call first awaits `_before_reply`."""

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        raise NotImplementedError

    async def _before_reply(self, messages: list[BaseMessage]) -> None:
        """Wait, if the model is to, before an async call's reply (nothing by default)."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        await self._before_reply(messages)
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])
