"""Response models for the OpenAPI document (requests: app.asking.validation.AskBody, queries)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Open(BaseModel):
    # Responses may gain fields; clients must ignore unknown ones.
    model_config = ConfigDict(extra="allow")


class ErrorData(_Open):
    """What went wrong."""

    error: str = Field(description="The detail, for developers and logs.")
    error_type: str = Field(description="A stable UPPER_SNAKE code, e.g. QUESTION_TOO_LONG.")
    can_retry: bool = Field(description="Whether the same request may succeed later.")
    timestamp: str
    conversation_id: str | None = None


class ErrorEnvelope(_Open):
    """An error: `code` is the HTTP status; the sync ask API also has the legacy `error`."""

    code: int = Field(ge=400, le=599)
    success: Literal[False]
    message: str = Field(description="A short sentence in the request's language.")
    data: ErrorData
    error: str | None = Field(
        default=None,
        description="Sync API only: data.error, or in zh-CN the replaced service's text for "
        "validation faults (several joined with '; ').",
    )


class Records(_Open):
    """Rows of the SQL that ran."""

    columns: list[str]
    rows: list[dict[str, Any]]
    total_row_count: int
    is_limited: bool


class TokenUsage(_Open):
    """Tokens of the turn's model calls, summed, as the LLM server reported them."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class SqlRun(_Open):
    """One run_sql of the turn, in order."""

    sql: str
    row_count: int | None = Field(description="Rows in all when ok, else null.")
    result_id: str | None = Field(description="For read_result, when ok; else null.")
    status: Literal["ok", "refused", "error"]
    subagent: dict[str, str] | None = Field(
        default=None, description="{id, description} when a sub-agent ran it (delegate)."
    )


class AgentMeta(_Open):
    """How the run went."""

    thread_id: str
    conversation_rounds: int
    tools_used: list[str]
    execution_path: list[str]
    total_messages: int
    sql_execution_count: int
    sql_refusal_count: int = Field(description="Queries the SQL guard refused for this question.")
    agent_version: str
    usage: TokenUsage | None = Field(
        default=None, description="Summed token usage; null when the server reports none."
    )
    conversation_id_ignored: bool | None = Field(
        default=None, description="True when conversation_id was sent too and thread_id won."
    )
    examples_used: list[str] = Field(
        default_factory=list, description="Ids of the stored examples and notes the model saw."
    )


class FinalData(_Open):
    """The answer to one question."""

    response: str
    conversation_id: str
    user_id: str
    react_agent_meta: AgentMeta
    sql: str | None = Field(default=None, description="The SQL that ran (absent if none).")
    records: Records | None = Field(default=None, description="Its rows (absent if none).")
    sqls: list[SqlRun] = Field(
        default_factory=list, description="Every run_sql of the turn, in order."
    )
    chart: dict[str, Any] | None = Field(
        default=None, description="A chart suggestion for the records, or null."
    )
    timestamp: str


class AskEnvelope(_Open):
    """The sync endpoint's answer."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: FinalData


class StreamEventData(_Open):
    """`data` of a stream event; which fields appear depends on `type`.

    started: thread_id, conversation_id, user_id, timestamp. progress: node, display_name,
    icon, thread_id, step, timestamp, and tool_name/tool_names for `tools`. token: content.
    completed: the final data. interrupt: the final data with status awaiting_approval,
    kind, interrupt_id, sql, tables, message (SQL approval). error: the error data.
    end: thread_id.
    With `stream_tools`: tool_call (tool_call_id, tool_name, args, sql for run_sql/check_sql,
    step, thread_id, timestamp) and tool_result (tool_call_id, tool_name, status, row_count,
    columns, rows, is_limited, result_id, duration_ms, error unless ok, step, thread_id,
    timestamp). search_examples's pair also has auto (true: the memory's retrieval before
    the model's first call, which is also a `retrieve_examples` progress step when it found
    examples) and its result example_ids and example_count.
    """

    type: Literal[
        "started",
        "progress",
        "tool_call",
        "tool_result",
        "token",
        "completed",
        "interrupt",
        "error",
        "end",
    ]
    thread_id: str | None = None
    node: str | None = None
    display_name: str | None = None
    icon: str | None = None
    step: int | None = None
    tool_name: str | None = None
    content: str | None = None
    tool_call_id: str | None = Field(default=None, description="tool_call and tool_result.")
    args: dict[str, Any] | None = Field(default=None, description="tool_call: the arguments.")
    sql: str | None = Field(default=None, description="tool_call of run_sql/check_sql.")
    status: Literal["ok", "refused", "error", "awaiting_approval"] | None = Field(
        default=None,
        description="tool_result: ok, refused (the SQL guard said no) or error; interrupt: "
        "awaiting_approval.",
    )
    row_count: int | None = Field(default=None, description="tool_result: rows in all.")
    columns: list[str] | None = None
    rows: list[dict[str, Any]] | None = Field(
        default=None, description="tool_result: the preview rows the model saw."
    )
    is_limited: bool | None = None
    result_id: str | None = None
    duration_ms: int | None = Field(default=None, description="tool_result: since its tool_call.")
    subagent: dict[str, str] | None = Field(
        default=None,
        description="{id, description} on a sub-agent's progress, tool_call, tool_result and "
        "token events (the delegate tool); absent on the main agent's.",
    )


class StreamEvent(_Open):
    """One Server-Sent Event: `id: <run_id>:<seq>` and `data:` this envelope, one per line."""

    openapi_content_type: ClassVar[str] = "text/event-stream"

    code: int
    success: bool
    message: str
    data: StreamEventData


class HealthEnvelope(_Open):
    """The service's components; 503 (with the error fields) when it cannot answer."""

    code: int
    success: bool
    message: str
    data: dict[str, Any]
    status: Literal["healthy", "unhealthy"] = Field(
        description="Beside the envelope, for the replaced service's clients."
    )


class ConversationSummary(_Open):
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


class ConversationList(_Open):
    """A user's conversations, newest first."""

    user_id: str
    conversations: list[ConversationSummary]
    count: int = Field(description="How many are in this answer.")
    total_count: int = Field(description="How many conversations the user has in all.")
    limit: int = Field(description="The limit applied: the one asked for, clamped to 1–50.")


class ConversationListEnvelope(_Open):
    """The conversation list in the envelope."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: ConversationList


class ConversationMessage(_Open):
    """One message of a conversation."""

    message_id: str | None
    role: Literal["human", "ai", "tool", "system"] = Field(
        description="The LangChain message type, as the replaced service named roles."
    )
    content: str
    timestamp: str | None


class HistoryQuery(_Open):
    """One SQL query a turn ran."""

    sql: str
    result_id: str = Field(description="Its id for read_result.")
    rows: int = Field(description="Its total row count.")


class HistoryBlock(_Open):
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


class Conversation(_Open):
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


class ConversationEnvelope(_Open):
    """One conversation in the envelope."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: Conversation


class SubagentStatus(_Open):
    """Where one sub-agent of a running delegate call is."""

    id: str = Field(description="`<tool_call_id>-<n>`, as in the events' `subagent`.")
    description: str
    status: Literal["waiting", "running", "completed", "failed"]
    node: str = Field(description="The node it is about to run, or `__end__`.")
    name: str = Field(description="The node's display name.")
    icon: str
    step: int = Field(description="Steps it has done (its last progress event's step).")


class ThreadStatus(_Open):
    """Whether a thread is answering now, and in which step."""

    thread_id: str
    conversation_id: str
    user_id: str
    status: Literal["running", "completed", "interrupted", "awaiting_approval"]
    node: str = Field(description="The step: next to run, stopped before, or `__end__`.")
    name: str = Field(description="The step's display name (the same as display_name).")
    display_name: str
    icon: str
    timestamp: str = Field(description="When this status was read.")
    message_count: int | None = None
    updated_at: str | None = None
    approval: dict[str, Any] | None = Field(
        default=None,
        description="With awaiting_approval: the pending SQL, its tables and interrupt_id.",
    )
    subagents: list[SubagentStatus] | None = Field(
        default=None, description="While a delegate call runs: each of its sub-agents."
    )


class ThreadStatusEnvelope(_Open):
    """A thread's status in the envelope."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: ThreadStatus


class StreamHeaders(BaseModel):
    """Headers of a stream request."""

    model_config = ConfigDict(populate_by_name=True)

    last_event_id: str | None = Field(
        default=None,
        alias="Last-Event-ID",
        description="Sent by a reconnecting EventSource: resume that run, or 204 if it ended.",
    )
    accept: str | None = Field(
        default=None,
        alias="Accept",
        description="application/x-ndjson for NDJSON (one JSON object per line; also "
        "?format=ndjson); otherwise Server-Sent Events.",
    )


class CsvFile(BaseModel):
    """A CSV file: UTF-8 with a BOM, a header line, then the rows (RFC 4180, CRLF)."""

    openapi_content_type: ClassVar[str] = "text/csv"


class NoContent(BaseModel):
    """No body: the run this reconnect names has nothing more to send."""

    openapi_no_content: ClassVar[bool] = True
