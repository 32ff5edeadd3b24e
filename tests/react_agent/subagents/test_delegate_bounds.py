"""delegate is bounded: tasks per call, sub-questions per question, and the asker's quota."""

from __future__ import annotations

from datetime import UTC, datetime

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from app.http.app_state import agent_service_of
from tests.support.live_server import running_service
from tests.support.routed_model import RoutedChatModel
from tests.support.scripted_model import ScriptedChatModel, answer

PARTS = [f"第{n}部分的销售额是多少？" for n in range(1, 6)]


def task(n: int) -> dict[str, str]:
    return {"description": f"part {n}", "question": PARTS[n - 1]}


def delegating(*calls: list[int]) -> AIMessage:
    """Return one model message with a delegate call per list of part numbers."""
    return AIMessage(
        content="",
        tool_calls=[
            {"name": "delegate", "args": {"tasks": [task(n) for n in parts]}, "id": f"d{i}"}
            for i, parts in enumerate(calls)
        ],
    )


def routed(parent: list) -> RoutedChatModel:
    routes = {q: ScriptedChatModel(default=answer(f"answer {n}")) for n, q in enumerate(PARTS, 1)}
    return RoutedChatModel(parent=ScriptedChatModel(replies=parent), routes=routes)


def delegate_results(messages: list[BaseMessage]) -> list[ToolMessage]:
    """Return the delegate results among the messages a model was shown, in order."""
    return [m for m in messages if isinstance(m, ToolMessage) and m.name == "delegate"]


def asked(model: RoutedChatModel) -> list[int]:
    return [n for n, q in enumerate(PARTS, 1) if model.routes[q].seen]


async def test_a_call_over_the_tasks_per_call_is_a_tool_error_and_runs_nothing(open_service):
    model = routed([delegating([1, 2, 3]), answer("done myself")])
    async with open_service(model, delegate_max_tasks=2) as service:
        result = await service.runner.ask("five parts", "wang1:bound1")
    assert result.answer == "done myself"
    refused = delegate_results(model.parent.seen[1])[0]
    assert refused.status == "error"
    assert "at most 2 tasks per call; this call has 3" in refused.content
    assert asked(model) == []


async def test_a_question_hands_out_at_most_its_share_counting_calls_side_by_side(open_service):
    # d0 and d1 come in one message: d1 counts d0's two tasks, so only one remains for it.
    parent = [delegating([1, 2], [3, 4]), delegating([5]), answer("done")]
    model = routed(parent)
    settings = {"delegate_max_tasks": 2, "delegate_max_tasks_per_question": 3}
    async with open_service(model, **settings) as service:
        result = await service.runner.ask("five parts", "wang1:bound2")
    assert result.answer == "done"
    first = delegate_results(model.parent.seen[1])
    assert first[0].status != "error" and "answer 1" in first[0].content
    assert first[1].status == "error"
    assert "at most 3 sub-questions" in first[1].content
    assert "2 already were, so 1 remain" in first[1].content
    later = delegate_results(model.parent.seen[2])[-1]  # the second message's call
    assert later.status != "error" and "answer 5" in later.content
    assert asked(model) == [1, 2, 5]


async def test_each_sub_question_counts_against_the_question_quota(settings):
    now = datetime(2026, 3, 1, 10, 0, 30, tzinfo=UTC)
    model = routed([delegating([1, 2]), answer("one part known")])
    update = {"quota_questions_per_minute": 2}
    async with running_service(settings.model_copy(update=update), model=model) as client:
        agent_service_of(client.app).ledger.quotas.counters.clock = lambda: now
        response = await client.http.post(
            "/api/v0/ask_react_agent", json={"question": "two parts", "user_id": "ann"}
        )
        assert response.status_code == 200, response.text
        usage = (await client.http.get("/api/v0/usage", params={"user_id": "ann"})).json()
        refused = await client.http.post(
            "/api/v0/ask_react_agent", json={"question": "again", "user_id": "ann"}
        )
    # The question took one, its first sub-question the second; the other was not asked.
    assert asked(model) == [1]
    summary = delegate_results(model.parent.seen[1])[0].content
    assert "answer 1" in summary
    assert "not asked (quota exceeded: 2 questions per minute" in summary
    assert usage["data"]["questions_this_minute"] == 2
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "30"
