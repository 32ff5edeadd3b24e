"""What a run reports as it goes: its events, and the result it ends with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from react_agent.errors import ServiceError
from react_agent.runs.events.tool_events import ToolCalled, ToolReturned
from react_agent.timestamps import now_timestamp


def _happened() -> Any:
    """Return the field of when an event happened, set once where the event is made.

    A stream's envelopes are made from the event whenever they are read (app/streaming),
    so their timestamps must be the event's, not the reader's: a client that reconnects gets
    the same bytes. Not compared: two events that say the same thing are equal.
    """
    return field(default_factory=now_timestamp, compare=False)


@dataclass(frozen=True)
class RunResult:
    """What one question's run produced, read from the thread's final state."""

    thread_id: str
    answer: str
    execution_path: list[str]
    tools_used: list[str]
    sql: str | None
    records: dict[str, Any] | None
    sql_execution_count: int
    total_messages: int
    conversation_rounds: int
    sql_refusal_count: int = 0
    sqls: list[dict[str, Any]] = field(default_factory=list)
    """Every run_sql of the turn, in order: sql, row_count, result_id, status (turn_work)."""
    usage: dict[str, int] | None = None
    """Tokens of the turn's model calls, when the server reported them (turn_work)."""
    examples_used: list[str] = field(default_factory=list)
    """Ids of the stored examples and notes the model was shown (the memory)."""
    instructions_used: list[str] = field(default_factory=list)
    """Ids of the business instructions the question's prompts held (the semantic file)."""
    approval: dict[str, Any] | None = None
    """The SQL approval the run stopped for (see react_agent.approval.pending), if it did."""
    question: str = ""
    show_sql: bool = True
    """Whether the asker may see SQL and tool arguments (the access scope's show_sql)."""
    """The question the run answered (the chart rules read whether it asks for a share)."""
    answer_check: dict[str, Any] | None = None
    """The answer's figures matched against its rows (react_agent/results/answer_check), or
    None when ANSWER_CHECK is off."""
    trace_id: str | None = None
    """The trace of the request that asked it, when tracing is on (react_agent_meta.trace_id)."""
    lint: list[dict[str, Any]] = field(default_factory=list)
    """The SQL lint's warnings on the turn's statements: rule, message, sql (SQL_LINT)."""
    confidence: dict[str, Any] | None = None
    """How many SQL candidates were written for the answer and how many agree
    (react_agent/results/candidates), or None when none were (ANSWER_CANDIDATES)."""
    scope_note: str | None = None
    """The line saying nothing the asker may see matched, naming their filters
    (react_agent/results/scope_note), or None."""
    verified_example_id: str | None = None
    """The verified example whose SQL answered the question (VERIFIED_ANSWERS), if one did."""


@dataclass(frozen=True)
class RunStarted:
    """The run holds its thread and is about to call the model."""

    thread_id: str
    timestamp: str = _happened()
    """When it happened (the API's local ISO time)."""


@dataclass(frozen=True)
class RunWaiting:
    """The run waits before it starts: for its busy thread, or for a free slot.

    `reason` is `thread_busy` (on_busy enqueue or interrupt) or `capacity` (admission
    control); `position` is the run's place in the queue when it is known (1 = next).
    """

    thread_id: str
    reason: str
    position: int | None = None
    timestamp: str = _happened()
    """When it happened (the API's local ISO time)."""


@dataclass(frozen=True)
class SourceWaiting:
    """A statement of the run waits for its turn on a busy data source (its fair share).

    `ahead` is how many statements will run on the source before it (0: it is next).
    """

    source: str
    ahead: int
    step: int = 0
    """Nodes finished so far when it started waiting (its progress event's step)."""
    timestamp: str = _happened()
    """When it happened (the API's local ISO time)."""


@dataclass(frozen=True)
class NodeFinished:
    """A graph node finished; `tool_names` are the tools it ran (for the tools node)."""

    node: str
    step: int
    tool_names: list[str] = field(default_factory=list)
    subagent: dict[str, str] | None = None
    """`{id, description}` when a sub-agent's graph ran the node (react_agent/subagents)."""
    answer_repair: dict[str, Any] | None = None
    """For review_answer (ANSWER_CHECK=repair): the check that sent the answer back for its
    repair turn, `{checked, supported, unsupported}`; None when the answer went on as it was."""
    timestamp: str = _happened()
    """When it happened (the API's local ISO time)."""


@dataclass(frozen=True)
class TokenStreamed:
    """New answer text from the model (no time: its envelope has none, and tokens are many)."""

    content: str
    subagent: dict[str, str] | None = None
    """`{id, description}` when a sub-agent's model wrote the text, not the answer's."""


@dataclass(frozen=True)
class RunFinished:
    """The run ended with an answer."""

    result: RunResult
    timestamp: str = _happened()
    """When it happened (the API's local ISO time)."""


@dataclass(frozen=True)
class RunFailed:
    """The run ended with an error."""

    error: ServiceError
    timestamp: str = _happened()
    """When it happened (the API's local ISO time)."""


RunEvent = (
    RunStarted
    | RunWaiting
    | SourceWaiting
    | NodeFinished
    | ToolCalled
    | ToolReturned
    | TokenStreamed
    | RunFinished
    | RunFailed
)
