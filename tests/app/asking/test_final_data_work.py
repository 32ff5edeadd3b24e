"""The final data's `sqls`, `chart` and `usage`, through the real ChatOpenAI and the stub server."""

from __future__ import annotations

from tests.support.live_server import running_service
from tests.support.openai_stub import DEFAULT_SALES_SQL, OpenAIStub, Reply, ToolCall
from tests.support.sse import collect_stream

REFUSED_SQL = "DELETE FROM orders"


def script(stub: OpenAIStub) -> list[Reply]:
    """Script a refused query, a good one (written with a trailing ';') and the answer."""
    replies = [
        Reply(tool_calls=[ToolCall("run_sql", {"sql": REFUSED_SQL}, id="call_bad")]),
        Reply(tool_calls=[ToolCall("run_sql", {"sql": DEFAULT_SALES_SQL + ";"}, id="call_ok")]),
        Reply(text="华东最多。"),
    ]
    stub.script(*replies)
    return replies


def reported_usage(stub: OpenAIStub, replies: list[Reply]) -> dict[str, int]:
    """Return the usage the stub reported for its requests, summed."""
    usages = [
        OpenAIStub._usage(body, reply) for body, reply in zip(stub.requests, replies, strict=True)
    ]
    summed = {
        name: sum(usage[name] for usage in usages)
        for name in ("prompt_tokens", "completion_tokens", "total_tokens")
    }
    # The stub reports prompt_tokens_details.cached_tokens (0 without its prefix cache).
    summed["cached_tokens"] = 0
    return summed


async def test_sqls_list_every_statement_in_order_and_are_equal_on_sync_and_stream(
    stub_settings, stub
):
    async with running_service(stub_settings) as service:
        script(stub)
        status, body = await service.ask(question="q")
        script(stub)
        events = await collect_stream(service.http, json={"question": "q"})

    assert status == 200
    sync = body["data"]
    streamed = next(e.data for e in events if e.type == "completed")
    assert sync["sqls"] == [
        {"sql": REFUSED_SQL, "row_count": None, "result_id": None, "status": "refused"},
        {"sql": DEFAULT_SALES_SQL, "row_count": 7, "result_id": "call_ok", "status": "ok"},
    ]
    assert streamed["sqls"] == sync["sqls"]
    assert sync["sql"] == DEFAULT_SALES_SQL
    # Regions and their sales: one category column and a measure make a bar chart.
    assert sync["chart"]["series"][0]["type"] == "bar" and streamed["chart"] == sync["chart"]


async def test_usage_is_the_sum_of_what_the_server_reported_for_the_turn(stub_settings, stub):
    async with running_service(stub_settings) as service:
        replies = script(stub)
        _, body = await service.ask(question="q")
        sync_expected = reported_usage(stub, replies)
        stub.clear()
        replies = script(stub)
        thread = body["data"]["conversation_id"]
        events = await collect_stream(
            service.http, json={"question": "again", "thread_id": thread, "stream_tokens": True}
        )
        stream_expected = reported_usage(stub, replies)

    assert body["data"]["react_agent_meta"]["usage"] == sync_expected
    assert sync_expected["total_tokens"] > 0
    completed = next(e.data for e in events if e.type == "completed")
    # Streamed completions report usage in their last chunk; the second turn counts only its
    # own calls, although its prompts are longer.
    assert completed["react_agent_meta"]["usage"] == stream_expected
    assert stream_expected["prompt_tokens"] > sync_expected["prompt_tokens"]


async def test_usage_is_null_when_the_server_reports_none(stub_settings, stub):
    stub.script(Reply(text="不用查询。", report_usage=False))
    async with running_service(stub_settings) as service:
        _, body = await service.ask(question="q")
        stub.script(Reply(text="还是不用。", report_usage=False))
        events = await collect_stream(service.http, json={"question": "q", "stream_tokens": True})
    completed = next(e.data for e in events if e.type == "completed")
    assert body["data"]["react_agent_meta"]["usage"] is None
    assert completed["react_agent_meta"]["usage"] is None
    assert body["data"]["sqls"] == [] == completed["sqls"] and "sql" not in body["data"]
