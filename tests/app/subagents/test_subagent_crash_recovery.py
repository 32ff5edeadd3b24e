"""`kill -9` of the service while a delegate call's sub-agents run, then a restart.

The thread must answer again: turn repair closes the dangling delegate call, and /status
shows no sub-agents of the dead run.
"""

from __future__ import annotations

import threading
import uuid

import httpx

from tests.react_agent.subagents.test_delegate import QUESTION, SALES, SALES_SQL, TOP, TOP_SQL
from tests.support.held_runs import poll_until, service_env, start_service
from tests.support.model_requests import tool_results, unanswered_tool_call_ids
from tests.support.openai_stub import Reply, ToolCall
from tests.support.service_process import stop_process
from tests.support.sse import collect_stream, open_stream
from tests.support.stub_routes import RoutedReplies, first_question
from tests.support.waiting import eventually

TASKS = [
    {"description": "sales by year", "question": SALES},
    {"description": "top products", "question": TOP},
]


async def test_a_kill_during_a_delegate_call_leaves_a_thread_that_answers_again(
    stub, checkpoint_url, tmp_path
):
    thread_id = f"crash:{uuid.uuid4().hex[:12]}"
    gate = threading.Event()
    routes = RoutedReplies(
        {
            SALES: [
                Reply(tool_calls=[ToolCall("run_sql", {"sql": SALES_SQL})]),
                Reply(text="never sent", wait_for=gate),
            ],
            TOP: [Reply(tool_calls=[ToolCall("run_sql", {"sql": TOP_SQL})]), Reply(text="三")],
        },
        parent=[
            Reply(tool_calls=[ToolCall("delegate", {"tasks": TASKS})]),
            Reply(text="重启后答完了"),
        ],
    )
    stub.default_policy = routes
    env = service_env(stub, checkpoint_url)

    service = await start_service(env, tmp_path)
    try:
        async with (
            httpx.AsyncClient(base_url=service.base_url, timeout=30) as http,
            open_stream(http, json={"question": QUESTION, "thread_id": thread_id}) as (_, events),
        ):
            assert (await anext(events)).type == "started"
            # The first sub-agent is in its second model call, after its query.
            assert await eventually(lambda: routes.routed.count(SALES) == 2, 60), routes.routed
            service.process.kill()  # SIGKILL: no drain, no cleanup
            assert service.process.wait(10) == -9
    finally:
        gate.set()
        stop_process(service.process)

    restarted = await start_service(env, tmp_path)
    params = {"user_id": "crash"}
    try:
        async with httpx.AsyncClient(base_url=restarted.base_url, timeout=30) as http:
            statuses: list[dict] = []

            async def status() -> str:
                response = await http.get(f"/api/v0/react/status/{thread_id}", params=params)
                statuses.append(response.json()["data"])
                return statuses[-1]["status"]

            # With PostgreSQL the dead process's claim lasts until the server notices.
            assert await poll_until(status, "interrupted", timeout=60), statuses
            assert "subagents" not in statuses[-1]
            before = len(stub.requests)
            again = await collect_stream(
                http, json={"question": "再问一次", "thread_id": thread_id}
            )
    finally:
        stop_process(restarted.process)

    assert [e.type for e in again][-2:] == ["completed", "end"], again
    assert again[-2].data["response"] == "重启后答完了"
    (request,) = stub.requests[before:]
    assert first_question(request) == QUESTION
    assert unanswered_tool_call_ids(request) == []
    assert "Not run: the question was interrupted." in tool_results(request)
