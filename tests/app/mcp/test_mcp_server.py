"""The MCP server through the official `mcp` client: streamable HTTP at /mcp, and stdio."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.support.held_runs import service_env, start_service
from tests.support.mcp_client import http_session
from tests.support.scripted_model import answer, call_tool
from tests.support.service_process import stop_process

REPO_ROOT = Path(__file__).resolve().parents[3]
HYPERCORN_KEEP_ALIVE = 5.0
"""Hypercorn closes an idle keep-alive connection after this many seconds, at shutdown too."""
REGION_SQL = (
    "SELECT r.region_name AS region, COUNT(*) AS stores FROM stores s "
    "JOIN regions r ON r.region_id = s.region_id GROUP BY r.region_name"
)


def structured(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content


async def test_http_lists_the_three_tools_and_asks_with_progress(service, model):
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("七个地区都有门店。")]
    progress: list[tuple[float, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    async with http_session(service.base_url) as session:
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert names == {"ask_data", "answer_pending", "list_tables", "describe_table"}
        result = structured(
            await session.call_tool(
                "ask_data",
                {"question": "每个地区有几家门店", "user_id": "wang1"},
                progress_callback=on_progress,
            )
        )
    assert result["answer"] == "七个地区都有门店。" and result["sql"] == REGION_SQL
    assert result["columns"] == ["region", "stores"] and len(result["rows"]) == 7
    assert result["conversation_id"].startswith("wang1:")
    messages = [message for _, message in progress]
    assert "🤖 AI思考中" in messages and "⚙️ 执行查询 run_sql" in messages
    assert [value for value, _ in progress] == sorted(value for value, _ in progress)


async def test_http_follow_up_uses_the_conversation_id(service, model):
    model.replies = [answer("一"), answer("二")]
    async with http_session(service.base_url) as session:
        first = structured(await session.call_tool("ask_data", {"question": "第一"}))
        second = structured(
            await session.call_tool(
                "ask_data", {"question": "第二", "conversation_id": first["conversation_id"]}
            )
        )
    assert second["conversation_id"] == first["conversation_id"]
    assert "第一" in str(model.seen[1])


async def test_http_describes_tables_and_refuses_unknown_ones(service):
    async with http_session(service.base_url) as session:
        tables = (await session.call_tool("list_tables", {})).structured_content["result"]
        assert "stores" in tables and "regions" in tables
        stores = structured(await session.call_tool("describe_table", {"name": "stores"}))
        assert "region_id" in [column["name"] for column in stores["columns"]]
        assert stores["row_count"] > 0
        missing = await session.call_tool("describe_table", {"name": "sqlite_master"})
    assert missing.is_error and "TABLE_NOT_FOUND" in missing.content[0].text


async def test_http_ask_errors_are_tool_errors_with_the_service_code(service):
    async with http_session(service.base_url) as session:
        result = await session.call_tool("ask_data", {"question": "长" * 2001})
    assert result.is_error and "QUESTION_TOO_LONG" in result.content[0].text


async def test_stdio_server_lists_and_calls_tools_with_progress(stub, tmp_path):
    env = {
        "OPENAI_BASE_URL": stub.base_url,
        "OPENAI_API_KEY": "test-key",
        "CHECKPOINT_DATABASE_URL": "memory",
        "DATA_DIR": str(tmp_path),
        "LOG_LEVEL": "WARNING",
    }
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "app.mcp"], env=env, cwd=REPO_ROOT
    )
    progress: list[str | None] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message)

    with (tmp_path / "stderr.log").open("w") as errlog:
        async with (
            stdio_client(parameters, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names = {tool.name for tool in (await session.list_tools()).tools}
            tables = await session.call_tool("list_tables", {})
            asked = await session.call_tool(
                "ask_data", {"question": "每个地区的销售额是多少"}, progress_callback=on_progress
            )
    assert names == {"ask_data", "answer_pending", "list_tables", "describe_table"}
    assert "orders" in json.dumps(tables.structured_content)
    result = structured(asked)
    assert result["sql"] and result["rows"] and result["conversation_id"].startswith("guest:")
    assert "⚙️ 执行查询 run_sql" in progress


async def test_an_open_mcp_session_does_not_hold_up_shutdown(stub, tmp_path):
    grace = 2.0
    env = service_env(stub, "memory", SHUTDOWN_GRACE=str(grace))
    service = await start_service(env, tmp_path)
    try:
        async with http_session(service.base_url) as session:
            assert (await session.list_tools()).tools
            sent = time.monotonic()
            service.process.send_signal(signal.SIGTERM)
            # Hypercorn would wait SHUTDOWN_GRACE + 5 s for the session's GET stream, then
            # cancel it with tracebacks; the front ends the sessions once the runs are done.
            code = await asyncio.to_thread(service.process.wait, grace + HYPERCORN_KEEP_ALIVE)
        assert code == 0 and time.monotonic() - sent < grace + HYPERCORN_KEEP_ALIVE
        assert "Traceback" not in service.log_tail(), service.log_tail()
    finally:
        stop_process(service.process)
