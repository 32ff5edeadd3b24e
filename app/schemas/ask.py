"""The sync ask endpoint's answer: the final data (requests: app.asking.validation.AskBody)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from app.schemas.base import OpenModel


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
    instructions: list[str] | None = Field(
        default=None,
        description="Ids of the business instructions (semantic file) the model's prompt "
        "held; absent when none applied.",
    )
    lint: list[dict[str, Any]] | None = Field(
        default=None,
        description="SQL lint warnings on the turn's statements, {rule, message, sql, repair?}; "
        "absent when none (SQL_LINT, docs/lint.md).",
    )
    confidence: dict[str, Any] | None = Field(
        default=None,
        description="When more SQL candidates were written for the answer (ANSWER_CANDIDATES, "
        "docs/candidates.md): {candidates, agreeing, method, outcome, trigger, sampling, "
        "queries: [{sql, status, row_count, group, answers}]}; absent otherwise.",
    )
    scope_note: str | None = Field(
        default=None,
        description="When the answer's query returned no rows under the asker's row filters: "
        "the line saying nothing they may see matches, naming their filters; absent otherwise.",
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
