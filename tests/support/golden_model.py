"""A chat model that answers golden questions with their gold SQL, or wrongly as told."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from pydantic import Field, PrivateAttr

from react_agent.eval.golden import GoldenQuestion
from tests.support.reply_model import ReplyingChatModel

_ids = itertools.count(1)
USAGE = {"input_tokens": 120, "output_tokens": 30, "total_tokens": 150}
"""What each call reports, so the report's token sums can be checked."""

HANG = "hang"
"""A mistake that never answers (the question's timeout ends it)."""


def _text(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else ""


class GoldenScriptModel(ReplyingChatModel):
    """Runs a golden question's gold SQL and answers with its facts, unless told otherwise.

    `mistakes[id]` replaces the scored turn's SQL (a string), or is `{"answer": text}`
    (no SQL), `{"sql": ..., "answer": ...}`, or HANG. `flaky[id]` is a wrong SQL written on
    every other asking of that question (the 1st, 3rd, …), the gold SQL on the others.

    Earlier turns of a follow-up run the SQL of the standalone question with that text,
    if there is one, else answer without SQL.
    """

    questions: list[Any] = Field(default_factory=list)
    mistakes: dict[str, Any] = Field(default_factory=dict)
    flaky: dict[str, str] = Field(default_factory=dict)
    _asked: dict[str, int] = PrivateAttr(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "golden-script"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> GoldenScriptModel:
        """Tools are ignored: the script says what to call."""
        return self

    def _plan(self, turn: str) -> tuple[str | None, str]:
        """Return the SQL to run (None: none) and the answer for a turn's text."""
        scored = {q.question: q for q in self.questions}
        standalone = {q.turns[0]: q for q in self.questions if len(q.turns) == 1}
        question: GoldenQuestion | None = scored.get(turn) or standalone.get(turn)
        if question is None:
            return None, "OK."
        answer = "Answer: " + "; ".join(question.facts or ["see the table"])
        mistake = self.mistakes.get(question.id) if scored.get(turn) is question else None
        if question.id in self.flaky and scored.get(turn) is question:
            mistake = self._flaky_sql(question.id)
        if isinstance(mistake, str):
            return mistake, answer
        if isinstance(mistake, dict):
            return mistake.get("sql"), mistake["answer"]
        return question.gold_sql, answer

    def _flaky_sql(self, question_id: str) -> str | None:
        """Return the wrong SQL on odd askings of a flaky question, None (the gold) on even."""
        return self.flaky[question_id] if self._asked.get(question_id, 0) % 2 == 0 else None

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        last_human = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        sql, answer = self._plan(_text(messages[last_human]))
        answered_turn = any(
            isinstance(m, ToolMessage) and m.name == "run_sql" for m in messages[last_human:]
        )
        if sql is None or answered_turn:
            return AIMessage(content=answer, usage_metadata=dict(USAGE))
        question = next(
            (q for q in self.questions if q.question == _text(messages[last_human])), None
        )
        if question is not None and question.id in self.flaky:
            self._asked[question.id] = self._asked.get(question.id, 0) + 1
        call = {"name": "run_sql", "args": {"sql": sql}, "id": f"golden_{next(_ids)}"}
        return AIMessage(content="", tool_calls=[call], usage_metadata=dict(USAGE))

    def _hangs(self, messages: list[BaseMessage]) -> bool:
        turn = next(_text(m) for m in reversed(messages) if isinstance(m, HumanMessage))
        return any(q.question == turn and self.mistakes.get(q.id) == HANG for q in self.questions)

    async def _before_reply(self, messages: list[BaseMessage]) -> None:
        if self._hangs(messages):
            await asyncio.Event().wait()  # never set: the evaluation's timeout ends the call
