"""SQL approval in the graph, with scripted models: interrupt, approve, edit, reject, resume."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from react_agent.approval.decisions import ApprovalDecision, tables_read
from react_agent.errors import ServiceError
from react_agent.runs.run_flags import RunFlags
from tests.support.scripted_model import answer, call_tool

APPROVE = RunFlags(approve_sql=True)
"""Every query of the run waits for a person."""

REGION_SQL = (
    "SELECT r.region_name AS region, COUNT(*) AS stores "
    "FROM stores s JOIN regions r ON r.region_id = s.region_id GROUP BY r.region_name"
)


def decide(result, action, **fields):
    """Return the decision answering the approval `result` stopped for."""
    return ApprovalDecision(result.approval["interrupt_id"], action, **fields)


async def resume(runner, thread_id, decision):
    """Resume a waiting thread with `decision` and return the resumed run's result."""
    run = await runner.start("", thread_id, resume=decision)
    return await run.result()


async def test_a_run_asking_for_approval_stops_before_the_query_with_its_sql_and_tables(
    sample_service,
):
    service, model = sample_service
    model.replies = [call_tool("run_sql", sql=REGION_SQL + ";"), answer("七个地区")]

    run = await service.runner.start("各地区门店数", "ann:1", flags=APPROVE)
    result = await run.result()

    assert result.approval["kind"] == "sql_approval"
    assert result.approval["sql"] == REGION_SQL
    assert result.approval["tables"] == ["regions", "stores"]
    assert result.approval["interrupt_id"]
    assert result.sql_execution_count == 0 and result.answer == ""
    assert result.execution_path[-1] == "prepare_tool_input"  # approve_sql has not finished
    assert len(model.seen) == 1  # the model has not been asked again
    assert not await service.runner.locks.is_running("ann:1")


async def test_approve_runs_the_query_and_the_model_answers_from_its_rows(sample_service):
    service, model = sample_service
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("七个地区")]
    waiting = await (await service.runner.start("q", "ann:2", flags=APPROVE)).result()

    result = await resume(service.runner, "ann:2", decide(waiting, "approve"))

    assert result.approval is None
    assert result.answer == "七个地区"
    assert result.sql == REGION_SQL and len(result.records["rows"]) == 7
    assert result.sql_execution_count == 1
    assert result.execution_path[:2] == ["approve_sql", "tools"]


async def test_edit_runs_the_persons_sql_and_the_history_shows_it(sample_service):
    service, model = sample_service
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("三个")]
    waiting = await (await service.runner.start("q", "ann:3", flags=APPROVE)).result()
    edited = "SELECT region_name FROM regions LIMIT 3"

    result = await resume(service.runner, "ann:3", decide(waiting, "edit", sql=edited + ";"))

    assert result.sql == edited and len(result.records["rows"]) == 3
    call = next(m for m in reversed(model.seen[1]) if isinstance(m, AIMessage) and m.tool_calls)
    assert call.tool_calls[0]["args"]["sql"] == edited


async def test_a_refused_edit_is_counted_and_the_same_query_waits_again_with_the_reason(
    sample_service,
):
    service, model = sample_service
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("ok")]
    waiting = await (await service.runner.start("q", "ann:4", flags=APPROVE)).result()

    again = await resume(
        service.runner, "ann:4", decide(waiting, "edit", sql="DELETE FROM regions")
    )

    assert again.approval is not None
    assert again.approval["interrupt_id"] != waiting.approval["interrupt_id"]
    assert again.approval["sql"] == REGION_SQL
    assert again.approval["refused_edit"]["sql"] == "DELETE FROM regions"
    assert "DELETE is not allowed" in again.approval["refused_edit"]["reason"]
    assert again.sql_refusal_count == 1 and again.sql_execution_count == 0
    done = await resume(service.runner, "ann:4", decide(again, "approve"))
    assert done.sql == REGION_SQL and done.sql_refusal_count == 1
    rows = await service.database.run_query(
        "SELECT COUNT(*) AS n FROM regions", row_limit=10, timeout=5
    )
    assert rows.rows[0]["n"] == 7


async def test_reject_tells_the_model_which_proposes_another_query_that_waits_again(
    sample_service,
):
    service, model = sample_service
    model.replies = [
        call_tool("run_sql", sql=REGION_SQL),
        call_tool("run_sql", sql="SELECT COUNT(*) AS n FROM regions"),
        answer("7"),
    ]
    waiting = await (await service.runner.start("q", "ann:5", flags=APPROVE)).result()

    second = await resume(service.runner, "ann:5", decide(waiting, "reject", comment="只要总数"))

    rejection = [m for m in model.seen[1] if isinstance(m, ToolMessage)][-1]
    assert rejection.status == "error"
    assert "rejected" in rejection.content and "只要总数" in rejection.content
    assert second.approval["sql"] == "SELECT COUNT(*) AS n FROM regions"
    assert second.sql_execution_count == 0
    done = await resume(service.runner, "ann:5", decide(second, "approve"))
    assert done.answer == "7" and done.records["rows"] == [{"n": 7}]
    assert done.sql_execution_count == 1


async def test_several_queries_in_one_turn_each_wait_for_their_own_decision(sample_service):
    service, model = sample_service
    model.replies = [
        AIMessage(
            "",
            tool_calls=[
                {"name": "run_sql", "args": {"sql": "SELECT 1 AS a"}, "id": "x"},
                {"name": "list_tables", "args": {}, "id": "y"},
                {"name": "run_sql", "args": {"sql": "SELECT 2 AS b"}, "id": "z"},
            ],
        ),
        answer("done"),
    ]
    first = await (await service.runner.start("q", "ann:6", flags=APPROVE)).result()
    assert first.approval["sql"] == "SELECT 1 AS a"

    second = await resume(service.runner, "ann:6", decide(first, "reject"))
    assert second.approval["sql"] == "SELECT 2 AS b"
    done = await resume(service.runner, "ann:6", decide(second, "approve"))

    results = {m.name + ":" + m.status for m in model.seen[1] if isinstance(m, ToolMessage)}
    assert results == {"run_sql:error", "list_tables:success", "run_sql:success"}
    assert done.sql == "SELECT 2 AS b" and done.sql_execution_count == 1
    assert done.answer == "done"


async def test_sql_the_guard_refuses_is_refused_as_usual_without_waiting(sample_service):
    service, model = sample_service
    model.replies = [call_tool("run_sql", sql="DROP TABLE regions"), answer("不能删除")]

    result = await (await service.runner.start("q", "ann:7", flags=APPROVE)).result()

    assert result.approval is None and result.answer == "不能删除"
    assert result.sql_refusal_count == 1
    assert "approve_sql" not in result.execution_path


async def test_without_approval_the_path_and_result_are_unchanged(sample_service):
    service, model = sample_service
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("ok")]

    result = await service.runner.ask("q", "ann:8")

    assert result.approval is None and result.sql == REGION_SQL
    assert "approve_sql" not in result.execution_path


async def test_resumes_naming_nothing_pending_are_refused_with_409(sample_service):
    service, model = sample_service
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("ok")]
    await service.runner.ask("q", "ann:9")
    with pytest.raises(ServiceError) as idle:
        await service.runner.start("", "ann:9", resume=ApprovalDecision("i", "approve"))
    assert idle.value.status == 409 and idle.value.error_type == "NOT_AWAITING_APPROVAL"

    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("ok")]
    model.seen.clear()
    waiting = await (await service.runner.start("q", "ann:10", flags=APPROVE)).result()
    with pytest.raises(ServiceError) as stale:
        await service.runner.start("", "ann:10", resume=ApprovalDecision("old", "approve"))
    assert stale.value.status == 409 and stale.value.error_type == "STALE_INTERRUPT"
    assert stale.value.params["interrupt_id"] == waiting.approval["interrupt_id"]
    assert not await service.runner.locks.is_running("ann:10")  # the claim was given back


async def test_two_resumes_of_one_interrupt_run_it_once(sample_service):
    service, model = sample_service
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("ok")]
    waiting = await (await service.runner.start("q", "ann:11", flags=APPROVE)).result()
    decision = decide(waiting, "approve")

    outcomes = await asyncio.gather(
        *(resume(service.runner, "ann:11", decision) for _ in range(2)), return_exceptions=True
    )

    won = [o for o in outcomes if not isinstance(o, BaseException)]
    lost = [o for o in outcomes if isinstance(o, ServiceError)]
    assert len(won) == 1 and len(lost) == 1
    assert lost[0].status == 409
    assert lost[0].error_type in ("THREAD_BUSY", "NOT_AWAITING_APPROVAL")
    assert won[0].sql_execution_count == 1 and len(model.seen) == 2


async def test_a_new_question_on_a_waiting_thread_rejects_the_sql_and_answers_it(
    sample_service,
):
    service, model = sample_service
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("新问题的回答")]
    await (await service.runner.start("q", "ann:12", flags=APPROVE)).result()

    result = await service.runner.ask("换个问题", "ann:12")

    assert result.answer == "新问题的回答" and result.approval is None
    seen = model.seen[1]
    rejection = next(m for m in seen if isinstance(m, ToolMessage))
    assert rejection.status == "error" and "new question" in rejection.content
    state = await service.runner.graph.aget_state(service.runner.config_for("ann:12"))
    assert not state.interrupts


def test_tables_read_names_the_tables_but_not_the_querys_own_ctes():
    sql = "WITH t AS (SELECT * FROM orders) SELECT * FROM t JOIN main.stores s ON 1=1"
    assert tables_read(sql, "sqlite") == ["main.stores", "orders"]
    assert tables_read("not sql at all (", "sqlite") == []


async def test_an_answer_that_is_no_decision_rejects_the_query_rather_than_run_it(
    sample_service,
):
    service, model = sample_service
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("没有执行")]
    waiting = await (await service.runner.start("q", "ann:13", flags=APPROVE)).result()

    result = await resume(service.runner, "ann:13", decide(waiting, "maybe"))

    assert result.sql_execution_count == 0 and result.sql is None
    assert result.answer == "没有执行"
