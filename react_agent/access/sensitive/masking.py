"""Sensitive values kept from the model: stable tokens at the one boundary into the model.

A query result that carries sensitive columns says so in its tool message's artifact
(`sensitive_columns`, with the real `records`). Before any model call, every value of
those columns found anywhere in the state's artifacts is replaced by a token such as
`‹customer_name#k3v9q2x7m4b1c›` in everything the model is about to read: tool results,
the system prompt with its history blocks and examples, sub-agent results. The same value
gives the same token, so the model can still count and group what it reads; a token is 64
bits of a keyed HMAC (13 base32 characters), so two values of a column do not share one.
Which result columns are sensitive comes from the lineage pass (access/sensitive/lineage), by
position; the tools also write their results for the model with tokens (`tokenised_rows`),
so a value too short to be replaced in free text never reaches it either.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage

_KEY = [secrets.token_bytes(32)]
"""The tokens' HMAC key: random per process unless ACCESS_TOKEN_KEY sets one."""
MIN_VALUE_LENGTH = 2
"""Shorter values are left alone: replacing one character would mangle every text."""


def set_token_key(key: str) -> None:
    """Use `key` for the tokens, so every worker gives a value the same token."""
    _KEY[0] = key.encode("utf-8")


TOKEN_BITS = 64
"""Bits of the HMAC a token keeps: collisions stay unlikely in columns of millions of values."""
_LABEL = re.compile(r"[^\w]+")


def token_for(column: str, value: Any) -> str:
    """Return the stable token that stands for `value` of `column`."""
    digest = hmac.new(_KEY[0], str(value).encode("utf-8"), hashlib.sha256).digest()
    code = base64.b32encode(digest[: TOKEN_BITS // 8]).decode("ascii").rstrip("=").lower()
    label = _LABEL.sub("_", column).strip("_")[:40] or "value"
    return f"‹{label}#{code}›"


def sensitive_names(
    columns: Sequence[str],
    positions: Sequence[int],
    output_count: int | None,
    names: Sequence[str] = (),
) -> list[str]:
    """Return the result's column names at the lineage's sensitive positions.

    When the result has another number of columns than the lineage saw (`*` over a join
    USING a column, which the database shows once), the sensitive outputs are matched by
    name; if one has no name or none of the result's, every column counts as sensitive.
    """
    if output_count is None:
        return []
    if output_count == len(columns):
        return [columns[i] for i in positions]
    by_name = {column.lower(): column for column in columns}
    if len(names) == len(positions) and all(name in by_name for name in names):
        return sorted({by_name[name] for name in names}, key=list(columns).index)
    return list(columns)


def tokenised_rows(
    rows: Sequence[Mapping[str, Any]], columns: Iterable[str]
) -> list[dict[str, Any]]:
    """Return `rows` with the values of `columns` replaced by their tokens (None stays None)."""
    sensitive = set(columns)
    if not sensitive:
        return [dict(row) for row in rows]
    return [
        {
            name: token_for(name, value) if name in sensitive and value is not None else value
            for name, value in row.items()
        }
        for row in rows
    ]


def sensitive_values(artifacts: Iterable[Any]) -> dict[str, str]:
    """Return value text → token for every sensitive value in the artifacts (nested too)."""
    found: dict[str, str] = {}
    stack = list(artifacts)
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            columns = item.get("sensitive_columns")
            records = item.get("records")
            if columns and isinstance(records, Mapping):
                _collect(found, {c.lower() for c in columns}, records)
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return found


def _collect(found: dict[str, str], columns: set[str], records: Mapping[str, Any]) -> None:
    for row in records.get("rows") or ():
        for column, value in row.items():
            if column.lower() in columns and value is not None:
                text = str(value)
                if len(text) >= MIN_VALUE_LENGTH:
                    found.setdefault(text, token_for(column, value))


def mask_text(text: str, replacements: Mapping[str, str]) -> str:
    """Return `text` with every sensitive value replaced (longest first, so no half-matches)."""
    for value in sorted(replacements, key=len, reverse=True):
        if value in text:
            text = text.replace(value, replacements[value])
    return text


def mask_for_model(
    messages: Sequence[BaseMessage], state_messages: Sequence[BaseMessage]
) -> list[BaseMessage]:
    """Return `messages` with the sensitive values of `state_messages`' results tokenised."""
    replacements = sensitive_values(getattr(m, "artifact", None) for m in state_messages)
    if not replacements:
        return list(messages)
    return [_masked(message, replacements) for message in messages]


def _masked(message: BaseMessage, replacements: Mapping[str, str]) -> BaseMessage:
    content = message.content
    if isinstance(content, str):
        new: Any = mask_text(content, replacements)
    else:
        new = [
            {**part, "text": mask_text(part["text"], replacements)}
            if isinstance(part, dict) and isinstance(part.get("text"), str)
            else mask_text(part, replacements)
            if isinstance(part, str)
            else part
            for part in content
        ]
    update: dict[str, Any] = {"content": new}
    tool_calls = getattr(message, "tool_calls", None)
    if tool_calls:
        update["tool_calls"] = [
            {**call, "args": _mask_data(call.get("args"), replacements)} for call in tool_calls
        ]
    return message.model_copy(update=update)


def _mask_data(data: Any, replacements: Mapping[str, str]) -> Any:
    if isinstance(data, str):
        return mask_text(data, replacements)
    if isinstance(data, Mapping):
        return {k: _mask_data(v, replacements) for k, v in data.items()}
    if isinstance(data, list):
        return [_mask_data(v, replacements) for v in data]
    return data
