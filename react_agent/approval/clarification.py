"""The ask_user tool: the model asks the person a clarifying question, and the run pauses.

It pauses like an SQL approval does (LangGraph's `interrupt()`), with kind
`clarification`; the person's answer comes back as the tool's result. It pauses only when
it is the model's one call of the turn: the tools node runs again on resume, and no
other call of the turn should run twice. A question asks at most `max_per_question`
times, and a run that may not ask (`clarify` off) gets told to state its assumption.
"""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, tool
from langgraph.prebuilt import InjectedState
from langgraph.types import interrupt

from react_agent.approval.decisions import CLARIFICATION_KIND
from react_agent.graph.run_context import run_context

ASK_USER = "ask_user"
MAX_OPTIONS = 5
MAX_QUESTION_CHARS = 500
MAX_OPTION_CHARS = 200

NOT_ALONE = (
    "Error: call ask_user alone, as the only tool call of your turn, so the person's answer "
    "comes before any query."
)
NO_MORE_QUESTIONS = (
    "You may not ask the person again for this question. Choose the most likely reading, "
    "state that assumption in your answer, and go on."
)
ANSWERED = "The person answered:"
ASKING_OFF = (
    "Asking is off for this question. Choose the most likely reading, state that assumption "
    "in your answer, and go on."
)


def build_ask_user_tool(max_per_question: int) -> BaseTool:
    """Return the ask_user tool, pausing at most `max_per_question` times per question."""

    @tool(ASK_USER)
    def ask_user(
        question: str,
        state: Annotated[dict[str, Any], InjectedState],
        tool_call_id: Annotated[str, InjectedToolCallId],
        options: list[str] | None = None,
    ) -> str:
        """Ask the person one short clarifying question, with up to five suggested answers.

        Use it only when the question can be read in ways that give different answers (an
        ambiguous metric, period, entity or scope) and neither the schema nor the notes
        settle it. Call it alone, before running SQL. Returns the person's answer.
        """
        messages: list[AnyMessage] = state.get("messages", [])
        if not run_context().clarify:
            return ASKING_OFF
        if len(_last_turn_calls(messages)) > 1:
            return NOT_ALONE
        if _asked_this_question(messages) >= max_per_question:
            return NO_MORE_QUESTIONS
        payload = {
            "kind": CLARIFICATION_KIND,
            "tool_call_id": tool_call_id,
            "question": question.strip()[:MAX_QUESTION_CHARS],
            "options": [
                text.strip()[:MAX_OPTION_CHARS] for text in (options or []) if text.strip()
            ][:MAX_OPTIONS],
        }
        # On resume the tool runs again from the top and this returns the person's answer.
        answer = interrupt(payload)
        text = str((answer or {}).get("text") or "").strip() if isinstance(answer, dict) else ""
        if not text:
            return ASKING_OFF
        return f"{ANSWERED} {text}"

    return ask_user


def _last_turn_calls(messages: list[AnyMessage]) -> list[dict[str, Any]]:
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            return list(message.tool_calls)
    return []


def _asked_this_question(messages: list[AnyMessage]) -> int:
    """Return how many times the person answered ask_user since the question was asked."""
    count = 0
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            break
        if isinstance(message, ToolMessage) and message.name == ASK_USER:
            count += str(message.content).startswith(ANSWERED)
    return count
