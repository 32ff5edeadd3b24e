"""POST /api/v0/react/runs/{run_id}/cancel in one process: who may cancel, and what stops."""

from __future__ import annotations

import asyncio

from tests.support.scripted_model import answer
from tests.support.sse import open_stream

THREAD = "wang1:20250131103000007"


def cancel_path(run_id: str) -> str:
    """Return the cancel endpoint of a run."""
    return f"/api/v0/react/runs/{run_id}/cancel"


async def test_cancel_by_its_user_stops_the_model_call_and_ends_the_stream(service, model):
    model.replies = [answer("never sent"), answer("next one works")]
    entered = asyncio.Event()
    model.gates[0], model.entered[0] = asyncio.Event(), entered  # never released
    async with open_stream(service.http, json={"question": "q", "thread_id": THREAD}) as (
        _,
        events,
    ):
        started = await anext(events)
        await entered.wait()
        run_id = started.id.partition(":")[0]
        run = service.app.extensions["agent"].runner.active[THREAD]
        cancelled = await service.http.post(cancel_path(run_id), json={"user_id": "wang1"})
        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["data"] == {
            "run_id": run_id,
            "thread_id": THREAD,
            "status": "cancelling",
        }
        rest = [event async for event in events]
    assert [e.type for e in rest][-2:] == ["error", "end"]
    assert rest[-2].data["error_type"] == "RUN_CANCELLED"
    assert run.task.cancelled()  # the model call was cancelled, not left to finish

    again = await service.http.post(cancel_path(run_id), params={"user_id": "wang1"})
    assert again.status_code == 200 and again.json()["data"]["status"] == "finished"
    model.gates.clear()
    model.replies[len(model.seen)] = answer("next one works")
    status, body = await service.ask(question="again", thread_id=THREAD)
    assert status == 200 and body["data"]["response"] == "next one works"


async def test_cancel_needs_the_runs_own_user(service, model):
    model.replies = [answer("done")]
    async with open_stream(service.http, json={"question": "q", "thread_id": THREAD}) as (
        _,
        events,
    ):
        run_id = (await anext(events)).id.partition(":")[0]
        _ = [event async for event in events]

    missing = await service.http.post(cancel_path(run_id))
    other = await service.http.post(cancel_path(run_id), json={"user_id": "li4"})
    unknown = await service.http.post(cancel_path("0123abcd"), json={"user_id": "wang1"})
    assert missing.status_code == 400
    assert missing.json()["data"]["error_type"] == "USER_ID_REQUIRED"
    for response in (other, unknown):
        assert response.status_code == 404
        assert response.json()["data"]["error_type"] == "RUN_NOT_FOUND"
        assert response.json()["success"] is False
