"""Turn blocks: one self-contained record per finished question/answer turn."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage

from react_agent.graph.messages import message_text, requests_tools
from react_agent.graph.model_input.trimming import split_turns
from react_agent.graph.state import append_blocks
from react_agent.history.sql_terms import sql_terms

SUMMARY_CHARS = 80
"""Longest one-line summary of a block (the first sentence of the answer)."""

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.)\s|\n")


def block_id_of(turn: int) -> str:
    """Return the id of the block of turn `turn` (1-based) of a thread."""
    return f"turn-{turn}"


def summarize_answer(answer: str) -> str:
    """Return the first sentence of an answer on one line, cut at SUMMARY_CHARS characters."""
    text = answer.strip()
    first = _SENTENCE_END.split(text, maxsplit=1)[0] if text else ""
    first = " ".join(first.split())
    return first if len(first) <= SUMMARY_CHARS else first[: SUMMARY_CHARS - 1] + "…"


def is_finished(turn: Sequence[AnyMessage]) -> bool:
    """Whether a turn ends with an answer (not with a question or a pending tool call)."""
    last = turn[-1]
    return isinstance(last, AIMessage) and not requests_tools(last)


def build_block(turn: Sequence[AnyMessage], number: int, dialect: str | None) -> dict[str, Any]:
    """Return the block of one finished turn, numbered `number` (1-based) in its thread."""
    question = next((m for m in turn if isinstance(m, HumanMessage)), turn[0])
    queries, tables, columns = [], [], []
    for message in turn:
        artifact = message.artifact if isinstance(message, ToolMessage) else None
        if not isinstance(artifact, dict) or artifact.get("outcome") != "ok":
            continue
        if not artifact.get("result_id"):
            continue
        queries.append(
            {
                "sql": artifact["sql"],
                "result_id": artifact["result_id"],
                "rows": artifact["records"]["total_row_count"],
            }
        )
        read_tables, read_columns = sql_terms(artifact["sql"], dialect)
        tables += read_tables
        columns += read_columns
    return {
        "block_id": block_id_of(number),
        "turn": number,
        "time": question.response_metadata.get("timestamp"),
        "question": message_text(question),
        "queries": queries,
        "tables": list(dict.fromkeys(tables)),
        "columns": list(dict.fromkeys(columns)),
        "summary": summarize_answer(message_text(turn[-1])),
        "message_count": len(turn),
    }


def latest_block(messages: Sequence[AnyMessage], dialect: str | None) -> dict[str, Any]:
    """Return the block of the newest turn of `messages`, which has just finished."""
    turns = split_turns(messages)
    return build_block(turns[-1], len(turns), dialect)


def missing_blocks(
    messages: Sequence[AnyMessage], blocks: Sequence[dict[str, Any]], dialect: str | None
) -> list[dict[str, Any]]:
    """Return blocks for the finished turns that have none yet (threads written before blocks)."""
    known = {block["block_id"] for block in blocks}
    return [
        build_block(turn, number, dialect)
        for number, turn in enumerate(split_turns(messages), start=1)
        if block_id_of(number) not in known and is_finished(turn)
    ]


def thread_blocks(
    messages: Sequence[AnyMessage], blocks: Sequence[dict[str, Any]], dialect: str | None
) -> list[dict[str, Any]]:
    """Return every block of a thread, oldest first: the recorded ones and any missing."""
    return append_blocks(list(blocks), missing_blocks(messages, blocks, dialect))


def turn_messages(messages: Sequence[AnyMessage], turn: int) -> list[AnyMessage]:
    """Return the original messages of turn `turn` (1-based), or none if there is no such turn."""
    turns = split_turns(messages)
    return list(turns[turn - 1]) if 1 <= turn <= len(turns) else []


def turn_of_message(messages: Sequence[AnyMessage], message_id: str | None) -> int:
    """Return the 1-based turn holding the message `message_id` (1 if it is unknown)."""
    turn = 0
    for message in messages:
        turn += isinstance(message, HumanMessage)
        if message.id == message_id:
            return max(turn, 1)
    return 1
