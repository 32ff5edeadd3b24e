"""Sub-agent checkpoints: a re-run of a delegate call starts afresh; progress read from them."""

from __future__ import annotations

import asyncio
import re

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from react_agent.conversations.thread_index import namespaces_containing
from react_agent.errors import ServiceError
from react_agent.subagents.progress import (
    running_delegations,
    subagent_id_of,
    subagent_progress,
)
from tests.react_agent.subagents.test_delegate import (
    QUESTION,
    SALES_SQL,
    TOP_SQL,
    delegate_both,
    routed,
    sub_script,
)
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool


async def test_a_re_run_of_the_same_delegate_call_starts_each_sub_agent_afresh(open_service):
    # The first attempt: `sales` is stopped in its second model call, `top` has answered.
    sales = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=SALES_SQL), answer("never"), answer("七个地区")]
    )
    top = ScriptedChatModel(replies=[answer("三个产品"), answer("三个产品（重跑）")])
    sales.gates[1], sales.entered[1] = asyncio.Event(), asyncio.Event()
    model = routed([delegate_both(), answer("好")], sales, top)
    thread = {"configurable": {"thread_id": "wang1:rerun1"}}
    async with open_service(model) as service:
        run = await service.runner.start(QUESTION, "wang1:rerun1")
        await asyncio.wait_for(sales.entered[1].wait(), 10)
        run.cancel()
        with pytest.raises(ServiceError):
            await run.result()
        assert (await service.runner.graph.aget_state(thread)).next == ("tools",)
        # Resuming the parent from its checkpoint runs the same tools task again: the same
        # tool call id, and (before the fix) the same sub-agent namespaces.
        del sales.gates[1]
        sales.replies[1] = answer("七个地区（重跑）")
        async for _ in service.runner.graph.astream(None, thread, stream_mode="updates"):
            pass
        state = await service.runner.graph.aget_state(thread)
        namespaces = await namespaces_containing(service.checkpointer, "wang1:rerun1", "sql_")
        progress = await subagent_progress(
            service.checkpointer,
            "wang1:rerun1",
            running_delegations(state.values["messages"][:2]),
            namespaces,
        )

    # Each sub-agent started again from its sub-question alone, not from its old messages.
    # The stable prompt, the sub-question's context (#48), the sub-question.
    fresh = ["SystemMessage", "SystemMessage", "HumanMessage"]
    assert [type(m).__name__ for m in sales.seen[-1]] == fresh
    assert [type(m).__name__ for m in top.seen[-1]] == fresh
    assert len(top.seen) == 2  # the finished sub-agent ran again instead of answering nothing
    summary = next(m for m in state.values["messages"] if isinstance(m, ToolMessage)).content
    assert "Answer: 三个产品（重跑）" in summary
    assert "七个地区（重跑）" in summary and "(no answer)" not in summary
    # Both attempts' checkpoints stay; each sub-agent's latest attempt is the one read.
    assert len(namespaces) == 4
    assert [(p["status"], p["node"]) for p in progress] == [("completed", "__end__")] * 2


def test_running_delegations_lists_the_sub_agents_of_the_last_unanswered_delegate_call():
    call = delegate_both()
    call_id = call.tool_calls[0]["id"]
    both = running_delegations([HumanMessage(QUESTION), call])
    assert both == [
        {"id": f"{call_id}-1", "description": "sales by year"},
        {"id": f"{call_id}-2", "description": "top products"},
    ]
    answered = ToolMessage("done", tool_call_id=call_id, name="delegate")
    assert running_delegations([HumanMessage(QUESTION), call, answered]) == []
    assert running_delegations([HumanMessage(QUESTION), call_tool("run_sql", sql="SELECT 1")]) == []
    assert running_delegations([AIMessage("好")]) == [] and running_delegations([]) == []


def test_a_namespace_names_its_sub_agent_whatever_langgraph_appends():
    assert subagent_id_of("tools:abc|sql_subagent:call_1-2.0f3e9a1b") == "call_1-2"
    assert subagent_id_of("tools:abc|sql_subagent:call_1-2.0f3e9a1b|1") == "call_1-2"
    assert subagent_id_of("tools:abc") is None and subagent_id_of("") is None


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def checkpoint_url(request: pytest.FixtureRequest, settings) -> str:
    """Give a checkpoint database of each kind the service keeps conversations in."""
    if request.param == "memory":
        return "memory"
    if request.param == "postgres":
        return request.getfixturevalue("postgres_database")
    return settings.checkpoint_database_url


async def test_sub_agents_checkpoint_under_the_parent_thread_in_their_own_namespaces(
    open_service, checkpoint_url
):
    call = delegate_both()
    sales, top = sub_script(SALES_SQL, "七个地区"), sub_script(TOP_SQL, "三个产品")
    for script in (sales, top):
        script.replies *= 2  # the same for the second thread
    model = routed([call, answer("好"), delegate_both(), answer("好")], sales, top)
    async with open_service(model, checkpoint_database_url=checkpoint_url) as service:
        await service.runner.ask(QUESTION, "wang1:ns1")
        await service.runner.ask(QUESTION, "wang1:ns2")  # another thread, other sub-agents
        saver = service.checkpointer
        call_id = next(
            m.tool_calls[0]["id"]
            for m in (await service.runner.graph.aget_state(THREAD_NS1)).values["messages"]
            if isinstance(m, AIMessage) and m.tool_calls
        )
        found = await namespaces_containing(saver, "wang1:ns1", f"sql_subagent:{call_id}-")
        everything = await namespaces_containing(saver, "wang1:ns1", "sql_subagent:")
        subagents = [
            {"id": f"{call_id}-1", "description": "sales by year"},
            {"id": f"{call_id}-2", "description": "top products"},
        ]
        progress = await subagent_progress(saver, "wang1:ns1", subagents, found)

    # Under the thread, nested below the tools task that ran delegate; LangGraph may add
    # `|1` to the second graph a task runs.
    pattern = rf"tools:[0-9a-f-]+\|sql_subagent:{call_id}-[12]\.[0-9a-f]{{8}}(\|1)?"
    assert len(found) == 2 and all(re.fullmatch(pattern, ns) for ns in found), found
    assert sorted(subagent_id_of(ns) for ns in found) == [f"{call_id}-1", f"{call_id}-2"]
    assert everything == found  # not the other thread's
    assert [(p["status"], p["node"], p["step"]) for p in progress] == [
        ("completed", "__end__", 7),
        ("completed", "__end__", 7),
    ]


THREAD_NS1 = {"configurable": {"thread_id": "wang1:ns1"}}
