"""Two workers whose LISTEN sessions die mid-run: resumed streams and cancels carry on."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import httpx

from tests.app.scale_out.test_scale_out_streams import (
    RawEvent,
    raw_events,
    read_until,
    resume_headers,
    two_workers,
)
from tests.support.held_runs import HELD_ANSWER, ask_held_question, script_held_question
from tests.support.openai_stub import OpenAIStub, Reply
from tests.support.run_stores import RECONNECTED, terminate, wait_for_listeners
from tests.support.sse import STREAM_PATH
from tests.support.waiting import eventually


async def test_after_the_listeners_reconnect_a_follower_elsewhere_and_a_cancel_still_work(
    postgres_database, tmp_path
):
    held, never = threading.Event(), threading.Event()
    with OpenAIStub() as stub:
        async with AsyncExitStack() as stack:
            stack.callback(held.set)
            stack.callback(never.set)
            owner, other = await two_workers(stack, stub, postgres_database, tmp_path)
            http = await stack.enter_async_context(httpx.AsyncClient(timeout=60))
            listeners = await wait_for_listeners(postgres_database, 2, set())

            # Run 1, held at its second model call, followed from the other worker.
            script_held_question(stub, held)
            first = raw_events(
                http,
                f"{owner.base_url}{STREAM_PATH}",
                **ask_held_question(f"n1:{uuid.uuid4().hex[:12]}"),
            )
            seen = await read_until(first, '"node":"tools"')
            assert await eventually(lambda: len(stub.requests) == 2, 60)
            await first.aclose()
            run1 = seen[0].id.partition(":")[0]
            following = raw_events(
                http,
                f"{other.base_url}{STREAM_PATH}",
                method="GET",
                headers=resume_headers(seen[-1].id),
            )
            # Run 2, held at its first model call, on the owner too.
            stub.script(Reply(text="never sent", wait_for=never))
            second = raw_events(
                http,
                f"{owner.base_url}{STREAM_PATH}",
                json={"question": "q", "thread_id": "n2:20250131103000002"},
            )
            started = await read_until(second, '"node":"trim_messages"')
            assert await eventually(lambda: len(stub.requests) == 3, 60)
            run2 = started[0].id.partition(":")[0]

            # Both workers' LISTEN sessions die (a failover, a proxy's idle cut …).
            await terminate(postgres_database, listeners)
            await wait_for_listeners(postgres_database, 2, listeners)

            # A cancel asked on the other worker reaches the owner through its new LISTEN.
            cancelled = await http.post(
                f"{other.base_url}/api/v0/react/runs/{run2}/cancel", json={"user_id": "n2"}
            )
            assert cancelled.json()["data"]["status"] == "cancelling", cancelled.text
            tail = await _collect(second)
            assert "RUN_CANCELLED" in tail[-2].data and '"type":"end"' in tail[-1].data
            assert not never.is_set() and len(stub.requests) == 3  # it never answered

            # Run 1 goes on: the follower elsewhere gets every later event, as sent.
            held.set()
            async with asyncio.timeout(RECONNECTED):
                rest = await _collect(following)
            whole = await _collect(
                raw_events(
                    http,
                    f"{owner.base_url}{STREAM_PATH}",
                    method="GET",
                    headers=resume_headers(f"{run1}:0"),
                )
            )
    assert seen + rest == whole
    assert '"type":"completed"' in whole[-2].data and HELD_ANSWER in whole[-2].data


async def _collect(events: AsyncIterator[RawEvent]) -> list[RawEvent]:
    return [event async for event in events]
