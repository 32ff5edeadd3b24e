"""The run metrics listener: outcomes, the queue and active gauges, refusal reasons."""

from __future__ import annotations

from dataclasses import replace

import pytest
from prometheus_client import CollectorRegistry

from react_agent.errors import ServiceError
from react_agent.guard.sql_guard import QueryRejected, check_query
from react_agent.observability.metrics import ServiceMetrics
from react_agent.observability.run_metrics import RunMetrics, refusal_reason
from react_agent.runs.admission.busy_threads import interrupted_by_newer_question
from react_agent.runs.events.events import RunFailed, RunFinished, RunResult, RunStarted, RunWaiting
from react_agent.runs.events.listeners import RunAccepted, RunListeners
from react_agent.runs.run import Run

RESULT = RunResult(
    thread_id="wang1:1",
    answer="",
    execution_path=["approve_sql"],
    tools_used=[],
    sql=None,
    records=None,
    sql_execution_count=0,
    total_messages=2,
    conversation_rounds=1,
)


def value(registry: CollectorRegistry, name: str, **labels: str) -> float:
    return registry.get_sample_value(name, labels) or 0.0


@pytest.fixture
def listened() -> tuple[CollectorRegistry, RunListeners]:
    registry = CollectorRegistry()
    return registry, RunListeners([RunMetrics(ServiceMetrics(registry))])


def test_a_queued_run_is_counted_queued_then_active_then_by_its_outcome(listened):
    registry, listeners = listened
    run = Run("wang1:1", None, listeners)
    run.report(RunAccepted("q"))
    run.append(RunWaiting("wang1:1", "capacity", 3))
    run.append(RunWaiting("wang1:1", "capacity", 2))  # moved up: still one queued run
    assert value(registry, "sqlagent_runs_queued") == 1
    run.append(RunStarted("wang1:1"))
    assert value(registry, "sqlagent_runs_queued") == 0
    assert value(registry, "sqlagent_runs_active") == 1
    run.append(RunFinished(replace(RESULT, approval={"interrupt_id": "x"})))
    assert value(registry, "sqlagent_runs_active") == 0
    assert value(registry, "sqlagent_runs_finished_total", outcome="awaiting_approval") == 1
    assert value(registry, "sqlagent_run_duration_seconds_count", outcome="awaiting_approval") == 1


@pytest.mark.parametrize(
    ("error", "outcome"),
    [
        (interrupted_by_newer_question(), "interrupted"),
        (ServiceError(503, "RUN_CANCELLED", "x"), "cancelled"),
        (ServiceError(503, "SHUTTING_DOWN", "x"), "cancelled"),
        (ServiceError(504, "RUN_TIMEOUT", "x"), "failed"),
    ],
)
def test_a_failed_run_is_counted_by_what_stopped_it(listened, error, outcome):
    registry, listeners = listened
    run = Run("wang1:1", None, listeners)
    run.report(RunAccepted("q"))
    run.append(RunFailed(error))  # never started: cancelled while it waited
    assert value(registry, "sqlagent_runs_finished_total", outcome=outcome) == 1
    assert value(registry, "sqlagent_runs_active") == 0


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("DELETE FROM regions", "write"),
        ("SELECT 1; SELECT 2", "multiple_statements"),
        ("SELECT * FROM sqlite_master", "system_catalog"),
        ("SELEC * FROM", "syntax"),
        ("", "empty"),
        ("SELECT * FROM regions FOR UPDATE", "locking"),
        ("SELECT load_extension('x')", "function"),
        ("CREATE TABLE t (a int)", "write"),
    ],
)
def test_every_guard_refusal_maps_to_a_bounded_reason(sql, reason):
    with pytest.raises(QueryRejected) as refused:
        check_query(sql, "sqlite", None)
    assert refusal_reason(refused.value.reason) == reason


def test_a_table_outside_the_allowed_list_has_its_own_reason():
    with pytest.raises(QueryRejected) as refused:
        check_query("SELECT * FROM secrets", "sqlite", frozenset({"regions"}))
    assert refusal_reason(refused.value.reason) == "table_not_allowed"
    assert refusal_reason("something new") == "other" and refusal_reason(None) == ""
