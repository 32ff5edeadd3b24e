"""What the nodes ask of the features wired in around them, as Protocols (no imports of them).

The graph knows its optional features only through these: the features of
service/graph_features.py give the nodes an object of each shape (the history's blocks,
the memory's examples and retrieval reporter, the catalogue's schema section, the
approval's tool gate, the answer review of ANSWER_CHECK=repair, the answer candidates of
ANSWER_CANDIDATES, the notes under an answer, the verified examples of VERIFIED_ANSWERS),
the runner a model-call and a schema reporter, or None to leave it out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from langchain_core.messages import AnyMessage
from langgraph.types import Send

from react_agent.graph.state import AgentState


class ExampleSource(Protocol):
    """The examples put in the prompt once per question (react_agent.memory.ExampleRetriever)."""

    k: int
    """Most examples per question (0: none are searched for)."""

    @property
    def holds_items(self) -> bool:
        """Whether there is anything to search (an empty memory is not searched)."""

    async def prompt_block(self, question: str) -> tuple[str, list[str]]:
        """Return the prompt's examples block for `question` and the ids in it."""


class RetrievalReporter(Protocol):
    """Shows an automatic retrieval as a step of the run (runs/events/retrieval_events)."""

    def __call__(self, query: str, ids: list[str], duration_ms: int) -> None:
        """Report that the examples were searched for `query` before the model, finding `ids`."""


class ToolGate(Protocol):
    """Holds tool calls for a decision before they run (react_agent.approval.SqlApproval).

    Wired between prepare_tool_input and tools as the approve_sql node and its routers.
    """

    def route_after_prepare(self, state: AgentState) -> str:
        """Return approve_sql when a call awaits a decision in this run, else tools."""

    async def approve_sql(self, state: AgentState) -> dict[str, Any]:
        """Stop for the decision on the next held call, then apply it."""

    def route_after_approval(self, state: AgentState) -> str | list[Send]:
        """Return approve_sql again, the calls to run, or update_state_after_tool."""


class ModelCallReporter(Protocol):
    """Tells the run's listeners of a model call (react_agent.runs.events.listener_reports)."""

    def __call__(
        self,
        model: str,
        outcome: str,
        seconds: float,
        usage: dict[str, Any] | None,
        error: BaseException | None = None,
    ) -> None:
        """Report one model call: its model, outcome (ok, error, cancelled), time, tokens.

        `error` is what a failed call raised.
        """


class SchemaRetrievalReporter(Protocol):
    """Tells the run's listeners of a question's schema section (runs/events/listener_reports)."""

    def __call__(self, outcome: str, seconds: float) -> None:
        """Report how making the schema section ended (ok, empty, error) and its time."""


class SchemaPrompt(Protocol):
    """The schema part of the prompt for a question (react_agent.catalog.context)."""

    budget_chars: int
    """SCHEMA_PROMPT_BUDGET; 0: the section holds the business instructions only."""

    async def describes_tables(self) -> bool:
        """Whether the prompt describes the tables (a budget, a built catalogue)."""

    async def stable_section(self) -> str:
        """Return the schema every question reads alike (the prompt's stable prefix)."""

    async def question_section(self, question: str) -> str:
        """Return the schema `question` adds: its value links, or its retrieved tables."""

    async def instruction_ids(self) -> list[str]:
        """Return the ids of the business instructions the section holds for the caller."""


class HistoryHooks(Protocol):
    """What the nodes ask of the conversation history (react_agent.history.TurnHistory)."""

    def context_turns(self, window_turns: int) -> int:
        """Return how many newest whole turns the model sees."""

    def backfill(self, state: AgentState) -> list[dict[str, Any]]:
        """Return blocks for finished turns that have none yet."""

    def record(self, messages: Sequence[AnyMessage]) -> dict[str, Any]:
        """Return the block of the turn that has just finished."""

    def prompt_section(self, state: AgentState) -> str:
        """Return what the system prompt adds about earlier turns."""

    def results_source(
        self, state: AgentState, visible: Sequence[AnyMessage]
    ) -> Sequence[AnyMessage]:
        """Return the messages whose results the prompt lists."""


class VerifiedMatch(Protocol):
    """A verified example a question matched (react_agent.memory.retrieval.verified)."""

    example_id: str
    sql: str
    """The example's SQL, its literals substituted for a near match."""


class VerifiedSource(Protocol):
    """Finds the verified example a question matches (react_agent.memory.retrieval.verified)."""

    direct: bool
    """VERIFIED_ANSWERS=direct: the rows and a fixed sentence, no model call at all."""

    async def match(self, question: str) -> VerifiedMatch | None:
        """Return the verified example `question` matches within the asker's scope, or None."""


class AnswerReview(Protocol):
    """The answer's one repair turn, ANSWER_CHECK=repair (react_agent.results.answer_repair)."""

    def wants_review(self, state: AgentState) -> bool:
        """Whether the model's newest message is an answer to check before it is final."""

    async def review_answer(self, state: AgentState) -> dict[str, Any]:
        """Check the answer; with unsupported figures, ask the model to restate it (once)."""

    def route_after_review(self, state: AgentState) -> str:
        """Return the next node: the agent for the repair turn, else the final response."""


class AnswerCandidates(Protocol):
    """More SQL candidates that must agree, ANSWER_CANDIDATES (react_agent.results.candidates)."""

    def wants_candidates(self, state: AgentState) -> bool:
        """Whether the newest answer, resting on a query, is one to check against candidates."""

    async def compare_candidates(self, state: AgentState) -> dict[str, Any]:
        """Write and run the other candidates, group the results, keep the confidence."""

    def route_after_candidates(self, state: AgentState) -> str:
        """Return the agent when the answer must be written again, else the final response."""


ANSWER_METADATA = "answer_metadata"
"""A field an AnswerNote may return: kept in the final answer's response_metadata (a
conversation read back shows what the run said, e.g. the candidates' confidence)."""


class AnswerNote(Protocol):
    """A line the final answer gets under the model's text (results/candidates, scope_note)."""

    async def note(self, state: AgentState) -> tuple[str, dict[str, Any]]:
        """Return the line to add ('' for none) and the state fields that go with it.

        The field ANSWER_METADATA, if given, goes on the answer message instead.
        """
