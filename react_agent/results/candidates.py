"""ANSWER_CANDIDATES: an answer's query weighed against more candidates that must agree.

The compare_candidates node sees an answer that rests on a query (the turn's last
run_sql that ran) and, with ANSWER_CANDIDATES=N, always, with auto only when there is a
reason to doubt it: the query drew a lint warning, returned no rows, or the answer states
a figure no row supports. It has N-1 more candidates written and run (candidate_sql),
groups all N by their results (candidate_groups) and keeps the confidence in the state
(react_agent_meta.confidence). Then:

- all agree, or the agent's query is in the majority: the answer goes on;
- the majority returned another result: its query and rows go back to the agent as a
  run_sql result with a system message, and the agent answers again from them;
- no majority (split): the answer goes on and its note says so; with clarification on
  for the run, the agent is told to ask the person which reading they mean instead.

Never for a run whose queries wait for approval (candidates would run unapproved SQL),
once per question, and only with steps left for the extra turn.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, SystemMessage, ToolMessage

from config import localize
from react_agent.graph.hooks import ANSWER_METADATA
from react_agent.graph.messages import requests_tools, stamped
from react_agent.graph.node_names import AGENT, FORMAT_FINAL_RESPONSE
from react_agent.graph.nodes.agent import STEPS_PER_TOOL_ROUND
from react_agent.graph.run_context import run_context
from react_agent.graph.state import AgentState
from react_agent.results.candidate_groups import (
    AGREED,
    ASKED,
    MAJORITY,
    SPLIT,
    Candidate,
    records_empty,
    weigh,
)
from react_agent.results.candidate_sql import CandidateWriter, question_turn
from react_agent.runs.execution.answer_review import AnswerChecker, review_newest_answer
from react_agent.tools.sql_tools import RUN_SQL

logger = logging.getLogger(__name__)

CONFIDENCE_METADATA = "answer_confidence"
"""The final answer's metadata key holding its confidence (react_agent_meta.confidence)."""
CANDIDATES_MARKER = "answer_candidates"
"""Metadata key of the system message that sends the agent back after the candidates."""
REANSWER_REQUEST = (
    "Answer check: {others} other independently written queries for this question "
    "returned a different result from yours, and {agreeing} of {candidates} agree on the "
    "result above (result_id: {result_id}). Answer the question again from those rows. "
    "Reply with the answer only."
)
ASK_BACK_REQUEST = (
    "Answer check: {candidates} independently written queries for this question returned "
    "{groups} different results, so the question can be read in more than one way:\n"
    "{readings}\nAsk the person with ask_user which reading they mean, offering these as "
    "options in their words, before you answer."
)
READING_SQL_CHARS = 300


@dataclass
class AnswerCandidatesStep:
    """The compare_candidates node and its routing (graph/hooks.AnswerCandidates).

    Args:
        writer: Writes and runs the other candidates.
        count: Candidates in all, the agent's query included (2-5).
        auto: Only when there is a reason to doubt the answer (ANSWER_CANDIDATES=auto).
        check: The answer check, for auto's unsupported figures; None leaves that reason.
        dialect: The database's dialect (results are compared in order only if both order).
        ask_tool: The name of the clarifying tool when the graph has one (asked back).

    """

    writer: CandidateWriter
    count: int
    auto: bool
    check: AnswerChecker | None = None
    dialect: str = "sqlite"
    ask_tool: str | None = None

    def wants_candidates(self, state: AgentState) -> bool:
        """Whether the newest message is an answer resting on a query, to weigh once."""
        if state.get("answer_confidence") is not None or requests_tools(state["messages"][-1]):
            return False
        if state.get("remaining_steps", 0) <= 2 * STEPS_PER_TOOL_ROUND:
            return False
        if run_context().approve_sql:
            return False  # every query waits for a person: candidates would not
        return self._trigger(state) is not None

    async def compare_candidates(self, state: AgentState) -> dict[str, Any]:
        """Write and run the other candidates, group all results, keep the confidence."""
        answered = _answer_result(state)
        trigger = self._trigger(state)
        if answered is None or trigger is None:
            return {}
        artifact = answered.artifact
        agent = Candidate(0, artifact.get("sql"), "ok", artifact.get("records"), answered)
        try:
            written = await self.writer.write(dict(state), self.count - 1)
        except Exception as exc:  # a second opinion never fails the question it checks
            logger.warning("candidates: none written (%s); the answer goes on unweighed", exc)
            return {}
        others, sampling = written.candidates, written.sampling
        weighing = weigh([agent, *others], self.dialect)
        ran = sum(c.status in ("ok", "error") for c in others)
        update: dict[str, Any] = {
            "sql_execution_count": state.get("sql_execution_count", 0) + ran,
            "sql_refusal_count": state.get("sql_refusal_count", 0)
            + sum(c.status == "refused" for c in others),
        }
        outcome: str | None = None
        if weighing.overturns:
            update["messages"] = self._reanswer(weighing)
            chosen = weighing.answering[0]
            update["sql"], update["records"] = chosen.sql, chosen.records
        elif weighing.outcome == SPLIT and self.ask_tool and run_context().clarify:
            update["messages"] = [_request(self._ask_back(weighing))]
            outcome = ASKED
        confidence = weighing.confidence(trigger, sampling, outcome)
        update["answer_confidence"] = {**confidence, **written.cost()}
        return update

    def route_after_candidates(self, state: AgentState) -> str:
        """Return the agent when the candidates sent the answer back, else the answer."""
        last = state["messages"][-1]
        if isinstance(last, SystemMessage) and last.response_metadata.get(CANDIDATES_MARKER):
            return AGENT
        return FORMAT_FINAL_RESPONSE

    def _trigger(self, state: AgentState) -> str | None:
        """Return why the answer is weighed (always, lint, no_rows, unsupported), or None."""
        answered = _answer_result(state)
        if answered is None:
            return None
        if not self.auto:
            return "always"
        if answered.artifact.get("lint"):
            return "lint"
        if records_empty(answered.artifact.get("records")):
            return "no_rows"
        if self.check is not None:
            check = review_newest_answer(self.check, state["messages"])
            if check is not None and check["unsupported"]:
                return "unsupported"
        return None

    def _reanswer(self, weighing: Any) -> list[Any]:
        """Return the majority's query as a run_sql call and result, and the request."""
        chosen: Candidate = weighing.answering[0]
        result = chosen.result
        assert result is not None
        call = AIMessage(
            content="",
            tool_calls=[{"name": RUN_SQL, "args": {"sql": chosen.sql}, "id": result.tool_call_id}],
            response_metadata={CANDIDATES_MARKER: True},
        )
        request = REANSWER_REQUEST.format(
            others=len(weighing.candidates) - len(weighing.answering),
            agreeing=len(weighing.answering),
            candidates=len(weighing.candidates),
            result_id=result.tool_call_id,
        )
        return [stamped(call), stamped(result), _request(request)]

    def _ask_back(self, weighing: Any) -> str:
        readings = "\n".join(
            f"- reading {number + 1} ({group[0].records.get('total_row_count')} rows): "
            f"{(group[0].sql or '')[:READING_SQL_CHARS]}"
            for number, group in enumerate(weighing.groups)
        )
        return ASK_BACK_REQUEST.format(
            candidates=len(weighing.candidates), groups=len(weighing.groups), readings=readings
        )


def _request(text: str) -> SystemMessage:
    return stamped(SystemMessage(text, response_metadata={CANDIDATES_MARKER: True}))


def _answer_result(state: AgentState) -> ToolMessage | None:
    """Return the turn's last run_sql result that ran (the query the answer rests on)."""
    messages = state["messages"]
    for message in reversed(messages[question_turn(messages) :]):
        if not isinstance(message, ToolMessage) or message.name != RUN_SQL:
            continue
        artifact = message.artifact
        if isinstance(artifact, dict) and artifact.get("outcome") == "ok":
            return message
    return None


@dataclass(frozen=True)
class CandidatesNote:
    """The line under an answer whose candidates did not all agree (graph/hooks.AnswerNote).

    Args:
        ask_tool: The clarifying tool's name; a split the agent was to ask about but
            answered without asking is said like any split.

    """

    ask_tool: str | None = None

    async def note(self, state: AgentState) -> tuple[str, dict[str, Any]]:
        """Return the line saying how many candidates agree, when some returned another result."""
        confidence = state.get("answer_confidence")
        fields: dict[str, Any] = {}
        if confidence and confidence.get("outcome") == ASKED and not self._asked(state):
            confidence = {**confidence, "outcome": SPLIT}
            fields["answer_confidence"] = confidence
        if confidence:  # read back with the conversation (results/turn_results)
            fields[ANSWER_METADATA] = {CONFIDENCE_METADATA: confidence}
        if not confidence or confidence.get("outcome") not in (MAJORITY, SPLIT):
            return "", fields
        key = "CANDIDATES_MAJORITY" if confidence["outcome"] == MAJORITY else "CANDIDATES_SPLIT"
        total, agreeing = confidence["candidates"], confidence["agreeing"]
        line = localize(key, run_context().lang, n=total, k=agreeing, others=total - agreeing)
        return line, fields

    def _asked(self, state: AgentState) -> bool:
        """Whether the question's turn holds an answer of the clarifying tool."""
        messages = state["messages"]
        return any(
            isinstance(m, ToolMessage) and m.name == self.ask_tool
            for m in messages[question_turn(messages) :]
        )


__all__ = ["AGREED", "AnswerCandidatesStep", "CandidatesNote"]
