"""The streaming twin over real HTTP and a real SSE parser: events, timing, resumption."""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from app.http.app_state import agent_service_of
from tests.conftest import SAMPLE_QUESTION
from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool
from tests.support.sse import STREAM_PATH, collect_stream, open_stream
from tests.support.waiting import eventually

REGION_SQL = (
    "SELECT r.region_name AS region, COUNT(*) AS stores FROM stores s "
    "JOIN regions r ON r.region_id = s.region_id GROUP BY r.region_name"
)
THREAD = "wang1:20250131103000001"


def sql_script() -> list:
    return [call_tool("run_sql", sql=REGION_SQL), answer("七个地区都有门店。")]


async def test_stream_sends_the_documented_event_sequence(service, model):
    model.replies = sql_script()

    async with open_stream(
        service.http, json={"question": SAMPLE_QUESTION, "user_id": "wang1"}
    ) as (
        response,
        events,
    ):
        assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert response.headers["cache-control"] == "no-cache"
        assert response.headers["x-accel-buffering"] == "no"
        received = [event async for event in events]

    types = [e.type for e in received]
    assert types[0] == "started" and types[-2:] == ["completed", "end"]
    assert set(types[1:-2]) == {"progress"}
    started = received[0].data
    assert re.fullmatch(r"wang1:\d{17}", started["thread_id"])
    assert started["conversation_id"] == started["thread_id"] and started["user_id"] == "wang1"
    nodes = [e.data["node"] for e in received if e.type == "progress"]
    assert nodes == [
        "__start__",
        "trim_messages",
        "agent",
        "prepare_tool_input",
        "tools",
        "update_state_after_tool",
        "agent",
        "format_final_response",
        "__end__",
    ]
    progress = [e.data for e in received if e.type == "progress"]
    assert [p["step"] for p in progress] == list(range(len(progress)))
    assert progress[2]["display_name"] == "AI思考中" and progress[2]["icon"] == "🤖"
    assert progress[4]["display_name"] == "执行查询" and progress[4]["tool_name"] == "run_sql"
    assert all(p["thread_id"] == started["thread_id"] for p in progress)
    run_ids = {e.id.split(":")[0] for e in received}
    assert len(run_ids) == 1
    assert [int(e.id.split(":")[1]) for e in received] == list(range(1, len(received) + 1))
    completed = received[-2].data
    assert completed["response"] == "七个地区都有门店。" and completed["sql"] == REGION_SQL
    assert completed["records"]["total_row_count"] == 7
    assert completed["react_agent_meta"]["execution_path"] == nodes[1:-1]
    assert received[-1].data == {"type": "end", "thread_id": started["thread_id"]}


async def test_completed_data_equals_the_sync_data_for_the_same_model_outputs(settings):
    bodies = []
    for transport in ("sync", "stream"):
        # A fresh service each time, so both runs start from the same empty thread.
        fresh = settings.model_copy(
            update={"checkpoint_database_url": "memory", "data_dir": settings.data_dir / transport}
        )
        async with running_service(fresh, model=ScriptedChatModel(replies=sql_script())) as svc:
            if transport == "sync":
                _, body = await svc.ask(question=SAMPLE_QUESTION, thread_id=THREAD)
                bodies.append(body["data"])
            else:
                events = await collect_stream(
                    svc.http, json={"question": SAMPLE_QUESTION, "thread_id": THREAD}
                )
                bodies.append(next(e.data for e in events if e.type == "completed"))
    sync_data, stream_data = bodies
    assert stream_data.pop("type") == "completed"
    sync_data.pop("timestamp"), stream_data.pop("timestamp")
    # The scripted model numbers its tool calls afresh, so the result ids (the call ids)
    # differ; tests/app/asking/test_final_data_work.py compares them with fixed ids.
    for data in (sync_data, stream_data):
        assert [sql.pop("result_id") for sql in data["sqls"]] != [None]
    assert stream_data == sync_data


async def test_stream_sends_started_before_any_model_call(service, model):
    model.replies = [answer("done")]
    gate, entered = asyncio.Event(), asyncio.Event()
    model.gates[0], model.entered[0] = gate, entered

    async with open_stream(service.http, json={"question": "hi"}) as (_, events):
        first = await anext(events)
        second = await anext(events)
        third = await anext(events)
        assert first.type == "started"
        assert (second.data["node"], third.data["node"]) == ("__start__", "trim_messages")
        await entered.wait()
        assert model.seen == []  # the model has not answered anything yet
        gate.set()
        rest = [event async for event in events]
    assert [e.type for e in rest][-2:] == ["completed", "end"]


async def test_each_event_arrives_when_its_node_finishes_not_at_the_end(service, model):
    model.replies = sql_script()
    gate, entered = asyncio.Event(), asyncio.Event()
    model.gates[1], model.entered[1] = gate, entered  # the model's second call waits

    async with open_stream(service.http, json={"question": "q"}) as (_, events):
        before = []
        async for event in events:
            before.append(event)
            if event.type == "progress" and event.data["node"] == "update_state_after_tool":
                break
        await entered.wait()
        released_at = time.monotonic()
        gate.set()
        after = [event async for event in events]

    assert [e.data.get("node") for e in before][-3:] == [
        "prepare_tool_input",
        "tools",
        "update_state_after_tool",
    ]
    assert all(e.arrived < released_at for e in before)
    assert all(e.arrived >= released_at for e in after)
    assert [e.type for e in after][-2:] == ["completed", "end"]


async def test_stream_tokens_sends_the_answer_text_as_it_is_generated(service, model):
    model.replies = [answer("每个地区的销售额如下所示。")]
    events = await collect_stream(service.http, json={"question": "q", "stream_tokens": True})
    tokens = [e.data["content"] for e in events if e.type == "token"]
    assert len(tokens) > 1
    completed = next(e for e in events if e.type == "completed")
    assert "".join(tokens) == completed.data["response"]
    assert events.index(completed) > max(i for i, e in enumerate(events) if e.type == "token")


async def test_without_stream_tokens_no_token_events_are_sent(service, model):
    model.replies = [answer("plain")]
    events = await collect_stream(service.http, json={"question": "q"})
    types = [e.type for e in events]
    assert types[0] == "started" and types[-2:] == ["completed", "end"]
    assert "token" not in types


async def test_each_event_says_what_it_is_in_chinese_by_default(service, model):
    model.replies = [answer("done")]
    events = await collect_stream(service.http, json={"question": "q"})
    messages = {e.type: e.envelope["message"] for e in events if e.type != "progress"}
    agent = next(e for e in events if e.type == "progress" and e.data["node"] == "agent")
    assert messages == {"started": "任务已启动", "completed": "处理成功", "end": "处理成功"}
    assert agent.envelope["message"] == "正在执行: AI思考中"


async def test_get_with_query_parameters_streams_in_english_when_asked(service, model):
    model.replies = [answer("done")]
    events = await collect_stream(
        service.http, "GET", params={"question": "q", "user_id": "amy", "lang": "en-US"}
    )
    agent = next(e.data for e in events if e.type == "progress" and e.data["node"] == "agent")
    assert agent["display_name"] == "AI thinking"
    assert next(e for e in events if e.data is agent).envelope["message"] == "Running: AI thinking"
    assert events[0].data["user_id"] == "amy" and events[-1].type == "end"
    assert events[0].envelope["message"] == "Task started"


@pytest.mark.parametrize(
    ("method", "request_args", "error_type"),
    [
        ("GET", {"params": {"question": ""}}, "QUESTION_REQUIRED"),
        (
            "GET",
            {"params": {"question": "q", "user_id": "a", "thread_id": "b:1"}},
            "THREAD_OWNERSHIP_MISMATCH",
        ),
        ("POST", {"json": {"question": "x" * 2001}}, "QUESTION_TOO_LONG"),
        (
            "POST",
            {"content": b"{oops", "headers": {"Content-Type": "application/json"}},
            "INVALID_JSON",
        ),
    ],
)
async def test_invalid_requests_get_an_error_event_then_end_with_http_200(
    service, model, method, request_args, error_type
):
    events = await collect_stream(service.http, method, **request_args)
    assert [e.type for e in events] == ["error", "end"]
    error = events[0].envelope
    assert error["code"] == 400 and error["success"] is False
    assert error["data"]["error_type"] == error_type and error["message"] != "处理成功"
    assert model.seen == []


async def test_second_question_on_a_running_thread_gets_409_on_both_endpoints(service, model):
    model.replies = [answer("first"), answer("after")]
    gate, entered = asyncio.Event(), asyncio.Event()
    model.gates[0], model.entered[0] = gate, entered

    async with open_stream(service.http, json={"question": "slow", "thread_id": THREAD}) as (
        _,
        events,
    ):
        await entered.wait()
        busy_stream = await collect_stream(
            service.http, json={"question": "q", "thread_id": THREAD}
        )
        busy_sync = await service.http.post(
            "/api/v0/ask_react_agent", json={"question": "q", "thread_id": THREAD}
        )
        gate.set()
        assert [e.type async for e in events][-1] == "end"

    assert [e.type for e in busy_stream] == ["error", "end"]
    assert busy_stream[0].envelope["code"] == 409
    assert busy_stream[0].data["error_type"] == "THREAD_BUSY" and busy_stream[0].data["can_retry"]
    assert busy_sync.status_code == 409 and busy_sync.json()["data"]["error_type"] == "THREAD_BUSY"
    status, body = await service.ask(question="now", thread_id=THREAD)
    assert status == 200 and body["data"]["response"] == "after"


async def test_idle_stream_sends_heartbeat_comments_and_outlives_the_response_timeout(settings):
    model = ScriptedChatModel(replies=[answer("late")])
    gate = asyncio.Event()
    model.gates[0] = gate
    quick = settings.model_copy(update={"stream_heartbeat": 0.05})
    async with running_service(quick, model=model) as svc:
        svc.app.config["RESPONSE_TIMEOUT"] = 0.2  # would cut the stream if not lifted
        pings = 0
        lines = []
        async with svc.http.stream("POST", STREAM_PATH, json={"question": "q"}) as response:
            async for line in response.aiter_lines():
                lines.append(line)
                pings += line == ": ping"
                if pings == 8 and not gate.is_set():  # 8 heartbeats: well past 0.2 s
                    gate.set()
    assert pings >= 8
    assert any('"type":"completed"' in line for line in lines)
    assert '"type":"end"' in lines[-2]


SLOW_SQL_TIMEOUT = 600.0
"""The endless query's own timeout; a disconnect must stop it long before."""


async def test_client_disconnect_cancels_the_run_and_the_thread_stays_usable(service, model):
    model.replies = [answer("never sent"), answer("next one works")]
    entered = asyncio.Event()
    model.gates[0], model.entered[0] = asyncio.Event(), entered  # never released

    async with open_stream(service.http, json={"question": "q", "thread_id": THREAD}) as (
        _,
        events,
    ):
        assert (await anext(events)).type == "started"
        await entered.wait()
        run = agent_service_of(service.app).runner.active[THREAD]
    # Leaving the block closed the connection.
    with pytest.raises(asyncio.CancelledError):
        # Only the disconnect can end it (the model never answers); the bound turns a hang
        # into a failure and is no guess at how fast a cancellation is.
        await asyncio.wait_for(run.task, SLOW_SQL_TIMEOUT / 4)
    assert run.events[-1].error.error_type == "RUN_CANCELLED"

    model.gates.clear()
    model.replies[len(model.seen)] = answer("next one works")
    status, body = await service.ask(question="again", thread_id=THREAD)
    assert status == 200 and body["data"]["response"] == "next one works"


async def test_client_disconnect_stops_a_running_sql_query(settings):
    slow_sql = (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
    )
    model = ScriptedChatModel(
        replies=[call_tool("run_sql", sql=slow_sql), answer("after"), answer("x")]
    )
    patient = settings.model_copy(
        update={"sql_timeout": SLOW_SQL_TIMEOUT, "stream_resume_grace": 0.0}
    )
    async with running_service(patient, model=model) as svc:
        database = agent_service_of(svc.app).database
        async with open_stream(svc.http, json={"question": "q", "thread_id": THREAD}) as (
            _,
            events,
        ):
            async for event in events:
                if event.type == "progress" and event.data["node"] == "prepare_tool_input":
                    break
            assert await eventually(lambda: database.running_queries == 1)
            run = agent_service_of(svc.app).runner.active[THREAD]
        with pytest.raises(asyncio.CancelledError):
            # Only the disconnect can end it before the query's own (far longer) timeout.
            await asyncio.wait_for(run.task, SLOW_SQL_TIMEOUT / 4)
        assert await eventually(lambda: database.running_queries == 0)
        status, body = await svc.ask(question="next", thread_id=THREAD)
        assert status == 200 and body["data"]["response"] == "after"


async def test_reconnect_after_end_gets_204_and_never_asks_again(service, model):
    model.replies = [answer("once")]
    events = await collect_stream(service.http, "GET", params={"question": "q"})
    calls = len(model.seen)

    again = await service.http.get(
        STREAM_PATH, params={"question": "q"}, headers={"Last-Event-ID": events[-1].id}
    )
    unknown = await service.http.get(
        STREAM_PATH, params={"question": "q"}, headers={"Last-Event-ID": "0123abcd:7"}
    )
    assert again.status_code == 204 and unknown.status_code == 204
    assert len(model.seen) == calls


async def test_reconnect_during_a_run_gets_the_missed_events_then_the_rest(settings):
    model = ScriptedChatModel(replies=sql_script())
    gate, entered = asyncio.Event(), asyncio.Event()
    model.gates[1], model.entered[1] = gate, entered
    lenient = settings.model_copy(update={"stream_resume_grace": 30.0})
    async with running_service(lenient, model=model) as svc:
        async with open_stream(svc.http, json={"question": "q"}) as (_, events):
            first_two = [await anext(events), await anext(events)]
            await entered.wait()
        # The first connection is gone; the run waits for the client to come back.
        last_id = first_two[-1].id
        async with svc.http.stream(
            "GET", STREAM_PATH, headers={"Last-Event-ID": last_id, "Accept": "text/event-stream"}
        ) as response:
            assert response.status_code == 200
            gate.set()
            body = (await response.aread()).decode()
    ids = re.findall(r"^id: (\S+)$", body, flags=re.M)
    run_id, seq = last_id.split(":")
    assert ids[0] == f"{run_id}:{int(seq) + 1}"
    assert [int(i.split(":")[1]) for i in ids] == list(range(int(seq) + 1, int(seq) + 1 + len(ids)))
    assert '"type":"completed"' in body and '"type":"started"' not in body
    assert len(model.seen) == 2  # the question was not asked again


async def test_stream_without_an_llm_sends_a_503_error_event(settings):
    async with running_service(settings) as svc:
        events = await collect_stream(svc.http, json={"question": "q"})
    assert [e.type for e in events] == ["error", "end"]
    assert (
        events[0].envelope["code"] == 503 and events[0].data["error_type"] == "LLM_NOT_CONFIGURED"
    )
    assert events[0].data["can_retry"] is False  # a setting to change: asking again cannot help
