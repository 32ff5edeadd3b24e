"""A chat model that routes each call to a scripted model by the conversation's first question.

Sub-agents start with only their sub-question, so each one (and the parent) gets its own
script, gates and record, however their calls interleave.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGenerationChunk
from pydantic import Field

from tests.support.reply_model import ReplyingChatModel
from tests.support.scripted_model import ScriptedChatModel


class RoutedChatModel(ReplyingChatModel):
    """Plays `routes[q]` for a conversation whose first question is exactly `q`, else `parent`.

    `cancelled` lists the routes whose model call was cancelled while waiting or running.
    """

    parent: ScriptedChatModel
    routes: dict[str, ScriptedChatModel] = Field(default_factory=dict)
    cancelled: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "routed-scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> RoutedChatModel:
        """Tools are ignored: the scripts already say what to call."""
        return self

    def route(self, messages: list[BaseMessage]) -> tuple[str, ScriptedChatModel]:
        """Return the name and the script of the conversation these messages belong to."""
        first = next((m for m in messages if isinstance(m, HumanMessage)), None)
        question = first.content if first is not None else None
        if isinstance(question, str) and question in self.routes:
            return question, self.routes[question]
        return "parent", self.parent

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        return self.route(messages)[1]._reply(messages)

    async def _before_reply(self, messages: list[BaseMessage]) -> None:
        name, script = self.route(messages)
        try:
            await script._before_reply(messages)
        except asyncio.CancelledError:
            self.cancelled.append(name)
            raise

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        name, script = self.route(messages)
        try:
            async for chunk in script._astream(messages, stop, run_manager, **kwargs):
                yield chunk
        except asyncio.CancelledError:
            self.cancelled.append(name)
            raise
