"""Tallying a question's result from its run's node updates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AnyMessage, HumanMessage

from react_agent.runs.events.events import RunResult


class ResultTally:
    """Builds a question's result from its run's node updates.

    The per-question fields are plain values each update replaces; messages are counted by
    id, because a node may re-send a message (same id) to replace it.
    """

    def __init__(self, history: Sequence[AnyMessage], graph_input: dict[str, Any]) -> None:
        self.values = {k: v for k, v in graph_input.items() if k != "messages"}
        self.message_ids = {m.id for m in history if m.id}
        self.total_messages = len(history)
        self.rounds = sum(isinstance(m, HumanMessage) for m in history)
        self.add(graph_input)

    def add(self, update: Any) -> None:
        """Take one node's update into account."""
        if not isinstance(update, dict):
            return
        for key, value in update.items():
            if key != "messages":
                self.values[key] = value
                continue
            for message in value:
                if message.id is None or message.id not in self.message_ids:
                    self.total_messages += 1
                    self.rounds += isinstance(message, HumanMessage)
                if message.id:
                    self.message_ids.add(message.id)

    def result(self, thread_id: str, path: list[str]) -> RunResult:
        """Return the question's result."""
        values = self.values
        return RunResult(
            thread_id=thread_id,
            answer=values.get("final_answer") or "",
            execution_path=list(path),
            tools_used=list(values.get("tools_used") or []),
            sql=values.get("sql"),
            records=values.get("records"),
            sql_execution_count=int(values.get("sql_execution_count") or 0),
            sql_refusal_count=int(values.get("sql_refusal_count") or 0),
            examples_used=list(values.get("examples_used") or []),
            instructions_used=list(values.get("instructions_used") or []),
            confidence=values.get("answer_confidence"),
            scope_note=values.get("scope_note"),
            verified_example_id=values.get("verified_example_id"),
            total_messages=self.total_messages,
            conversation_rounds=self.rounds,
        )
