"""Reviewing examples: a proposed one is run once under the guard, and only reviewed ones serve.

Who sets which status: an item an admin writes (training_data/create) is `verified`, since a
person wrote it; an example moved from feedback (add_to_training) starts `proposed` (the
MEMORY_FEEDBACK_STATUS setting) with the result of one run of its SQL stored beside it; an
admin sets `verified` or `rejected` through training_data/update. A rejected example becomes
an `error_sql` negative, which is served as known-wrong SQL.
"""

from __future__ import annotations

import json
import logging

from react_agent.databases.base import SQLDatabase
from react_agent.errors import ServiceError, bad_request
from react_agent.guard.sql_guard import QueryRejected, check_query
from react_agent.memory.examples import ERROR_SQL, REJECTED, SQL, STATUSES, MemoryItem
from react_agent.timestamps import storage_timestamp

logger = logging.getLogger(__name__)

CHECK_ROWS = 20
"""Rows of a proposed example's result kept for the reviewer."""


async def run_check(
    database: SQLDatabase | None,
    sql: str,
    *,
    allowed_tables: frozenset[str] | None,
    timeout: float,
) -> str:
    """Run a proposed example's SQL once, under the guard; return the JSON stored with it."""
    outcome: dict[str, object] = {"ran_at": storage_timestamp()}
    if database is None:
        outcome["error"] = "the data database is not open"
        return json.dumps(outcome, ensure_ascii=False)
    try:
        check_query(sql, database.dialect, allowed_tables)
        result = await database.run_query(sql, row_limit=CHECK_ROWS, timeout=timeout)
    except QueryRejected as exc:
        outcome["error"] = f"refused: {exc.reason}"
    except Exception as exc:  # a failing example is stored with its error for the reviewer
        logger.info("a proposed example's SQL failed: %s", exc)
        outcome["error"] = str(exc) or type(exc).__name__
    else:
        outcome.update(result.as_records())
    return json.dumps(outcome, ensure_ascii=False)


def reviewed_type(item: MemoryItem, status: str) -> str:
    """Return the item's type once `status` is set; raise 400 for a change that makes no sense.

    Only a question→SQL example can be rejected (it becomes `error_sql`); a wrong note or a
    wrong negative is deleted instead.
    """
    if status not in STATUSES:
        detail = f"status must be one of {', '.join(STATUSES)}"
        raise bad_request("INVALID_REQUEST", detail, reason=detail)
    if status != REJECTED or item.status == REJECTED:
        return item.training_data_type
    if item.training_data_type != SQL:
        raise ServiceError(
            400,
            "CANNOT_REJECT",
            f"only an sql example can be rejected (it becomes error_sql); "
            f"delete this {item.training_data_type} item instead",
        )
    return ERROR_SQL
