"""Sub-agent checkpoints: a re-run of a delegate call starts afresh; progress read from them."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from react_agent.errors import ServiceError
from react_agent.subagents.progress import running_delegations, subagent_id_of
from tests.react_agent.subagents.test_delegate import (
    QUESTION,
    SALES_SQL,
    delegate_both,
    routed,
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

    # Each sub-agent started again from its sub-question alone, not from its old messages.
    assert [type(m).__name__ for m in sales.seen[-1]] == ["SystemMessage", "HumanMessage"]
    assert [type(m).__name__ for m in top.seen[-1]] == ["SystemMessage", "HumanMessage"]
    assert len(top.seen) == 2  # the finished sub-agent ran again instead of answering nothing
    summary = next(m for m in state.values["messages"] if isinstance(m, ToolMessage)).content
    assert "Answer: 三个产品（重跑）" in summary
    assert "七个地区（重跑）" in summary and "(no answer)" not in summary


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
