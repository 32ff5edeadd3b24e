"""Response models for the OpenAPI document (requests: app.asking.validation.AskBody, queries)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field


class OpenModel(BaseModel):
    """A response model that may gain fields: clients must ignore unknown ones."""

    model_config = ConfigDict(extra="allow")


class ErrorData(OpenModel):
    """What went wrong."""

    error: str = Field(description="The detail, for developers and logs.")
    error_type: str = Field(description="A stable UPPER_SNAKE code, e.g. QUESTION_TOO_LONG.")
    can_retry: bool = Field(description="Whether the same request may succeed later.")
    timestamp: str
    conversation_id: str | None = None


class ErrorEnvelope(OpenModel):
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


class Records(OpenModel):
    """Rows of the SQL that ran."""

    columns: list[str]
    rows: list[dict[str, Any]]
    total_row_count: int
    is_limited: bool


class TokenUsage(OpenModel):
    """Tokens of the turn's model calls, summed, as the LLM server reported them."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class SqlRun(OpenModel):
    """One run_sql of the turn, in order."""

    sql: str
    row_count: int | None = Field(description="Rows in all when ok, else null.")
    result_id: str | None = Field(description="For read_result, when ok; else null.")
    status: Literal["ok", "refused", "error"]
    subagent: dict[str, str] | None = Field(
        default=None, description="{id, description} when a sub-agent ran it (delegate)."
    )


class AgentMeta(OpenModel):
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


class FinalData(OpenModel):
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


class AskEnvelope(OpenModel):
    """The sync endpoint's answer."""

    code: Literal[200]
    success: Literal[True]
    message: str
    data: FinalData


class StreamEventData(OpenModel):
    """`data` of a stream event; which fields appear depends on `type`.

    started: thread_id, conversation_id, user_id, timestamp. progress: node, display_name,
    icon, thread_id, step, timestamp, and tool_name/tool_names for `tools`. token: content.
    completed: the final data. interrupt: the final data with status awaiting_approval,
    kind sql_approval, interrupt_id, sql, tables, message (SQL approval), or status
    awaiting_clarification, kind clarification, interrupt_id, question, options, message
    (a clarifying question). error: the error data.
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
    status: (
        Literal["ok", "refused", "error", "awaiting_approval", "awaiting_clarification"] | None
    ) = Field(
        default=None,
        description="tool_result: ok, refused (the SQL guard said no) or error; interrupt: "
        "awaiting_approval or awaiting_clarification.",
    )
    question: str | None = Field(default=None, description="interrupt: the clarifying question.")
    options: list[str] | None = Field(
        default=None, description="interrupt: suggested answers to the clarifying question."
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


class StreamEvent(OpenModel):
    """One Server-Sent Event: `id: <run_id>:<seq>` and `data:` this envelope, one per line."""

    openapi_content_type: ClassVar[str] = "text/event-stream"

    code: int
    success: bool
    message: str
    data: StreamEventData


class HealthEnvelope(OpenModel):
    """The service's components; 503 (with the error fields) when it cannot answer."""

    code: int
    success: bool
    message: str
    data: dict[str, Any]
    status: Literal["healthy", "unhealthy"] = Field(
        description="Beside the envelope, for the replaced service's clients."
    )


class ReadyEnvelope(OpenModel):
    """Readiness, part by part; 503 (with the error fields) when a required part is down."""

    code: int
    success: bool
    message: str
    data: dict[str, Any] = Field(
        description="`ready`, and `parts`: data_database, checkpointer, agent (required), "
        "memory and model (reported only), each with `ok`, `required` and any `error_type`."
    )


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
