"""The stream endpoint's events, its request headers, and the 204 of an ended run."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.schemas.base import OpenModel


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


class NoContent(BaseModel):
    """No body: the run this reconnect names has nothing more to send."""

    openapi_no_content: ClassVar[bool] = True
