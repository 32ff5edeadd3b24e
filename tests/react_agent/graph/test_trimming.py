"""Choosing the whole turns the model sees: the turn budget, the token budget, the current turn."""

from __future__ import annotations

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

from react_agent.graph.model_input.trimming import select_context_start


def turn(question: str, answer: str, *, with_tool: bool = False) -> list[AnyMessage]:
    """Return one turn: a question, optionally a tool call and its result, and an answer."""
    messages: list[AnyMessage] = [HumanMessage(question)]
    if with_tool:
        call = {"name": "run_sql", "args": {"sql": "SELECT 1"}, "id": f"call_{question}"}
        messages += [
            AIMessage("", tool_calls=[call]),
            ToolMessage("1 row(s)", tool_call_id=call["id"], name="run_sql"),
        ]
    return [*messages, AIMessage(answer)]


def test_keeps_only_the_newest_turns_within_the_turn_budget():
    first, second, third = turn("q1", "a1"), turn("q2", "a2", with_tool=True), turn("q3", "a3")
    messages = [*first, *second, *third]

    start = select_context_start(messages, max_turns=2, max_tokens=100_000)

    assert messages[start:] == [*second, *third]


def test_keeps_everything_when_the_conversation_is_within_both_budgets():
    messages = [*turn("q1", "a1"), *turn("q2", "a2")]

    assert select_context_start(messages, max_turns=10, max_tokens=100_000) == 0


def test_drops_the_oldest_whole_turns_until_the_rest_fits_the_token_budget():
    long_turn = turn("q1 " + "word " * 400, "a1")
    recent = [*turn("q2", "a2", with_tool=True), *turn("q3", "a3")]
    messages = [*long_turn, *recent]
    budget = count_tokens_approximately(recent) + 10

    start = select_context_start(messages, max_turns=10, max_tokens=budget)

    assert messages[start:] == recent


def test_the_current_turn_stays_whole_even_when_it_alone_is_over_the_token_budget():
    current = turn("q2 " + "word " * 400, "a2", with_tool=True)
    messages = [*turn("q1", "a1"), *current]

    start = select_context_start(messages, max_turns=10, max_tokens=5)

    assert messages[start:] == current
    assert isinstance(messages[start], HumanMessage)  # the tool call keeps its result


def test_messages_before_the_first_question_count_as_one_turn():
    leading = [AIMessage("welcome")]
    messages = [*leading, *turn("q1", "a1")]

    assert select_context_start(messages, max_turns=2, max_tokens=100_000) == 0
    assert select_context_start(messages, max_turns=1, max_tokens=100_000) == len(leading)
