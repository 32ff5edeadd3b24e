"""Admission control: RUNS_MAX_ACTIVE runs at once, the rest queued in order, then 503."""

from __future__ import annotations

import asyncio

from tests.support.live_server import running_service
from tests.support.scripted_model import ScriptedChatModel, answer
from tests.support.sse import open_stream


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
