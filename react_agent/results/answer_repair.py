"""ANSWER_CHECK=repair: an answer whose figures no row supports goes back to the model once.

The review_answer node checks a question's first answer with the same rules and the same
results as the runner's final check. When figures are unsupported, it adds a system
message to the conversation naming them and asking for the answer again from the rows
(the model may query again, under approval like any query), and keeps the first check in
`answer_repair`. The new answer goes straight to format_final_response: one repair turn
per question at most, and the runner's check of that answer is the one reported.

The request is a system message in the thread, not a hidden instruction: the history
then shows why a second answer follows the first, and the question and its turn stay
the human message's (turns, titles and follow-ups are counted by those).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import SystemMessage

from react_agent.graph.messages import requests_tools, stamped
from react_agent.graph.node_names import AGENT, FORMAT_FINAL_RESPONSE
from react_agent.graph.nodes.agent import STEPS_PER_TOOL_ROUND
from react_agent.graph.state import AgentState
from react_agent.runs.execution.answer_review import AnswerChecker, review_newest_answer

REPAIR_MARKER = "answer_repair"
"""Metadata key marking the system message that asks the model to repair its answer."""
FIGURES_NAMED = 10
"""Unsupported figures the request names (the rest are left to the model's rereading)."""
REPAIR_REQUEST = (
    "Answer check: these figures in your answer are not in the rows of the query results "
    "you read: {figures}. Write the answer again, stating only figures that are in those "
    "rows (or follow from them); run another query if you need a figure you do not have, "
    "and leave out what no row supports. Reply with the corrected answer only."
)
"""What the model reads before its repair turn; `{figures}` lists the unsupported ones."""


class AnswerRepair:
    """The review_answer node and its routing (graph/hooks.AnswerReview).

    Args:
        check: The answer check (react_agent.results.answer_check.check_answer).

    """

    def __init__(self, check: AnswerChecker) -> None:
        self.check = check

    def wants_review(self, state: AgentState) -> bool:
        """Whether the newest message is a first answer with room left for a repair turn.

        A tool request cut short by the step limit is no answer; an answer after the
        repair turn is final; and without steps for a query and an answer, none is tried.
        """
        if state.get("answer_repair") is not None or requests_tools(state["messages"][-1]):
            return False
        return state.get("remaining_steps", 0) > 2 * STEPS_PER_TOOL_ROUND

    async def review_answer(self, state: AgentState) -> dict[str, Any]:
        """Check the answer; with unsupported figures, ask the model to restate it."""
        check = review_newest_answer(self.check, state["messages"])
        if check is None or not check["unsupported"]:
            return {}
        figures = ", ".join(entry["text"] for entry in check["unsupported"][:FIGURES_NAMED])
        request = SystemMessage(
            REPAIR_REQUEST.format(figures=figures), response_metadata={REPAIR_MARKER: True}
        )
        return {"answer_repair": check, "messages": [stamped(request)]}

    def route_after_review(self, state: AgentState) -> str:
        """Return the agent for the repair turn this review asked for, else the answer."""
        return AGENT if state.get("answer_repair") is not None else FORMAT_FINAL_RESPONSE
