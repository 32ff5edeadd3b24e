"""A scripted model that behaves like a tool-calling one, and the prefix share of its requests.

The policy answers the OpenAI stub's chat-completions requests as a careful tool-calling
model does: it lists and describes the tables only when the schema is not in its prompt,
checks its SQL when it is offered check_sql, runs it (two statements at once for a
two-part question), then answers from the rows. Imports only the stub, so it also runs
against the code of an older commit (`python -m bench.model_calls --code DIR`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.support.openai_stub import DEFAULT_SALES_SQL, Reply, ToolCall, message_text

SCHEMA_MARK = "Schema:"
"""How the schema in the prompt starts (react_agent/catalog/context.py's headers)."""
TWO_PART_MARK = "另外"
"""A question with this word asks two things: two statements in one reply."""
SECOND_SQL = "SELECT COUNT(*) AS store_count FROM stores"
SALES_TABLES = ("orders", "stores", "regions")
TABLE_LINE = re.compile(r"^(\w+) \(", re.MULTILINE)
"""A table's line in the schema, list_tables or describe_tables: `orders (~4000 rows)…`."""
MAX_TRIES = 2
"""run_sql calls of a turn after which a failing model gives up and says so."""


def tool_calling_model(body: dict[str, Any]) -> Reply:
    """Return the next reply of a tool-calling model to the request `body`."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    tools = {tool["function"]["name"] for tool in body.get("tools") or []}
    users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    question = message_text(messages[users[-1]]) if users else ""
    turn = messages[users[-1] + 1 :] if users else []
    called = [
        call["function"]["name"]
        for m in turn
        if m.get("role") == "assistant"
        for call in m.get("tool_calls") or []
    ]
    prompt = "".join(message_text(m) for m in messages if m.get("role") == "system")
    knows_schema = SCHEMA_MARK in prompt
    seen = prompt + "\n".join(message_text(m) for m in turn if m.get("role") == "tool")
    known = list(dict.fromkeys(TABLE_LINE.findall(seen)))
    last = message_text(turn[-1]) if turn and turn[-1].get("role") == "tool" else None
    if last is not None and "run_sql" in called:
        if not last.startswith("Error"):
            return Reply(text="查询结果如下：" + last.partition("\n")[2][:200])
        if called.count("run_sql") >= MAX_TRIES:
            return Reply(text="没能查到。")
    if not knows_schema and "list_tables" in tools and "list_tables" not in called:
        return Reply(tool_calls=[ToolCall("list_tables", {})])
    if not knows_schema and "describe_tables" in tools and "describe_tables" not in called:
        names = [n for n in SALES_TABLES if n in known] or known[:3]
        return Reply(tool_calls=[ToolCall("describe_tables", {"table_names": names})])
    sales = all(name in known for name in SALES_TABLES) or not known
    statements = [DEFAULT_SALES_SQL if sales else f"SELECT COUNT(*) AS n FROM {known[0]}"]
    if TWO_PART_MARK in question:
        statements.append(SECOND_SQL if sales else f"SELECT COUNT(*) AS n FROM {known[-1]}")
    if "check_sql" in tools and "check_sql" not in called:
        return Reply(tool_calls=[ToolCall("check_sql", {"sql": sql}) for sql in statements])
    return Reply(tool_calls=[ToolCall("run_sql", {"sql": sql}) for sql in statements])


def rendered(body: dict[str, Any]) -> str:
    """Return a request as a provider's prefix cache sees it: the tools, then each message."""
    parts = [json.dumps(body.get("tools") or [], ensure_ascii=False, sort_keys=True)]
    for message in body.get("messages") or []:
        kept = {k: message.get(k) for k in ("role", "content", "tool_calls", "tool_call_id")}
        parts.append(json.dumps(kept, ensure_ascii=False, sort_keys=True))
    return "\n".join(parts)


def prefix_share(previous: dict[str, Any], current: dict[str, Any]) -> float:
    """Return the share of `previous` that `current` starts with, byte for byte."""
    before, after = rendered(previous), rendered(current)
    same = 0
    for a, b in zip(before, after, strict=False):
        if a != b:
            break
        same += 1
    return same / len(before) if before else 1.0


def first_prompt_chars(body: dict[str, Any]) -> int:
    """Return the characters of a request's messages (system prompts and question)."""
    return sum(len(message_text(m)) for m in body.get("messages") or [])
