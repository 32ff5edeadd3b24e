"""Checking one example or note before it is stored: its fields, and its SQL through the guard."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from react_agent.errors import ServiceError, bad_request
from react_agent.guard.sql_guard import QueryRejected, check_query
from react_agent.memory.examples import DDL, DOCUMENTATION, ERROR_SQL, SQL, TRAINING_DATA_TYPES

MAX_QUESTION_CHARS = 2000
MAX_CONTENT_CHARS = 20000


@dataclass(frozen=True)
class CheckedItem:
    """An item ready to store: its type, its question (pairs only) and its SQL or note."""

    training_data_type: str
    question: str | None
    content: str


def check_item(
    fields: dict[str, Any], dialect: str, allowed_tables: frozenset[str] | None
) -> CheckedItem:
    """Return the item `fields` describes, or raise a 400 that says what is wrong.

    `sql` and `error_sql` need `question` and `sql`, and the SQL must pass the same guard
    as the model's queries (a known-wrong query may be wrong, but never a write);
    `documentation` needs `content`; `ddl` needs `ddl`, kept as a schema note.

    Args:
        fields: The item as a client sent it, with `training_data_type`.
        dialect: The data database's dialect, for the guard.
        allowed_tables: The tables the model's SQL may read, for the guard.

    """
    kind = fields.get("training_data_type")
    if kind not in TRAINING_DATA_TYPES:
        detail = f"training_data_type must be one of {', '.join(TRAINING_DATA_TYPES)}"
        raise bad_request("INVALID_REQUEST", detail, reason=detail)
    if kind in (SQL, ERROR_SQL):
        question = _text_field(fields, "question", MAX_QUESTION_CHARS)
        sql = _text_field(fields, "sql", MAX_CONTENT_CHARS)
        try:
            check_query(sql, dialect, allowed_tables)
        except QueryRejected as exc:
            raise ServiceError(
                400, "EXAMPLE_SQL_REFUSED", f"the example's SQL was refused: {exc.reason}"
            ) from exc
        return CheckedItem(kind, question, sql)
    name = "content" if kind == DOCUMENTATION else "ddl"
    assert kind in (DOCUMENTATION, DDL)
    return CheckedItem(kind, None, _text_field(fields, name, MAX_CONTENT_CHARS))


def _text_field(fields: dict[str, Any], name: str, limit: int) -> str:
    value = fields.get(name)
    if not isinstance(value, str) or not value.strip():
        detail = f"{fields.get('training_data_type')} needs a non-empty string {name}"
        raise bad_request("INVALID_REQUEST", detail, reason=detail)
    value = value.strip()
    if len(value) > limit:
        detail = f"{name} has {len(value)} characters; the limit is {limit}"
        raise bad_request("INVALID_REQUEST", detail, reason=detail)
    return value
