"""Deriving tool events from node updates: once per call id, with measured durations."""

from __future__ import annotations

from langchain_core.messages import AIMessage, ToolMessage

from react_agent.runs.events.tool_events import ToolCalled, ToolEventTracker, ToolReturned


class Clock:
    """Seconds that advance only when the test says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def model_turn(sql: str) -> AIMessage:
    return AIMessage(
        "", id="ai-1", tool_calls=[{"id": "c1", "name": "run_sql", "args": {"sql": sql}}]
    )


def test_a_re_sent_model_message_is_not_a_second_call_and_the_duration_is_measured():
    clock = Clock()
    tracker = ToolEventTracker(clock)
    (called,) = tracker.events_for({"messages": [model_turn("SELECT 1;")]}, 2)
    again = tracker.events_for({"messages": [model_turn("SELECT 1")]}, 3)
    clock.now += 0.25
    result = ToolMessage(
        "result_id: c1",
        tool_call_id="c1",
        name="run_sql",
        artifact={
            "sql": "SELECT 1",
            "outcome": "ok",
            "result_id": "c1",
            "records": {
                "columns": ["x"],
                "rows": [{"x": 1}, {"x": 2}, {"x": 3}],
                "total_row_count": 3,
                "is_limited": False,
            },
            "preview_row_count": 2,
        },
    )
    (returned,) = tracker.events_for({"messages": [result]}, 5)
    repeated = tracker.events_for({"messages": [result]}, 6)

    assert isinstance(called, ToolCalled) and called.sql == "SELECT 1;" and called.step == 2
    assert again == [] and repeated == []
    assert isinstance(returned, ToolReturned) and returned.duration_ms == 250
    assert returned.rows == [{"x": 1}, {"x": 2}] and returned.row_count == 3
    assert returned.status == "ok" and returned.error is None and returned.result_id == "c1"


def test_plain_text_errors_and_error_statuses_are_errors_and_unknown_calls_have_no_duration():
    tracker = ToolEventTracker(Clock())
    text_error = ToolMessage("Error: no such column: y", tool_call_id="a", name="check_sql")
    status_error = ToolMessage("Not run", tool_call_id="b", name="list_tables", status="error")
    first, second = tracker.events_for({"messages": [text_error, status_error]}, 4)
    assert (first.status, first.error) == ("error", "no such column: y")
    assert (second.status, second.error) == ("error", "Not run")
    assert first.duration_ms is None and first.row_count is None and first.columns is None


def test_updates_without_messages_bring_no_events():
    tracker = ToolEventTracker()
    assert tracker.events_for({"pending_tools": ["run_sql"]}, 1) == []
    assert tracker.events_for(None, 1) == []
