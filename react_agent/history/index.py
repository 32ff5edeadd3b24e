"""The compact index of earlier turns: one line per block, newest first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

QUESTION_CHARS = 60
"""Longest question shown on an index line."""

INDEX_HEADER = (
    "Earlier turns of this conversation, newest first ({shown} of {total}{more}). Their "
    "messages are not shown: call search_history to find turns by words, tables or result "
    "ids, read_history(block_id) for a turn's messages, read_result(result_id) for its rows."
)


def index_line(block: dict[str, Any]) -> str:
    """Return one block as an index line: id, time, question, tables and result ids."""
    question = " ".join(str(block.get("question", "")).split())
    if len(question) > QUESTION_CHARS:
        question = question[: QUESTION_CHARS - 1] + "…"
    time = str(block.get("time") or "")[:16].replace("T", " ")
    parts = [f"[{block['block_id']}] {time} {question}".replace("  ", " ")]
    if block.get("tables"):
        parts.append("tables: " + ", ".join(block["tables"]))
    if block.get("queries"):
        parts.append(
            "results: "
            + ", ".join(f"{q['result_id']} ({q['rows']} rows)" for q in block["queries"])
        )
    return " | ".join(parts)


def newest_first(blocks: Sequence[dict[str, Any]], before_turn: int) -> list[dict[str, Any]]:
    """Return the blocks of turns before `before_turn`, newest first."""
    return sorted(
        (block for block in blocks if block["turn"] < before_turn),
        key=lambda block: -block["turn"],
    )


def index_section(blocks: Sequence[dict[str, Any]], before_turn: int, index_max: int) -> str:
    """Return the prompt's index of the turns before `before_turn` ('' when there are none).

    At most `index_max` lines; list_history pages through the rest.
    """
    earlier = newest_first(blocks, before_turn)
    if not earlier:
        return ""
    shown = earlier[:index_max]
    more = "; list_history shows the older ones" if len(earlier) > len(shown) else ""
    header = INDEX_HEADER.format(shown=len(shown), total=len(earlier), more=more)
    return "\n".join([header, *(index_line(block) for block in shown)])


def index_page(blocks: Sequence[dict[str, Any]], offset: int, limit: int) -> str:
    """Return one page of the index of every block, newest first, with how to get the next."""
    ordered = newest_first(blocks, before_turn=10**9)
    page = ordered[offset : offset + limit]
    if not page:
        return f"No turns at offset {offset}; the conversation has {len(ordered)} finished turns."
    end = offset + len(page)
    lines = [f"Turns {offset + 1}–{end} of {len(ordered)}, newest first:"]
    lines += [index_line(block) for block in page]
    if end < len(ordered):
        lines.append(f"More: list_history(offset={end}, limit={limit})")
    return "\n".join(lines)
