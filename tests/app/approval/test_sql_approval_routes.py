"""SQL approval over real HTTP: the interrupt on both endpoints, resume actions, 409s, 400s."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.live_server import running_service
from tests.support.scripted_model import answer, call_tool
from tests.support.sse import collect_stream

REGION_SQL = (
    "SELECT r.region_name AS region, COUNT(*) AS stores FROM stores s "
    "JOIN regions r ON r.region_id = s.region_id GROUP BY r.region_name"
)
THREAD = "lin:approval-1"


async def stop_for_approval(service, thread_id=THREAD, **extra):
    """Ask on the sync endpoint with approve_sql; return the waiting answer's data."""
    status, body = await service.ask(
        question="各地区门店数", thread_id=thread_id, approve_sql=True, **extra
    )
    assert status == 200, body
    return body["data"]


async def test_the_sync_endpoint_answers_awaiting_approval_with_the_pending_sql(service, model):
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("七个地区")]

    data = await stop_for_approval(service, lang="en-US")

    assert data["status"] == "awaiting_approval" and data["kind"] == "sql_approval"
    assert data["sql"] == REGION_SQL and data["tables"] == ["regions", "stores"]
    assert data["interrupt_id"] and data["thread_id"] == THREAD
    assert data["message"] == "Waiting for approval"
    assert data["conversation_id"] == THREAD and data["user_id"] == "lin"
    assert data["react_agent_meta"]["sql_execution_count"] == 0
    assert "records" not in data


async def test_the_stream_sends_an_interrupt_event_then_end_and_a_resume_streams_the_answer(
    service, model
):
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("七个地区")]

    events = await collect_stream(
        service.http, json={"question": "各地区门店数", "thread_id": THREAD, "approve_sql": True}
    )

    assert [e.type for e in events][-2:] == ["interrupt", "end"]
    interrupt = events[-2].data
    assert interrupt["kind"] == "sql_approval" and interrupt["sql"] == REGION_SQL
    assert interrupt["message"] == "等待确认" and interrupt["thread_id"] == THREAD
    assert interrupt["tables"] == ["regions", "stores"]
    resumed = await collect_stream(
        service.http,
        json={
            "thread_id": THREAD,
            "resume": {"interrupt_id": interrupt["interrupt_id"], "action": "approve"},
        },
    )
    types = [e.type for e in resumed]
    assert types[0] == "started" and types[-2:] == ["completed", "end"]
    nodes = [e.data["node"] for e in resumed if e.type == "progress"]
    assert nodes[:3] == ["__start__", "approve_sql", "tools"]
    completed = resumed[-2].data
    assert completed["response"] == "七个地区" and completed["sql"] == REGION_SQL
    assert len(completed["records"]["rows"]) == 7


async def test_the_get_stream_takes_approve_sql_and_resume_as_query_parameters(service, model):
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("好")]
    events = await collect_stream(
        service.http,
        "GET",
        params={"question": "门店", "thread_id": THREAD, "approve_sql": "true"},
    )
    interrupt_id = events[-2].data["interrupt_id"]

    resume = f'{{"interrupt_id": "{interrupt_id}", "action": "reject", "comment": "不需要"}}'
    resumed = await collect_stream(
        service.http, "GET", params={"thread_id": THREAD, "resume": resume}
    )

    assert resumed[-2].type == "completed" and resumed[-2].data["response"] == "好"
    assert "sql" not in resumed[-2].data  # nothing ran


async def test_status_says_awaiting_approval_with_the_pending_sql(service, model):
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("ok")]
    data = await stop_for_approval(service)

    response = await service.http.get(f"/api/v0/react/status/{THREAD}")

    status = response.json()["data"]
    assert status["status"] == "awaiting_approval"
    assert status["approval"]["sql"] == REGION_SQL
    assert status["approval"]["interrupt_id"] == data["interrupt_id"]
    await service.ask(
        thread_id=THREAD, resume={"interrupt_id": data["interrupt_id"], "action": "approve"}
    )
    after = (await service.http.get(f"/api/v0/react/status/{THREAD}")).json()["data"]
    assert after["status"] == "completed" and "approval" not in after


async def test_edit_runs_the_persons_sql_and_a_refused_edit_waits_again(service, model):
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("三个")]
    data = await stop_for_approval(service)

    status, refused = await service.ask(
        thread_id=THREAD,
        resume={"interrupt_id": data["interrupt_id"], "action": "edit", "sql": "DROP TABLE x"},
    )
    assert status == 200 and refused["data"]["status"] == "awaiting_approval"
    assert refused["data"]["refused_edit"]["sql"] == "DROP TABLE x"
    assert refused["data"]["react_agent_meta"]["sql_refusal_count"] == 1
    status, done = await service.ask(
        thread_id=THREAD,
        resume={
            "interrupt_id": refused["data"]["interrupt_id"],
            "action": "edit",
            "sql": "SELECT region_name FROM regions LIMIT 3",
        },
    )

    assert status == 200 and done["data"]["response"] == "三个"
    assert done["data"]["sql"] == "SELECT region_name FROM regions LIMIT 3"
    assert len(done["data"]["records"]["rows"]) == 3


async def test_resumes_on_a_thread_not_waiting_or_with_a_stale_id_get_409(service, model):
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("ok")]
    data = await stop_for_approval(service)

    status, stale = await service.ask(
        thread_id=THREAD, resume={"interrupt_id": "not-it", "action": "approve"}
    )
    assert status == 409 and stale["data"]["error_type"] == "STALE_INTERRUPT"
    decision = {"interrupt_id": data["interrupt_id"], "action": "approve"}
    assert (await service.ask(thread_id=THREAD, resume=decision))[0] == 200
    status, again = await service.ask(thread_id=THREAD, resume=decision)
    assert status == 409 and again["data"]["error_type"] == "NOT_AWAITING_APPROVAL"
    status, unknown = await service.ask(thread_id="lin:never-asked", resume=decision)
    assert status == 409 and unknown["data"]["error_type"] == "NOT_AWAITING_APPROVAL"


async def test_two_resumes_racing_for_one_interrupt_run_the_sql_once(service, model):
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("ok")]
    data = await stop_for_approval(service)
    decision = {"interrupt_id": data["interrupt_id"], "action": "approve"}

    answers = await asyncio.gather(
        *(service.ask(thread_id=THREAD, resume=decision) for _ in range(2))
    )

    statuses = sorted(status for status, _ in answers)
    assert statuses == [200, 409]
    loser = next(body for status, body in answers if status == 409)
    assert loser["data"]["error_type"] in ("THREAD_BUSY", "NOT_AWAITING_APPROVAL")
    winner = next(body for status, body in answers if status == 200)
    assert winner["data"]["react_agent_meta"]["sql_execution_count"] == 1
    assert len(model.seen) == 2  # the model answered once after the query


@pytest.mark.parametrize(
    ("resume", "extra", "fragment"),
    [
        ("approve", {}, "resume must be an object"),
        ({"action": "approve"}, {}, "interrupt_id"),
        ({"interrupt_id": "i", "action": "maybe"}, {}, "action"),
        ({"interrupt_id": "i", "action": "edit"}, {}, "required with action edit"),
        ({"interrupt_id": "i", "action": "edit", "sql": "  "}, {}, "required with action edit"),
        ({"interrupt_id": "i", "action": "approve", "sql": "SELECT 1"}, {}, "only with action"),
        ({"interrupt_id": "i", "action": "approve", "extra": 1}, {}, "extra"),
        ({"interrupt_id": "i", "action": "approve"}, {"question": "q"}, "not both"),
        ({"interrupt_id": "i", "action": "approve"}, {"thread_id": None}, "thread_id"),
    ],
)
async def test_bad_resume_bodies_get_a_clear_400_and_leave_the_approval_waiting(
    service, model, resume, extra, fragment
):
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("ok")]
    data = await stop_for_approval(service)

    status, body = await service.ask(**{"thread_id": THREAD, "resume": resume, **extra})

    assert status == 400, body
    assert body["data"]["error_type"] == "RESUME_INVALID"
    assert fragment in body["data"]["error"]
    after = (await service.http.get(f"/api/v0/react/status/{THREAD}")).json()["data"]
    assert after["approval"]["interrupt_id"] == data["interrupt_id"]


async def test_a_new_question_on_a_waiting_thread_goes_on_without_the_sql(service, model):
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("另一个回答")]
    await stop_for_approval(service)

    status, body = await service.ask(question="换个问题", thread_id=THREAD)

    assert status == 200 and body["data"]["response"] == "另一个回答"
    assert "status" not in body["data"]
    after = (await service.http.get(f"/api/v0/react/status/{THREAD}")).json()["data"]
    assert after["status"] == "completed"


async def test_sql_approval_always_makes_every_question_wait(settings, model):
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("ok")]
    always = settings.model_copy(update={"sql_approval": "always"})
    async with running_service(always, model=model) as service:
        status, body = await service.ask(question="门店", thread_id=THREAD)

    assert status == 200 and body["data"]["status"] == "awaiting_approval"


async def test_legacy_requests_without_the_flag_do_not_wait(service, model):
    model.replies = [call_tool("run_sql", sql=REGION_SQL), answer("ok")]

    status, body = await service.ask(question="门店", thread_id=THREAD)

    assert status == 200 and body["data"]["sql"] == REGION_SQL
    assert "status" not in body["data"] and "interrupt_id" not in body["data"]
