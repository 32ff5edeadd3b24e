"""The delegate tool: isolated sub-agents that run at once, report, fail alone and stop together."""

from __future__ import annotations

import asyncio
import re
import shutil

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from config import localize
from react_agent.errors import ServiceError
from react_agent.runs.events.events import NodeFinished, TokenStreamed
from react_agent.runs.events.tool_events import ToolCalled, ToolReturned
from react_agent.sample_data import SAMPLE_DB_PATH
from tests.support.routed_model import RoutedChatModel
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool, prompt_text

QUESTION = "比较2024和2025年各地区的销售额，并列出每个地区最畅销的三个产品"
SALES = "2024和2025年各地区的销售额各是多少？"
TOP = "每个地区最畅销的三个产品是哪些？"
SALES_SQL = "SELECT region_name FROM regions ORDER BY region_name"
TOP_SQL = "SELECT product_name FROM products ORDER BY product_name LIMIT 3"
MAIN_SQL = "SELECT count(*) AS n FROM regions"


def delegate_both() -> AIMessage:
    """Return the parent's call handing both parts to sub-agents."""
    return call_tool(
        "delegate",
        tasks=[
            {"description": "sales by year", "question": SALES},
            {"description": "top products", "question": TOP},
        ],
    )


def sub_script(sql: str, text: str) -> ScriptedChatModel:
    """Return a sub-agent script: one query, then its answer."""
    return ScriptedChatModel(replies=[call_tool("run_sql", sql=sql), answer(text)])


def routed(parent: list, sales: ScriptedChatModel, top: ScriptedChatModel) -> RoutedChatModel:
    """Return the model of a parent script and the two sub-agents' scripts."""
    return RoutedChatModel(
        parent=ScriptedChatModel(replies=parent), routes={SALES: sales, TOP: top}
    )


def delegate_result(messages: list[BaseMessage]) -> ToolMessage:
    """Return the delegate tool's result among the messages a model was shown."""
    return next(m for m in messages if isinstance(m, ToolMessage) and m.name == "delegate")


async def test_two_sub_questions_run_at_once_and_the_parent_reads_only_their_answers(
    open_service,
):
    sales, top = sub_script(SALES_SQL, "七个地区"), sub_script(TOP_SQL, "三个产品")
    sales.gates[0], sales.entered[0], top.entered[0] = (asyncio.Event() for _ in range(3))
    model = routed([delegate_both(), answer("两部分都答完了")], sales, top)
    async with open_service(model) as service:
        run = await service.runner.start(QUESTION, "wang1:sub1")
        await asyncio.wait_for(sales.entered[0].wait(), 10)
        # The first sub-agent's model call is held; the second starts all the same.
        await asyncio.wait_for(top.entered[0].wait(), 10)
        assert not run.done
        sales.gates[0].set()
        result = await run.result()

    assert result.answer == "两部分都答完了"
    assert result.tools_used == ["delegate"]
    parent_prompt = model.parent.seen[1]
    assert [type(m).__name__ for m in parent_prompt] == [
        "SystemMessage",
        "SystemMessage",  # the question's context (#48)
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
    ]
    summary = delegate_result(parent_prompt).content
    assert "七个地区" in summary and "三个产品" in summary
    assert SALES_SQL in summary and TOP_SQL in summary
    # Each sub-agent saw only its own sub-question, never the parent's messages.
    for script, question in ((sales, SALES), (top, TOP)):
        humans = [m.content for m in script.seen[0] if isinstance(m, HumanMessage)]
        assert humans == [question]
        assert QUESTION not in prompt_text(script.seen[0])
    subagents = [entry["subagent"]["description"] for entry in result.sqls]
    assert subagents == ["sales by year", "top products"]
    assert [entry["sql"] for entry in result.sqls] == [SALES_SQL, TOP_SQL]
    assert all(entry["status"] == "ok" and entry["result_id"] for entry in result.sqls)
    assert result.sql is None  # the main answer ran no query of its own
    assert result.sql_execution_count == 2 and result.sql_refusal_count == 0


async def test_the_main_agents_own_query_stays_the_results_sql_beside_its_sub_agents(
    open_service,
):
    from app.asking.replies.final_data import build_final_data

    # The main agent queries first, so a sub-agent's later query could overwrite its sql.
    parent = [call_tool("run_sql", sql=MAIN_SQL), delegate_both(), answer("七个地区，三个产品")]
    model = routed(parent, sub_script(SALES_SQL, "七个地区"), sub_script(TOP_SQL, "三个产品"))
    async with open_service(model) as service:
        result = await service.runner.ask(QUESTION, "wang1:sub13")

    assert result.answer == "七个地区，三个产品"
    assert result.tools_used == ["run_sql", "delegate"]
    assert result.sql == MAIN_SQL
    assert result.records["rows"] == [{"n": 7}] and result.records["total_row_count"] == 1
    assert [entry["sql"] for entry in result.sqls] == [MAIN_SQL, SALES_SQL, TOP_SQL]
    assert "subagent" not in result.sqls[0]  # the main agent's own statement
    subagents = [entry["subagent"] for entry in result.sqls[1:]]
    assert [s["description"] for s in subagents] == ["sales by year", "top products"]
    assert len({s["id"] for s in subagents}) == 2
    assert all(entry["status"] == "ok" and entry["result_id"] for entry in result.sqls)
    assert result.sql_execution_count == 3 and result.sql_refusal_count == 0
    # The API's final data shows the main agent's query and rows, and all three statements.
    data = build_final_data(result, "wang1")
    assert data["sql"] == MAIN_SQL and data["records"] == result.records
    assert data["sqls"] == result.sqls


async def test_sub_agent_events_interleave_and_carry_their_sub_agent(open_service):
    sales, top = sub_script(SALES_SQL, "七个地区"), sub_script(TOP_SQL, "三个产品")
    sales.gates[0], top.entered[1] = asyncio.Event(), asyncio.Event()
    model = routed([delegate_both(), answer("好")], sales, top)
    async with open_service(model) as service:
        run = await service.runner.start(QUESTION, "wang1:sub2", stream_tokens=True)
        # The second sub-agent gets as far as its answer while the first is held.
        await asyncio.wait_for(top.entered[1].wait(), 10)
        sales.gates[0].set()
        await run.result()

    nested = [e for e in run.events if getattr(e, "subagent", None) is not None]
    order = [e.subagent["description"] for e in nested]
    first_top = order.index("top products")
    assert "sales by year" in order[:first_top] and "sales by year" in order[first_top:]
    ids = {e.subagent["description"]: e.subagent["id"] for e in nested}
    assert len(set(ids.values())) == 2
    for description, events in (
        (d, [e for e in nested if e.subagent["description"] == d]) for d in ids
    ):
        assert {e.subagent["id"] for e in events} == {ids[description]}
        nodes = [e.node for e in events if isinstance(e, NodeFinished)]
        assert nodes[0] == "trim_messages" and nodes[-1] == "format_final_response"
        assert [e.step for e in events if isinstance(e, NodeFinished)] == list(
            range(1, len(nodes) + 1)
        )
        assert [e.tool_name for e in events if isinstance(e, ToolCalled)] == ["run_sql"]
        assert [e.status for e in events if isinstance(e, ToolReturned)] == ["ok"]
    # The main answer's tokens carry no sub-agent; the sub-agents' answers do.
    main_tokens = [e.content for e in run.events if isinstance(e, TokenStreamed) and not e.subagent]
    assert "".join(main_tokens) == "好"
    sub_tokens = [e for e in nested if isinstance(e, TokenStreamed)]
    assert {
        "".join(e.content for e in sub_tokens if e.subagent["id"] == i) for i in ids.values()
    } == {
        "七个地区",
        "三个产品",
    }
    main_nodes = [e.node for e in run.events if isinstance(e, NodeFinished) and not e.subagent]
    assert main_nodes.count("tools") == 1


async def test_a_failing_sub_agent_is_reported_and_the_run_still_answers(open_service):
    broken = ScriptedChatModel(replies=[RuntimeError("model exploded")])
    model = routed(
        [delegate_both(), answer("只答了一半")], sub_script(SALES_SQL, "七个地区"), broken
    )
    async with open_service(model) as service:
        result = await service.runner.ask(QUESTION, "wang1:sub3")

    assert result.answer == "只答了一半"
    summary = delegate_result(model.parent.seen[1])
    assert "七个地区" in summary.content
    assert "Error: this sub-agent failed" in summary.content and "model exploded" in summary.content
    errors = {task["description"]: task["error"] for task in summary.artifact["tasks"]}
    assert errors["sales by year"] is None and "model exploded" in errors["top products"]
    assert [entry["sql"] for entry in result.sqls] == [SALES_SQL]


async def test_a_data_database_down_in_a_sub_agent_ends_the_question_with_503(
    open_service, tmp_path
):
    # Unlike a sub-agent's own failure, an outage is no task's result: the parent could
    # only try the same database again.
    path = tmp_path / "sales.db"
    shutil.copyfile(SAMPLE_DB_PATH, path)
    model = routed(
        [delegate_both(), answer("不该走到这里")],
        sub_script(SALES_SQL, "七个地区"),
        sub_script(TOP_SQL, "三个产品"),
    )
    async with open_service(model, data_database_url=f"sqlite:///{path}") as service:
        path.unlink()
        with pytest.raises(ServiceError) as failed:
            await service.runner.ask(QUESTION, "wang1:sub-down")

    assert failed.value.status == 503 and failed.value.error_type == "DATABASE_UNAVAILABLE"
    assert len(model.parent.seen) == 1  # the parent was not asked again


async def test_a_refused_query_inside_a_sub_agent_is_reported_to_the_parent_and_in_sqls(
    open_service,
):
    refusing = ScriptedChatModel(
        replies=[call_tool("run_sql", sql="DELETE FROM orders"), answer("不能删除")]
    )
    model = routed([delegate_both(), answer("好")], sub_script(SALES_SQL, "七个地区"), refusing)
    async with open_service(model) as service:
        result = await service.runner.ask(QUESTION, "wang1:sub4")

    summary = delegate_result(model.parent.seen[1]).content
    assert "SQL (refused): DELETE FROM orders" in summary
    refused = [entry for entry in result.sqls if entry["status"] == "refused"]
    assert refused == [
        {
            "sql": "DELETE FROM orders",
            "row_count": None,
            "result_id": None,
            "status": "refused",
            "subagent": refused[0]["subagent"],
        }
    ]
    assert refused[0]["subagent"]["description"] == "top products"
    assert result.sql_refusal_count == 1 and result.sql_execution_count == 1
    # The sub-agent's model read the refusal and could answer.
    assert "query refused" in str(refusing.seen[1][-1].content)


def read_first_sub_result(messages: list[BaseMessage]) -> AIMessage:
    """Return a read_result call for the first result id the delegate result names."""
    result_id = re.search(r"result_id: (\S+)", delegate_result(messages).content).group(1)
    return call_tool("read_result", result_id=result_id, limit=2)


async def test_the_parent_reads_a_sub_agents_result_by_its_id(open_service):
    model = routed(
        [delegate_both(), read_first_sub_result, answer("读到了"), answer("好的")],
        sub_script(SALES_SQL, "七个地区"),
        sub_script(TOP_SQL, "三个产品"),
    )
    async with open_service(model) as service:
        result = await service.runner.ask(QUESTION, "wang1:sub5")
        await service.runner.ask("再说一遍", "wang1:sub5")

    read = [m for m in model.parent.seen[2] if isinstance(m, ToolMessage)][-1]
    assert read.name == "read_result" and not read.content.startswith("Error")
    assert "rows 1–2 of 7 kept" in read.content
    assert result.tools_used == ["delegate", "read_result"]
    # The next question's context lists the sub-agents' results as earlier results.
    assert SALES_SQL[:40] in str(model.parent.seen[3][-2].content)


async def test_cancelling_the_run_cancels_every_sub_agents_model_call(open_service):
    sales, top = sub_script(SALES_SQL, "x"), sub_script(TOP_SQL, "y")
    for script in (sales, top):
        script.gates[0], script.entered[0] = asyncio.Event(), asyncio.Event()
    model = routed([delegate_both(), answer("下一个问题")], sales, top)
    async with open_service(model) as service:
        run = await service.runner.start(QUESTION, "wang1:sub6")
        await asyncio.wait_for(sales.entered[0].wait(), 10)
        await asyncio.wait_for(top.entered[0].wait(), 10)
        run.cancel()
        with pytest.raises(ServiceError) as cancelled:
            await run.result()
        # The thread stays usable: the unanswered delegate call is closed first.
        after = await service.runner.ask("下一个问题", "wang1:sub6")

    assert cancelled.value.error_type == "RUN_CANCELLED"
    assert sorted(model.cancelled) == sorted([SALES, TOP])
    assert after.answer == "下一个问题"
    closed = delegate_result(model.parent.seen[1])
    assert closed.content == "Not run: the question was interrupted."


async def test_a_sub_agent_cannot_delegate_again_and_stops_at_its_own_step_limit(open_service):
    looping = ScriptedChatModel(
        replies=[call_tool("delegate", tasks=[{"description": "again", "question": TOP}])],
        default=call_tool("run_sql", sql=TOP_SQL),
    )
    model = routed([delegate_both(), answer("好")], sub_script(SALES_SQL, "七个地区"), looping)
    async with open_service(model, subagent_recursion_limit=12) as service:
        result = await service.runner.ask(QUESTION, "wang1:sub7")

    assert result.answer == "好"
    refused = [m for m in looping.seen[1] if isinstance(m, ToolMessage)][-1]
    assert refused.status == "error" and "delegate is not a valid tool" in refused.content
    # 12 steps: trim, then three model calls with two tool rounds between them; the
    # sub-agent's last call asked for a tool again, so it answered with the step-limit text.
    assert len(looping.seen) == 3
    summary = delegate_result(model.parent.seen[1]).content
    assert localize("STEP_LIMIT_ANSWER", None) in summary
    assert len([e for e in result.sqls if e["subagent"]["description"] == "top products"]) == 1


async def test_subagents_off_removes_the_delegate_tool(open_service):
    model = routed(
        [call_tool("delegate", tasks=[{"description": "d", "question": SALES}])],
        sub_script(SALES_SQL, "x"),
        sub_script(TOP_SQL, "y"),
    )
    model.parent.replies.append(answer("没有这个工具"))
    async with open_service(model, subagents=False) as service:
        result = await service.runner.ask(QUESTION, "wang1:sub8")

    unknown = [m for m in model.parent.seen[1] if isinstance(m, ToolMessage)][-1]
    assert unknown.status == "error" and "delegate" in unknown.content
    assert result.sqls == [] and model.routes[SALES].seen == []


async def test_sub_agent_state_is_checkpointed_under_the_parent_thread(open_service):
    model = routed(
        [delegate_both(), answer("好")],
        sub_script(SALES_SQL, "七个地区"),
        sub_script(TOP_SQL, "三个产品"),
    )
    async with open_service(model) as service:
        await service.runner.ask(QUESTION, "wang1:sub9")
        namespaces = {
            saved.config["configurable"]["checkpoint_ns"]
            async for saved in service.checkpointer.alist(
                {"configurable": {"thread_id": "wang1:sub9"}}
            )
        }
        nested = sorted(ns for ns in namespaces if "sql_subagent:" in ns)
        answers = []
        for ns in nested:
            config = {"configurable": {"thread_id": "wang1:sub9", "checkpoint_ns": ns}}
            saved = await service.checkpointer.aget_tuple(config)
            answers.append(saved.checkpoint["channel_values"].get("final_answer"))

    assert "" in namespaces
    assert len(nested) == 2 and all(ns.startswith("tools:") for ns in nested)
    assert sorted(answers) == sorted(["七个地区", "三个产品"])


def with_usage(message: AIMessage, tokens: int) -> AIMessage:
    """Return the reply with the token usage a server would report for it."""
    usage = {"input_tokens": tokens, "output_tokens": 1, "total_tokens": tokens + 1}
    return message.model_copy(update={"usage_metadata": usage})


async def test_the_turns_usage_adds_up_the_sub_agents_model_calls(open_service):
    sales = ScriptedChatModel(
        replies=[with_usage(call_tool("run_sql", sql=SALES_SQL), 100), with_usage(answer("a"), 200)]
    )
    top = ScriptedChatModel(replies=[with_usage(answer("b"), 30)])
    parent = [with_usage(delegate_both(), 1000), with_usage(answer("好"), 2000)]
    async with open_service(routed(parent, sales, top)) as service:
        result = await service.runner.ask(QUESTION, "wang1:sub10")

    assert result.usage == {
        "prompt_tokens": 3330,
        "completion_tokens": 5,
        "total_tokens": 3335,
    }


async def test_subagents_max_parallel_one_runs_the_sub_agents_one_after_the_other(open_service):
    sales, top = sub_script(SALES_SQL, "七个地区"), sub_script(TOP_SQL, "三个产品")
    model = routed([delegate_both(), answer("好")], sales, top)
    async with open_service(model, subagents_max_parallel=1) as service:
        run = await service.runner.start(QUESTION, "wang1:sub11")
        await run.result()

    order = [e.subagent["description"] for e in run.events if getattr(e, "subagent", None)]
    first_change = next(i for i, d in enumerate(order) if d != order[0])
    assert len(set(order[first_change:])) == 1 and len(set(order)) == 2


async def test_sub_agents_checkpoint_under_the_thread_in_postgresql_too(
    open_service, postgres_database
):
    model = routed(
        [delegate_both(), answer("好")],
        sub_script(SALES_SQL, "七个地区"),
        sub_script(TOP_SQL, "三个产品"),
    )
    async with open_service(model, checkpoint_database_url=postgres_database) as service:
        result = await service.runner.ask(QUESTION, "wang1:sub12")
        saved = [
            c.config["configurable"]["checkpoint_ns"]
            async for c in service.checkpointer.alist(
                {"configurable": {"thread_id": "wang1:sub12"}}
            )
        ]
        threads = await service.runner.graph.aget_state(
            {"configurable": {"thread_id": "wang1:sub12"}}
        )

    assert result.answer == "好" and [e["sql"] for e in result.sqls] == [SALES_SQL, TOP_SQL]
    assert len({ns for ns in saved if "sql_subagent:" in ns}) == 2
    # The main thread's state is the parent's alone.
    assert threads.values["final_answer"] == "好"


async def test_delegation_is_refused_while_each_query_needs_approval():
    from langchain_core.messages import ToolMessage
    from langgraph.graph import StateGraph

    from react_agent.graph.run_context import RunContext
    from react_agent.subagents.delegate import DELEGATION_OFF_UNDER_APPROVAL, build_delegate_tool

    # No sub-agent graph at all: reaching it would fail the test.
    tool = build_delegate_tool(None, max_parallel=2, recursion_limit=10)  # type: ignore[arg-type]
    call = {
        "name": "delegate",
        "args": {"tasks": [{"description": "a", "question": "q"}]},
        "id": "call_1",
        "type": "tool_call",
    }

    async def call_delegate(state: dict) -> dict:
        return {"result": await tool.ainvoke(call)}

    # The run's options reach the tool as the graph's typed context, as in a real run.
    graph = StateGraph(dict, context_schema=RunContext)
    graph.add_node("call", call_delegate)
    graph.set_entry_point("call")
    graph.set_finish_point("call")
    compiled = graph.compile()
    result = (await compiled.ainvoke({}, context=RunContext(approve_sql=True)))["result"]
    assert isinstance(result, ToolMessage)
    assert result.status == "error" and result.content == DELEGATION_OFF_UNDER_APPROVAL
