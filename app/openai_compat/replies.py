"""What an answer looks like to a chat front-end: step lines, Markdown content, chunks."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from config import node_display
from react_agent.results.answer_check import unsupported_note
from react_agent.results.candidate_groups import confidence_note
from react_agent.runs.events.events import NodeFinished, RunResult

TABLE_ROWS = 20
"""Rows of the result shown as a Markdown table under the answer."""


@dataclass(frozen=True)
class Completion:
    """Who a completion is for and what it is called."""

    completion_id: str
    model: str
    conversation_id: str
    lang: str
    include_usage: bool = False
    """Whether the stream ends with a usage chunk (`stream_options.include_usage`)."""
    created: int = field(default_factory=lambda: int(time.time()))


def step_line(event: NodeFinished, lang: str) -> str:
    """Return one graph step as a line, e.g. "⚙️ 执行查询 run_sql" (the stream's display map)."""
    display = node_display(event.node, lang)
    words = [display["icon"], display["display_name"], *event.tool_names]
    return " ".join(word for word in words if word) + "\n"


def answer_markdown(result: RunResult) -> str:
    """Return the answer (and notes: unsupported figures, candidates), the SQL and first rows."""
    parts = [
        result.answer.strip(),
        unsupported_note(result.answer_check) or "",
        confidence_note(result.confidence) or "",
    ]
    if result.sql and result.show_sql:  # a role without show_sql gets no SQL
        parts.append(f"```sql\n{result.sql.strip()}\n```")
    if result.records and result.records.get("columns"):
        parts.append(markdown_table(result.records))
    return "\n\n".join(part for part in parts if part)


def markdown_table(records: dict[str, Any], limit: int = TABLE_ROWS) -> str:
    """Return the first `limit` rows as a Markdown table, noting how many there are in all."""
    columns: list[str] = records["columns"]
    rows: list[dict[str, Any]] = records.get("rows") or []
    lines = [
        "| " + " | ".join(_cell(name) for name in columns) + " |",
        "|" + "---|" * len(columns),
    ]
    lines += ["| " + " | ".join(_cell(row.get(c)) for c in columns) + " |" for row in rows[:limit]]
    total = int(records.get("total_row_count") or len(rows))
    if total > min(limit, len(rows)):
        lines.append(f"\n({min(limit, len(rows))} / {total} rows)")
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def usage_body(usage: dict[str, int] | None) -> dict[str, Any]:
    """Return OpenAI's `usage` of a run's summed token usage (zeros when none was reported).

    The provider's cached prompt tokens, when it said, go where OpenAI puts them:
    `prompt_tokens_details.cached_tokens`.
    """
    usage = usage or {}
    prompt = int(usage.get("prompt_tokens") or 0)
    completion = int(usage.get("completion_tokens") or 0)
    total = int(usage.get("total_tokens") or prompt + completion)
    body: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": total,
    }
    if usage.get("cached_tokens") is not None:
        body["prompt_tokens_details"] = {"cached_tokens": int(usage["cached_tokens"])}
    return body


def completion_body(
    completion: Completion, content: str, reasoning: str, usage: dict[str, int] | None
) -> dict[str, Any]:
    """Return a whole `chat.completion` (the non-streaming answer) with its token usage."""
    return {
        "id": completion.completion_id,
        "object": "chat.completion",
        "created": completion.created,
        "model": completion.model,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": content,
                    "reasoning_content": reasoning,
                },
                "finish_reason": "stop",
            }
        ],
        "usage": usage_body(usage),
        "conversation_id": completion.conversation_id,
    }


def chunk_event(
    completion: Completion, delta: dict[str, Any], finish_reason: str | None = None
) -> bytes:
    """Return one `chat.completion.chunk` as an SSE `data:` event.

    With `include_usage`, every chunk carries `usage: null`, as OpenAI's do, until the
    last one (`usage_chunk_event`).
    """
    chunk = _chunk(completion, [{"index": 0, "delta": delta, "finish_reason": finish_reason}])
    if finish_reason is not None:
        chunk["conversation_id"] = completion.conversation_id
    return data_event(chunk)


def usage_chunk_event(completion: Completion, usage: dict[str, int] | None) -> bytes:
    """Return the last chunk of `stream_options.include_usage`: no choices, the run's usage."""
    chunk = _chunk(completion, [])
    chunk["usage"] = usage_body(usage)
    chunk["conversation_id"] = completion.conversation_id
    return data_event(chunk)


def _chunk(completion: Completion, choices: list[dict[str, Any]]) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": completion.completion_id,
        "object": "chat.completion.chunk",
        "created": completion.created,
        "model": completion.model,
        "choices": choices,
    }
    if completion.include_usage:
        chunk["usage"] = None
    return chunk


def data_event(payload: dict[str, Any]) -> bytes:
    """Return an SSE event whose one `data:` line is `payload` as JSON."""
    return b"data: " + json.dumps(payload, ensure_ascii=False).encode() + b"\n\n"


DONE_EVENT = b"data: [DONE]\n\n"
