"""SQL approval through the real ChatOpenAI on the suite's OpenAI-compatible stub server."""

from __future__ import annotations

from tests.support.live_server import running_service
from tests.support.openai_stub import Reply, ToolCall
from tests.support.sse import collect_stream

THREAD = "qian:approval-openai"


def resume(interrupt_id: str, action: str, **fields: str) -> dict:
    """Return a resume body for THREAD."""
    return {
        "thread_id": THREAD,
        "resume": {"interrupt_id": interrupt_id, "action": action, **fields},
    }


async def test_two_queries_in_one_turn_wait_in_turn_and_an_edit_is_refused_then_runs(
    stub_settings, stub
):
    stub.script(
        Reply(
            tool_calls=[
                ToolCall("run_sql", {"sql": "SELECT COUNT(*) AS n FROM stores"}),
                ToolCall("run_sql", {"sql": "SELECT COUNT(*) AS n FROM regions"}),
            ]
        ),
        Reply(text="32 家门店，7 个地区。"),
    )
    async with running_service(stub_settings) as service:
        status, first = await service.ask(
            question="门店和地区各多少", thread_id=THREAD, approve_sql=True
        )
        assert status == 200 and first["data"]["sql"] == "SELECT COUNT(*) AS n FROM stores"

        _, second = await service.ask(**resume(first["data"]["interrupt_id"], "approve"))
        assert second["data"]["status"] == "awaiting_approval"
        assert second["data"]["sql"] == "SELECT COUNT(*) AS n FROM regions"
        assert len(stub.requests) == 1  # no model call between the two approvals

        _, refused = await service.ask(
            **resume(second["data"]["interrupt_id"], "edit", sql="UPDATE regions SET x = 1")
        )
        assert refused["data"]["refused_edit"]["reason"].startswith("UPDATE is not allowed")
        events = await collect_stream(
            service.http,
            json=resume(
                refused["data"]["interrupt_id"], "edit", sql="SELECT COUNT(*) AS n FROM products"
            ),
        )

    completed = events[-2].data
    assert events[-2].type == "completed" and completed["response"] == "32 家门店，7 个地区。"
    assert completed["sql"] == "SELECT COUNT(*) AS n FROM products"
    assert completed["react_agent_meta"]["sql_execution_count"] == 2
    assert completed["react_agent_meta"]["sql_refusal_count"] == 1
    tool_results = [m for m in stub.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["content"].splitlines()[1] for m in tool_results] == [
        "1 row(s); columns: n",
        "1 row(s); columns: n",
    ]
    calls = stub.requests[1]["messages"][-3]["tool_calls"]
    assert calls[1]["function"]["arguments"] == '{"sql": "SELECT COUNT(*) AS n FROM products"}'
