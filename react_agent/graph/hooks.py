"""What the nodes ask of the features wired in around them, as Protocols (no imports of them).

The graph knows its optional features only through these: service/assembly.py gives the
nodes an object of each shape (the history's blocks, the memory's retrieval reporter, the
run's model-call and schema reporters, the catalogue's schema section); build_graph is given
the answer review (ANSWER_CHECK=repair). None leaves a feature out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from langchain_core.messages import AnyMessage

from react_agent.graph.state import AgentState


class RetrievalReporter(Protocol):
    """Shows an automatic retrieval as a step of the run (react_agent.runs.retrieval_events)."""

    def __call__(self, tool_name: str, query: str, ids: list[str], duration_ms: int) -> None:
        """Report that `tool_name` was run for `query` before the model, finding `ids`."""


class ModelCallReporter(Protocol):
    """Tells the run's listeners of a model call (react_agent.runs.listener_reports)."""

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
    """Tells the run's listeners of a question's schema section (runs/listener_reports)."""

    def __call__(self, outcome: str, seconds: float) -> None:
        """Report how making the schema section ended (ok, empty, error) and its time."""


class SchemaPrompt(Protocol):
    """The schema part of the prompt for a question (react_agent.catalog.context)."""

    async def prompt_section(self, question: str) -> str:
        """Return the schema the model reads for `question` ("" to leave the prompt as is)."""


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


class AnswerReview(Protocol):
    """The answer's one repair turn, ANSWER_CHECK=repair (react_agent.results.answer_repair)."""

    def wants_review(self, state: AgentState) -> bool:
        """Whether the model's newest message is an answer to check before it is final."""

    async def review_answer(self, state: AgentState) -> dict[str, Any]:
        """Check the answer; with unsupported figures, ask the model to restate it (once)."""

    def route_after_review(self, state: AgentState) -> str:
        """Return the next node: the agent for the repair turn, else the final response."""
