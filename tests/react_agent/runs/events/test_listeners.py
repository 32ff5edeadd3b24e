"""Run-event listeners: told of every event, model calls and queries included, never in the log."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from react_agent.approval.decisions import ApprovalDecision
from react_agent.errors import ServiceError
from react_agent.runs.events.events import NodeFinished, RunFailed, RunFinished, RunStarted
from react_agent.runs.events.listener_reports import tables_read
from react_agent.runs.events.listeners import (
    ModelCalled,
    QueryFinished,
    RunAccepted,
    RunListeners,
    SchemaRetrieved,
)
from react_agent.runs.events.tool_events import ToolCalled, ToolReturned
from react_agent.runs.run import Run
from react_agent.runs.run_flags import RunFlags
from tests.react_agent.subagents.test_delegate import (
    QUESTION,
    SALES_SQL,
    TOP_SQL,
    delegate_both,
    routed,
    sub_script,
)
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

SQL = "SELECT region_name FROM regions ORDER BY region_name"


class Recorder:
    """A listener that keeps what it was told, with the run it was about."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    def on_run_event(self, run: Any, event: Any) -> None:
        self.seen.append((run.run_id, event))

    def of(self, kind: type) -> list[Any]:
        return [event for _, event in self.seen if isinstance(event, kind)]


class Broken:
    """A listener that fails on every event."""

    def on_run_event(self, run: Any, event: Any) -> None:
        raise RuntimeError("listener bug")


def answered_with_usage(text: str) -> AIMessage:
    return AIMessage(
        content=text,
        usage_metadata={"input_tokens": 120, "output_tokens": 7, "total_tokens": 127},
        response_metadata={"model_name": "scripted-1"},
    )


async def test_listeners_get_every_logged_event_and_the_model_and_query_reports(open_service):
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=SQL), answered_with_usage("七个地区")]
    )
    recorder = Recorder()
    async with open_service(model) as service:
        service.runner.listeners.add(Broken())  # logged and skipped: the run goes on
        service.runner.listeners.add(recorder)
        run = await service.runner.start("有哪些地区？", "wang1:l1")
        result = await run.result()

    assert result.answer == "七个地区"
    assert {run_id for run_id, _ in recorder.seen} == {run.run_id}
    # Every event of the log, in order, and nothing listener-only in the log.
    logged = [e for _, e in recorder.seen if not isinstance(e, RunAccepted | ModelCalled)]
    logged = [e for e in logged if not isinstance(e, QueryFinished | SchemaRetrieved)]
    assert logged == run.events
    listener_only = RunAccepted | ModelCalled | QueryFinished | SchemaRetrieved
    assert not any(isinstance(e, listener_only) for e in run.events)
    assert recorder.seen[0][1] == RunAccepted("有哪些地区？")
    calls = recorder.of(ModelCalled)
    assert [(c.outcome, c.subagent) for c in calls] == [("ok", None), ("ok", None)]
    assert (calls[1].model, calls[1].prompt_tokens, calls[1].completion_tokens) == (
        "scripted-1",
        120,
        7,
    )
    assert calls[0].model == service.settings.llm_model  # the answer named no model
    (query,) = recorder.of(QueryFinished)
    assert (query.sql, query.sql_run, query.backend, query.outcome) == (SQL, SQL, "sqlite", "ok")
    assert query.tables == ("regions",) and query.row_count == 7 and query.seconds > 0
    # The query is reported while its tool runs: between its tool_call and tool_result.
    kinds = [type(e) for _, e in recorder.seen]
    assert kinds.index(ToolCalled) < kinds.index(QueryFinished) < kinds.index(ToolReturned)
    assert isinstance(recorder.seen[-1][1], RunFinished)


async def test_a_refused_query_and_a_failing_model_are_reported_with_their_outcome(open_service):
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql="DELETE FROM regions"), RuntimeError("model down")]
    )
    recorder = Recorder()
    async with open_service(model) as service:
        service.runner.listeners.add(recorder)
        run = await service.runner.start("删掉地区", "wang1:l2")
        try:
            await run.result()
        except ServiceError:
            pass

    (query,) = recorder.of(QueryFinished)
    assert (query.outcome, query.sql_run, query.tables) == ("refused", None, ())
    assert "DELETE is not allowed" in (query.reason or "")
    assert [c.outcome for c in recorder.of(ModelCalled)] == ["ok", "error"]
    assert isinstance(recorder.seen[-1][1], RunFailed)


async def test_sub_agents_model_calls_and_queries_carry_their_tag(open_service):
    sales, top = sub_script(SALES_SQL, "七个地区"), sub_script(TOP_SQL, "三个产品")
    model = routed([delegate_both(), answer("两部分都答完了")], sales, top)
    recorder = Recorder()
    async with open_service(model, subagents=True) as service:
        service.runner.listeners.add(recorder)
        run = await service.runner.start(QUESTION, "wang1:l3")
        await run.result()

    queries = recorder.of(QueryFinished)
    assert sorted((q.subagent or {}).get("description", "") for q in queries) == [
        "sales by year",
        "top products",
    ]
    tagged = [c for c in recorder.of(ModelCalled) if c.subagent is not None]
    untagged = [c for c in recorder.of(ModelCalled) if c.subagent is None]
    assert len(tagged) == 4 and len(untagged) == 2
    assert recorder.of(NodeFinished)[0].subagent is None
    assert any(e.subagent is not None for e in recorder.of(NodeFinished))


def test_a_run_without_listeners_appends_and_reports_as_before():
    run = Run("wang1:1", None)
    run.append(RunStarted("wang1:1"))
    run.report(RunAccepted("q"))
    assert run.events == [RunStarted("wang1:1")]


def test_a_failing_listener_does_not_stop_the_next_one():
    recorder = Recorder()
    listeners = RunListeners([Broken(), recorder])
    run = Run("wang1:1", None, listeners)
    run.append(RunStarted("wang1:1"))
    assert recorder.seen == [(run.run_id, RunStarted("wang1:1"))]


def test_the_tables_a_query_reads_leave_out_its_ctes():
    sql = "WITH t AS (SELECT * FROM sales.orders) SELECT * FROM t JOIN regions r ON 1=1"
    assert tables_read(sql, "postgres") == ("regions", "sales.orders")


async def test_a_query_a_person_rejects_at_approval_is_reported_rejected(open_service):
    model = ScriptedChatModel(replies=[call_tool("run_sql", sql=SQL), answer("好的，不查了")])
    recorder = Recorder()
    async with open_service(model) as service:
        service.runner.listeners.add(recorder)
        waiting = await (
            await service.runner.start("q", "ann:l4", flags=RunFlags(approve_sql=True))
        ).result()
        decision = ApprovalDecision(
            waiting.approval["interrupt_id"], "reject", comment="not this table"
        )
        resumed = await (await service.runner.start("", "ann:l4", resume=decision)).result()

    assert resumed.answer == "好的，不查了"
    (query,) = recorder.of(QueryFinished)
    assert (query.sql, query.sql_run, query.outcome, query.reason) == (
        SQL,
        None,
        "rejected",
        "not this table",
    )
    assert [accepted.resume for accepted in recorder.of(RunAccepted)] == [False, True]
