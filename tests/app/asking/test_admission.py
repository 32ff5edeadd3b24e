"""Admission control: RUNS_MAX_ACTIVE runs at once, the rest queued in order, then 503."""

from __future__ import annotations

import asyncio

from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer
from tests.support.sse import open_stream
from tests.support.waiting import eventually

ASK = "/api/v0/ask_react_agent"


async def test_runs_beyond_the_limit_wait_in_order_and_see_their_place_move(settings):
    model = ScriptedChatModel(replies=[answer("A"), answer("B"), answer("C")])
    model.gates[0], model.entered[0] = asyncio.Event(), asyncio.Event()
    limited = settings.model_copy(
        update={"runs_max_active": 1, "runs_max_queued": 2, "stream_resume_grace": 30.0}
    )
    async with running_service(limited, model=model) as svc:
        try:
            async with (
                open_stream(svc.http, json={"question": "a", "thread_id": "u:1"}) as (_, a),
                open_stream(svc.http, json={"question": "b", "thread_id": "u:2"}) as (_, b),
                open_stream(svc.http, json={"question": "c", "thread_id": "u:3"}) as (_, c),
            ):
                assert (await anext(a)).type == "started"
                await model.entered[0].wait()
                b_shown = [await anext(b), await anext(b)]
                c_shown = [await anext(c), await anext(c)]
                for shown, place in ((b_shown, 1), (c_shown, 2)):
                    assert [e.type for e in shown] == ["started", "progress"]
                    assert shown[1].data["node"] == "__queued__"
                    assert shown[1].data["display_name"] == "排队中"
                    assert shown[1].data["position"] == place

                full = await svc.http.post(
                    "/api/v0/ask_react_agent", json={"question": "d", "thread_id": "u:4"}
                )
                assert full.status_code == 503
                assert full.json()["data"]["error_type"] == "QUEUE_FULL"
                assert full.json()["data"]["can_retry"] is True
                assert int(full.headers["Retry-After"]) > 0

                model.gates[0].set()
                c_next = await anext(c)  # B took the slot: C is next in line now
                assert c_next.data["node"] == "__queued__" and c_next.data["position"] == 1
                answers = []
                for events in (a, b, c):
                    rest = [event async for event in events]
                    assert [e.type for e in rest][-2:] == ["completed", "end"]
                    answers.append(rest[-2].data["response"])
                assert answers == ["A", "B", "C"]  # in order of arrival
        finally:
            model.gates[0].set()


async def test_a_sync_question_beyond_the_limit_waits_its_turn_among_streams_then_answers(
    settings,
):
    model = ScriptedChatModel(replies=[answer("A"), answer("B"), answer("C")])
    model.gates[0], model.entered[0] = asyncio.Event(), asyncio.Event()
    limited = settings.model_copy(
        update={"runs_max_active": 1, "runs_max_queued": 2, "stream_resume_grace": 30.0}
    )
    async with running_service(limited, model=model) as svc:
        admission = svc.app.extensions["agent"].runner.admission
        try:
            async with open_stream(svc.http, json={"question": "a", "thread_id": "u:1"}) as (_, a):
                assert (await anext(a)).type == "started"
                await model.entered[0].wait()
                # B is a sync call: it takes the first place in the queue and waits there.
                b = asyncio.create_task(
                    svc.http.post(ASK, json={"question": "b", "thread_id": "u:2"}, timeout=60)
                )
                assert await eventually(lambda: len(admission.queue) == 1, 30)
                async with open_stream(svc.http, json={"question": "c", "thread_id": "u:3"}) as (
                    _,
                    c,
                ):
                    c_shown = [await anext(c), await anext(c)]
                    assert c_shown[1].data["node"] == "__queued__"
                    assert c_shown[1].data["position"] == 2  # behind the sync call
                    assert not b.done()  # no slot: A still holds the only one

                    # Queue full (B and C wait): both endpoints refuse with Retry-After.
                    await _check_queue_full_on_both_endpoints(svc)

                    model.gates[0].set()
                    c_next = await anext(c)  # B took the slot: C is next now
                    assert c_next.data["node"] == "__queued__" and c_next.data["position"] == 1
                    answered = await b
                    assert answered.status_code == 200, answered.text
                    assert answered.json()["data"]["response"] == "B"  # the second model call
                    rest = [event async for event in c]
                    assert [e.type for e in rest][-2:] == ["completed", "end"]
                    assert rest[-2].data["response"] == "C"
                a_rest = [event async for event in a]
                assert a_rest[-2].data["response"] == "A"
            assert len(model.seen) == 3
            assert admission.active == 0 and not admission.queue
        finally:
            model.gates[0].set()


async def _check_queue_full_on_both_endpoints(svc) -> None:
    """Check the sync call gets a 503 envelope, the stream an error event, both Retry-After."""
    refused = await svc.http.post(ASK, json={"question": "d", "thread_id": "u:4"})
    assert refused.status_code == 503
    body = refused.json()
    assert body["success"] is False and body["code"] == 503
    assert body["data"]["error_type"] == "QUEUE_FULL" and body["data"]["can_retry"] is True
    assert int(refused.headers["Retry-After"]) > 0

    async with open_stream(svc.http, json={"question": "e", "thread_id": "u:5"}) as (
        response,
        events,
    ):
        assert response.status_code == 200  # errors before a run are events, as documented
        assert int(response.headers["Retry-After"]) > 0
        shown = [event async for event in events]
    assert [e.type for e in shown] == ["error", "end"]
    assert shown[0].envelope["code"] == 503
    assert shown[0].data["error_type"] == "QUEUE_FULL" and shown[0].data["can_retry"] is True


async def test_a_waiting_stream_whose_client_leaves_gives_up_its_place_and_is_never_asked(
    settings,
):
    model = ScriptedChatModel(replies=[answer("A"), answer("C")])
    model.gates[0], model.entered[0] = asyncio.Event(), asyncio.Event()
    limited = settings.model_copy(
        update={"runs_max_active": 1, "runs_max_queued": 2, "stream_resume_grace": 0.0}
    )
    async with running_service(limited, model=model) as svc:
        admission = svc.app.extensions["agent"].runner.admission
        try:
            async with open_stream(svc.http, json={"question": "a", "thread_id": "u:1"}) as (_, a):
                assert (await anext(a)).type == "started"
                await model.entered[0].wait()
                async with open_stream(svc.http, json={"question": "b", "thread_id": "u:2"}) as (
                    _,
                    b,
                ):
                    assert (await anext(b)).type == "started"
                    assert (await anext(b)).data["position"] == 1
                    async with open_stream(
                        svc.http, json={"question": "c", "thread_id": "u:3"}
                    ) as (_, c):
                        assert [(await anext(c)).type, (await anext(c)).data["position"]] == [
                            "started",
                            2,
                        ]
                        await b.aclose()  # B's client goes, so does B (no grace)
                        moved = await anext(c)
                        assert moved.data["node"] == "__queued__" and moved.data["position"] == 1
                        assert len(admission.queue) == 1
                        model.gates[0].set()
                        rest = [event async for event in c]
                    assert [e.type for e in rest][-2:] == ["completed", "end"]
                    assert rest[-2].data["response"] == "C"
                assert [event async for event in a][-2].data["response"] == "A"
            assert len(model.seen) == 2  # B was never asked
            assert admission.active == 0 and not admission.queue
            model.replies.append(answer("B, later"))
            status, body = await svc.ask(question="b", thread_id="u:2")  # its thread is free
            assert status == 200 and body["data"]["response"] == "B, later"
        finally:
            model.gates[0].set()
