"""A chat model that plays back scripted replies, for testing the graph without an LLM."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from tests.support.reply_model import ReplyingChatModel

_ids = itertools.count(1)

Reply = AIMessage | Callable[[list[BaseMessage]], AIMessage] | BaseException


def answer(text: str) -> AIMessage:
    """Return a final answer without tool calls."""
    return AIMessage(content=text)


def call_tool(name: str, **args: Any) -> AIMessage:
    """Return a reply that calls one tool."""
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": f"call_{next(_ids)}"}]
    )


class ScriptedChatModel(ReplyingChatModel):
    """Returns `replies` in order; records what it was shown.

    A reply may be an AIMessage, a function of the prompt returning one, or an exception
    to raise. `gates[n]` (an asyncio.Event) makes call n (0-based) wait until it is set;
    `entered[n]` is set when call n starts, so tests can synchronise without sleeping.
    When the script runs out, `default` (if given) is repeated. The names of the tools it
    is bound with are kept in `bound_tools`.
    """

    replies: list[Any] = Field(default_factory=list)
    default: Any = None
    seen: list[list[BaseMessage]] = Field(default_factory=list)
    gates: dict[int, Any] = Field(default_factory=dict)
    entered: dict[int, Any] = Field(default_factory=dict)
    bound_tools: list[list[str]] = Field(default_factory=list)
    """The names of the tools of each bind_tools call, in order."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        """Tools are only recorded (`bound_tools`): the script already says what to call."""
        self.bound_tools.append(
            [convert_to_openai_tool(tool)["function"]["name"] for tool in tools]
        )
        return self

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        index = len(self.seen)
        self.seen.append(list(messages))
        if index < len(self.replies):
            reply = self.replies[index]
        elif self.default is not None:
            reply = self.default
        else:
            raise AssertionError(f"the script has no reply for model call {index}")
        if isinstance(reply, BaseException):
            raise reply
        message = reply(messages) if callable(reply) else reply
        # A fresh copy per call: the same scripted message may be used more than once.
        copy = message.model_copy(deep=True)
        copy.id = None
        if copy.tool_calls:
            copy.tool_calls = [{**call, "id": f"call_{next(_ids)}"} for call in copy.tool_calls]
        return copy

    async def _before_reply(self, messages: list[BaseMessage]) -> None:
        index = len(self.seen)
        if index in self.entered:
            self.entered[index].set()
        if index in self.gates:
            await self.gates[index].wait()

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        await self._before_reply(messages)
        message = self._reply(messages)
        text = message.content if isinstance(message.content, str) else ""
        pieces = [text[i : i + 3] for i in range(0, len(text), 3)] or [""]
        for piece in pieces:
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                await run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
            await asyncio.sleep(0)
        if message.tool_calls:
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content="",
                    tool_call_chunks=[
                        {
                            "name": call["name"],
                            "args": json.dumps(call["args"]),
                            "id": call["id"],
                            "index": i,
                        }
                        for i, call in enumerate(message.tool_calls)
                    ],
                )
            )


def prompt_text(messages: Sequence[BaseMessage]) -> str:
    """Return the system prompts a model call got: the stable one and each question's context.

    Since #48 the prompt is the stable system message first, then, before each question, a
    system message of what that question adds (its examples, value links, results so far).
    """
    return "\n".join(str(m.content) for m in messages if m.type == "system")
