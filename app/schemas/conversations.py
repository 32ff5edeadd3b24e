"""Response models of the conversation endpoints (lists, one conversation, status)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from app.schemas.base import OpenModel


class ConversationSummary(OpenModel):
    """One conversation in a user's list."""

    conversation_id: str
    thread_id: str
    user_id: str
    title: str = Field(description="The first question, shortened to 30 characters.")
    conversation_title: str = Field(
        description="The first question: its first 50 characters then `...` when longer."
    )
    last_message: str = Field(description="The user's newest question.")
    last_answer: str = Field(description="The newest answer, shortened to 100 characters.")
    message_count: int
    created_at: str | None
    updated_at: str | None


class ConversationList(OpenModel):
    """A user's conversations, newest first."""

    user_id: str
    conversations: list[ConversationSummary]
    count: int = Field(description="How many are in this answer.")
    total_count: int = Field(description="How many conversations the user has in all.")
    limit: int = Field(description="The limit applied: the one asked for, clamped to 1–50.")


class ConversationListEnvelope(OpenModel):
    """The conversation list in the envelope."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: ConversationList


class ConversationMessage(OpenModel):
    """One message of a conversation."""

    message_id: str | None
    role: Literal["human", "ai", "tool", "system"] = Field(
        description="The LangChain message type, as the replaced service named roles."
    )
    content: str
    timestamp: str | None


class HistoryQuery(OpenModel):
    """One SQL query a turn ran."""

    sql: str
    result_id: str = Field(description="Its id for read_result.")
    rows: int = Field(description="Its total row count.")


class HistoryBlock(OpenModel):
    """One finished question/answer turn, as the model's history index and tools see it."""

    block_id: str = Field(description="`turn-<n>`.")
    turn: int = Field(description="1-based number of the turn in the thread.")
    time: str | None = Field(description="When the question was asked.")
    question: str
    queries: list[HistoryQuery]
    tables: list[str] = Field(description="Tables the queries read.")
    columns: list[str] = Field(description="Columns the queries name.")
    summary: str = Field(description="The answer's first sentence, at most 80 characters.")
    message_count: int


class Conversation(OpenModel):
    """One conversation's messages."""

    conversation_id: str
    thread_id: str
    user_id: str
    title: str
    conversation_title: str
    message_count: int
    total_checkpoints: int = Field(description="How many checkpoints the thread has saved.")
    created_at: str | None
    updated_at: str | None
    messages: list[ConversationMessage]
    blocks: list[HistoryBlock] = Field(
        description="One block per finished turn, oldest first (see README: History)."
    )
    turns: list[dict[str, Any]] = Field(
        default_factory=list,
        description="One item per question, oldest first: question, answer, timestamp, sql, "
        "sqls, records, chart and result_id, as the final data of that question had them, "
        "and answer_check for an answered question unless ANSWER_CHECK=off; confidence "
        "when SQL candidates weighed the answer (ANSWER_CANDIDATES).",
    )


class ConversationEnvelope(OpenModel):
    """One conversation in the envelope."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: Conversation


class SubagentStatus(OpenModel):
    """Where one sub-agent of a running delegate call is."""

    id: str = Field(description="`<tool_call_id>-<n>`, as in the events' `subagent`.")
    description: str
    status: Literal["waiting", "running", "completed", "failed"]
    node: str = Field(description="The node it is about to run, or `__end__`.")
    name: str = Field(description="The node's display name.")
    icon: str
    step: int = Field(description="Steps it has done (its last progress event's step).")


class ThreadStatus(OpenModel):
    """Whether a thread is answering now, and in which step."""

    thread_id: str
    conversation_id: str
    user_id: str
    status: Literal[
        "running", "completed", "interrupted", "awaiting_approval", "awaiting_clarification"
    ]
    node: str = Field(description="The step: next to run, stopped before, or `__end__`.")
    name: str = Field(description="The step's display name (the same as display_name).")
    display_name: str
    icon: str
    timestamp: str = Field(description="When this status was read.")
    message_count: int | None = None
    updated_at: str | None = None
    approval: dict[str, Any] | None = Field(
        default=None,
        description="With awaiting_approval: the pending SQL, its tables and interrupt_id; "
        "with awaiting_clarification: the question, its options and interrupt_id.",
    )
    subagents: list[SubagentStatus] | None = Field(
        default=None, description="While a delegate call runs: each of its sub-agents."
    )


class ThreadStatusEnvelope(OpenModel):
    """A thread's status in the envelope."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: ThreadStatus
