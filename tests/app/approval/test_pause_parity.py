"""One pause, every surface: answer, approve, edit, reject and abandon through real clients.

Each surface is driven by the client its users have: httpx on the sync endpoint, httpx
with an SSE parser on the stream, the `openai` SDK (the reply is the next chat message,
sent as history with no id, as chat clients do), and the `mcp` SDK with an elicitation
callback (the host asks the person) and without one (the pause is the tool's result,
answered by answer_pending). The scripted model's last call echoes the tool result it
read, so each case shows what reached the model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import openai
import pytest
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.support.live_server import running_service
from tests.support.scripted_model import answer, call_tool
from tests.support.sse import collect_stream

QUESTION = "上季度各地区的销售额"
NEW_QUESTION = "一共有多少家门店？"
REGION_SQL = "SELECT region_name FROM regions ORDER BY region_id"
EDITED_SQL = "SELECT COUNT(*) AS n FROM regions"
ASK = call_tool("ask_user", question="按下单日期还是付款日期？", options=["下单日期", "付款日期"])
ACTIONS = ("answer", "approve", "edit", "reject", "abandon")
SURFACES = ("sync", "stream", "openai", "mcp_elicit", "mcp_pending")


def echo_last_tool(messages) -> Any:
    """Answer with the last tool result the model read (what the pause gave it)."""
    tool = [m for m in messages if m.type == "tool"][-1]
    return answer(f"读到：{str(tool.content)[:80]}")


def script(action: str) -> list:
    first = ASK if action == "answer" else call_tool("run_sql", sql=REGION_SQL)
    after = answer("新问题的回答") if action == "abandon" else echo_last_tool
    return [first, after]


def expected(action: str, answer_text: str, model) -> None:
    """Check the final answer (and what the model read) for `action`."""
    if action == "answer":
        assert answer_text == "读到：The person answered: 付款日期"
    elif action == "approve":
        assert answer_text.startswith("读到：result_id:") and "7 row(s)" in answer_text
    elif action == "edit":
        assert answer_text.startswith("读到：result_id:") and "columns: n" in answer_text
    elif action == "reject":
        assert answer_text.startswith("读到：Error: the person reviewing the SQL rejected")
    else:
        assert answer_text == "新问题的回答"
        assert model.seen[-1][-1].content == NEW_QUESTION


# --- what the person says, in each surface's words ------------------------------------


def resume_body(action: str, pause: dict) -> dict:
    decision: dict[str, Any] = {"interrupt_id": pause["interrupt_id"], "action": action}
    if action == "answer":
        decision["text"] = "付款日期"
    if action == "edit":
        decision["sql"] = EDITED_SQL
    return decision


CHAT_REPLIES = {
    "answer": "2",
    "approve": "批准",
    "edit": f"```sql\n{EDITED_SQL}\n```",
    "reject": "拒绝",
    "abandon": NEW_QUESTION,
}


async def via_sync(service, action: str) -> str:
    status, body = await service.ask(question=QUESTION, thread_id="lin:parity")
    pause = body["data"]
    assert pause["status"] in ("awaiting_approval", "awaiting_clarification"), body
    if action == "abandon":
        status, body = await service.ask(question=NEW_QUESTION, thread_id="lin:parity")
    else:
        status, body = await service.ask(thread_id="lin:parity", resume=resume_body(action, pause))
    assert status == 200, body
    return body["data"]["response"]


async def via_stream(service, action: str) -> str:
    events = await collect_stream(
        service.http, json={"question": QUESTION, "thread_id": "lin:parity"}
    )
    pause = events[-2].data
    assert events[-2].type == "interrupt", events
    second = (
        {"question": NEW_QUESTION, "thread_id": "lin:parity"}
        if action == "abandon"
        else {"thread_id": "lin:parity", "resume": resume_body(action, pause)}
    )
    events = await collect_stream(service.http, json=second)
    return next(e.data for e in events if e.type == "completed")["response"]


async def via_openai(service, action: str) -> str:
    client = openai.AsyncOpenAI(base_url=f"{service.base_url}/v1", api_key="unused", max_retries=0)
    first = await client.chat.completions.create(
        model="sql-react-agent", messages=[{"role": "user", "content": QUESTION}]
    )
    shown = first.choices[0].message.content
    assert "付款日期" in shown or REGION_SQL in shown, shown
    reply = await client.chat.completions.create(
        model="sql-react-agent",
        messages=[
            {"role": "user", "content": QUESTION},
            {"role": "assistant", "content": shown},
            {"role": "user", "content": CHAT_REPLIES[action]},
        ],
    )
    assert reply.model_extra["conversation_id"] == first.model_extra["conversation_id"]
    return reply.choices[0].message.content.split("\n\n```sql")[0]


def elicitation_reply(action: str) -> Callable[..., Awaitable[types.ElicitResult]]:
    content: dict[str, Any] = {
        "answer": {"answer": "2"},
        "approve": {"decision": "approve"},
        "edit": {"decision": "edit", "sql": EDITED_SQL},
        "reject": {"decision": "reject", "comment": "不要"},
    }.get(action, {})

    async def reply(context, params) -> types.ElicitResult:
        if action == "abandon":
            return types.ElicitResult(action="cancel")
        return types.ElicitResult(action="accept", content=content)

    return reply


async def call(session: ClientSession, tool: str, arguments: dict) -> dict:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result.structured_content


async def via_mcp(service, action: str, *, elicit: bool) -> str:
    callback = elicitation_reply(action) if elicit else None
    async with (
        create_mcp_http_client() as http,
        streamable_http_client(f"{service.base_url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write, elicitation_callback=callback) as session,
    ):
        await session.initialize()
        first = await call(session, "ask_data", {"question": QUESTION, "user_id": "lin"})
        if "answer" in first:
            return first["answer"]  # the host answered the pause: the run went on
        conversation = first["conversation_id"]
        if action == "abandon":
            arguments = {"question": NEW_QUESTION, "conversation_id": conversation}
            return (await call(session, "ask_data", arguments))["answer"]
        decision = resume_body(action, first)
        arguments = {"conversation_id": conversation, **decision}
        return (await call(session, "answer_pending", arguments))["answer"]


DRIVERS = {
    "sync": via_sync,
    "stream": via_stream,
    "openai": via_openai,
    "mcp_elicit": lambda service, action: via_mcp(service, action, elicit=True),
    "mcp_pending": lambda service, action: via_mcp(service, action, elicit=False),
}


@pytest.fixture
async def pausing(settings, model):
    """Serve the app with CLARIFY=on and SQL_APPROVAL=always: every surface can pause."""
    update = {"clarify": "on", "sql_approval": "always", "stream_resume_grace": 0.0}
    async with running_service(settings.model_copy(update=update), model=model) as client:
        yield client


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize("action", ACTIONS)
async def test_every_surface_answers_every_pause_alike(pausing, model, surface, action):
    model.replies = script(action)

    answer_text = await DRIVERS[surface](pausing, action)

    expected(action, answer_text, model)


async def test_mcp_elicitation_cancelled_returns_the_pause_for_answer_pending(pausing, model):
    model.replies = script("answer")
    async with (
        create_mcp_http_client() as http,
        streamable_http_client(f"{pausing.base_url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write, elicitation_callback=elicitation_reply("abandon")) as session,
    ):
        await session.initialize()
        paused = await call(session, "ask_data", {"question": QUESTION})
    assert paused["status"] == "awaiting_clarification"
    assert paused["options"] == ["下单日期", "付款日期"] and paused["interrupt_id"]
