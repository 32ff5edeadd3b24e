"""Moving rated answers into the examples: thumb up → example, thumb down → known-wrong SQL."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from react_agent.databases.base import SQLDatabase
from react_agent.errors import ServiceError
from react_agent.memory.curation.items import CheckedItem, check_item
from react_agent.memory.curation.verification import run_check
from react_agent.memory.examples import ERROR_SQL, PROPOSED, SQL
from react_agent.memory.store import Memory

logger = logging.getLogger(__name__)


async def add_feedback_to_examples(
    memory: Memory,
    feedback_ids: list[int],
    *,
    dialect: str,
    allowed_tables: frozenset[str] | None,
    database: SQLDatabase | None = None,
    status: str = PROPOSED,
    timeout: float = 15.0,
) -> dict[str, Any]:
    """Store the rated pairs as examples; already-moved ones are counted, not stored again.

    A new example starts with `status` (proposed by default: not served until an admin
    verifies it), and then its SQL is run once under the guard and the result kept beside
    it for the reviewer. A pair already stored (same type, question and SQL) is not stored
    twice: the rating is linked to it and counted as already trained.

    Args:
        memory: The memory.
        feedback_ids: The ratings to move.
        dialect: The data database's dialect, for the SQL guard.
        allowed_tables: The tables the model's SQL may read, for the SQL guard.
        database: The data database a proposed example's SQL is run on once.
        status: The new examples' review status (MEMORY_FEEDBACK_STATUS).
        timeout: Seconds that run may take.

    Raises:
        ServiceError: 404 when none of the ids is a rating.

    """
    records = [
        await memory.feedback.get(feedback_id) for feedback_id in dict.fromkeys(feedback_ids)
    ]
    found = [record for record in records if record is not None]
    if not found:
        raise ServiceError(404, "FEEDBACK_NOT_FOUND", f"no feedback with ids {feedback_ids}")
    counts = {"positive": 0, "negative": 0, "already": 0, "errors": 0}
    trained: list[int] = []
    errors: list[dict[str, Any]] = []
    for record in found:
        if record["is_in_training_data"]:
            counts["already"] += 1
            continue
        kind = SQL if record["is_thumb_up"] else ERROR_SQL
        fields = {"training_data_type": kind, "question": record["question"], "sql": record["sql"]}
        try:
            item = check_item(fields, dialect, allowed_tables)
        except ServiceError as exc:
            counts["errors"] += 1
            errors.append({"feedback_id": record["id"], "error": exc.detail})
            continue
        check = None
        if status == PROPOSED:
            check = partial(
                run_check, database, item.content, allowed_tables=allowed_tables, timeout=timeout
            )
        if not await _store_once(memory, item, record["id"], status, check):
            counts["already"] += 1
            continue
        counts["positive" if kind == SQL else "negative"] += 1
        trained.append(record["id"])
    return {
        "summary": {
            "total_requested": len(feedback_ids),
            "total_processed": len(found),
            "positive_trained": counts["positive"],
            "negative_trained": counts["negative"],
            "already_trained": counts["already"],
            "errors": counts["errors"],
        },
        "successfully_trained_ids": trained,
        "not_found_ids": [
            i for i, r in zip(dict.fromkeys(feedback_ids), records, strict=True) if r is None
        ],
        "error_details": errors,
        "training_details": {
            "sql_training_count": counts["positive"],
            "error_sql_training_count": counts["negative"],
        },
    }


async def _store_once(
    memory: Memory,
    item: CheckedItem,
    feedback_id: int,
    status: str,
    check: Callable[[], Awaitable[str]] | None,
) -> bool:
    """Store the rated pair unless it is stored already; link the rating either way.

    Returns whether a new example was stored.
    """
    assert item.question is not None
    existing = await memory.examples.find_pair(item.training_data_type, item.question, item.content)
    if existing is None:
        stored = await memory.examples.add(
            item.training_data_type,
            item.question,
            item.content,
            source_feedback_id=feedback_id,
            status=status,
            check_result=await check() if check is not None else None,
        )
    await memory.feedback.mark_in_training(feedback_id, (existing or stored).id)
    return existing is None
