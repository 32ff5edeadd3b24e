"""/status while a delegate call runs: each sub-agent's status, node and step, over real HTTP."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from config import node_display
from tests.react_agent.subagents.test_delegate import (
    QUESTION,
    SALES_SQL,
    TOP_SQL,
    delegate_both,
    routed,
    sub_script,
)
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer

STATUS = "/api/v0/react/status/{}"
ASK = "/api/v0/ask_react_agent"


async def status_when(
    http: Any, thread: str, condition: Callable[[dict], bool], timeout: float = 20.0
) -> dict:
    """Return /status's data once `condition` holds of it; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    data: dict = {}
    while time.monotonic() < deadline:
        response = await http.get(STATUS.format(thread), params={"lang": "en-US"})
        assert response.status_code == 200, response.text
        data = response.json()["data"]
        if condition(data):
            return data
        await asyncio.sleep(0.02)
    raise AssertionError(f"/status never matched: {data}")


def by_description(data: dict) -> dict[str, dict]:
    return {entry["description"]: entry for entry in data.get("subagents") or []}


def held_sales() -> ScriptedChatModel:
    """Return the first sub-agent's script, held in its second model call (after its query)."""
    sales = sub_script(SALES_SQL, "七个地区")
    sales.gates[1], sales.entered[1] = asyncio.Event(), asyncio.Event()
    return sales


async def test_status_shows_one_sub_agent_running_at_its_node_and_the_other_completed(settings):
    sales = held_sales()
    model = routed([delegate_both(), answer("两部分都答完了")], sales, sub_script(TOP_SQL, "三"))
    thread = "wang1:20250131103000101"
    async with running_service(settings, model=model) as service:
        asking = asyncio.create_task(
            service.http.post(ASK, json={"question": QUESTION, "thread_id": thread})
        )
        await asyncio.wait_for(sales.entered[1].wait(), 20)
        data = await status_when(
            service.http,
            thread,
            lambda d: by_description(d).get("top products", {}).get("status") == "completed",
        )
        sales.gates[1].set()
        response = await asyncio.wait_for(asking, 30)
        after = (await service.http.get(STATUS.format(thread))).json()["data"]

    assert data["status"] == "running" and data["node"] == "tools"
    entries = by_description(data)
    assert set(entries) == {"sales by year", "top products"}
    running, done = entries["sales by year"], entries["top products"]
    delegate_id = data_delegate_id(entries)
    assert running["id"] == f"{delegate_id}-1" and done["id"] == f"{delegate_id}-2"
    # trim, agent, prepare_tool_input, tools, update_state_after_tool: then the model again.
    assert running["status"] == "running" and running["node"] == "agent" and running["step"] == 5
    agent = node_display("agent", "en-US")
    assert running["name"] == agent["display_name"] and running["icon"] == agent["icon"]
    assert done["node"] == "__end__" and done["step"] > running["step"]
    assert response.status_code == 200
    completed = response.json()["data"]
    # The ids /status gave are the ones the final data marks each statement with.
    assert {s["subagent"]["id"] for s in completed["sqls"]} == {running["id"], done["id"]}
    assert after["status"] == "completed" and "subagents" not in after


def data_delegate_id(entries: dict[str, dict]) -> str:
    """Return the delegate call id both sub-agent ids start with."""
    prefixes = {entry["id"].rpartition("-")[0] for entry in entries.values()}
    assert len(prefixes) == 1
    return prefixes.pop()


async def test_status_on_postgresql_shows_waiting_then_failed_sub_agents(
    settings, postgres_database
):
    sales = held_sales()
    broken = ScriptedChatModel(replies=[RuntimeError("model exploded")])
    third = sub_script(TOP_SQL, "三")
    third.gates[0], third.entered[0] = asyncio.Event(), asyncio.Event()
    model = routed([delegate_three(), answer("好")], sales, broken)
    model.routes[THIRD] = third
    one_at_a_time = settings.model_copy(
        update={"checkpoint_database_url": postgres_database, "subagents_max_parallel": 1}
    )
    thread = "wang1:20250131103000102"
    async with running_service(one_at_a_time, model=model) as service:
        asking = asyncio.create_task(
            service.http.post(ASK, json={"question": QUESTION, "thread_id": thread})
        )
        await asyncio.wait_for(sales.entered[1].wait(), 20)
        first = await status_when(service.http, thread, lambda d: len(by_description(d)) == 3)
        sales.gates[1].set()
        await asyncio.wait_for(third.entered[0].wait(), 20)
        second = await status_when(
            service.http,
            thread,
            lambda d: by_description(d)["sales by year"]["status"] == "completed",
        )
        third.gates[0].set()
        response = await asyncio.wait_for(asking, 30)

    entries = by_description(first)
    assert (entries["sales by year"]["status"], entries["sales by year"]["node"]) == (
        "running",
        "agent",
    )
    for waiting in (entries["top products"], entries["third"]):
        assert (waiting["status"], waiting["node"], waiting["step"]) == ("waiting", "__start__", 0)
    entries = by_description(second)
    assert entries["top products"]["status"] == "failed"
    assert entries["top products"]["node"] == "agent"  # it failed in its model call
    assert (entries["third"]["status"], entries["third"]["node"]) == ("running", "agent")
    assert entries["third"]["step"] == 1  # trim_messages done, its model call held
    assert response.status_code == 200 and response.json()["data"]["response"] == "好"


THIRD = "第三个问题？"


def delegate_three():
    """Return the parent's call handing three parts to sub-agents."""
    call = delegate_both()
    call.tool_calls[0]["args"]["tasks"].append({"description": "third", "question": THIRD})
    return call
