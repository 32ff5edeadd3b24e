"""Closing a turn a crash or disconnect left open, before the next question runs."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from config import localize
from react_agent.graph.messages import INTERRUPTED_MARKER
from react_agent.runs.execution.turn_repair import close_unfinished_turn


def tool_call(call_id: str) -> dict:
    return {"name": "run_sql", "args": {"sql": "SELECT 1"}, "id": call_id}


def test_a_new_or_finished_conversation_needs_no_closing():
    assert close_unfinished_turn([], None) == []
    assert close_unfinished_turn([HumanMessage("q"), AIMessage("a")], None) == []


def test_unanswered_tool_calls_get_error_results_and_the_turn_an_interrupted_answer():
    calls = AIMessage("", tool_calls=[tool_call("c1"), tool_call("c2")])
    answered = ToolMessage("1 row(s)", tool_call_id="c1", name="run_sql")

    closing = close_unfinished_turn([HumanMessage("q"), calls, answered], "en-US")

    *results, final = closing
    assert [(m.tool_call_id, m.status) for m in results] == [("c2", "error")]
    assert "interrupted" in results[0].content
    assert isinstance(final, AIMessage) and not final.tool_calls
    assert final.content == localize("INTERRUPTED_ANSWER", "en-US")
    assert final.response_metadata[INTERRUPTED_MARKER] is True
    assert all("timestamp" in m.response_metadata for m in closing)


def test_a_question_left_without_any_answer_gets_the_interrupted_answer_only():
    closing = close_unfinished_turn([HumanMessage("q1"), AIMessage("a1"), HumanMessage("q2")], None)

    assert len(closing) == 1
    assert closing[0].response_metadata[INTERRUPTED_MARKER] is True
