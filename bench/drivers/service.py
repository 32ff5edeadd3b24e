"""Drivers of our service's endpoints: the SSE stream (also Flask's: the same frames) and sync.

A question counts as completed only if its stream ended properly: a `completed` event with
an answer and its SQL, then `end`; for the sync endpoint `success: true` with both.
"""

from __future__ import annotations

import json
import time

import httpx

from bench.drivers.question import QUESTION, OpenStreams, Question, Sample, failed_sample

STREAM_PATH = "/api/v0/ask_react_agent_stream"
SYNC_PATH = "/api/v0/ask_react_agent"


def service_stream(
    client: httpx.AsyncClient, base_url: str, streams: OpenStreams | None = None
) -> Question:
    """Return a streamed question to our SSE endpoint (also Flask's: the same frames).

    With `streams`, each question counts itself open from its response's headers to the
    end of its body.
    """
    url = base_url + STREAM_PATH
    streams = streams or OpenStreams()

    async def ask(index: int, worker: int) -> Sample:
        body = {"question": QUESTION, "user_id": f"bench{worker}"}
        t0 = time.perf_counter()
        started = first_node = None
        completed = ended = False
        error = None
        try:
            async with client.stream("POST", url, json=body) as response:
                if response.status_code != 200:
                    await response.aread()
                    return failed_sample(t0, f"HTTP {response.status_code}")
                streams.opened()
                try:
                    async for line in response.aiter_lines():
                        if not line.startswith("data:"):
                            continue
                        if '"type":"started"' in line and started is None:
                            started = time.perf_counter() - t0
                        elif '"type":"progress"' in line and first_node is None:
                            if '"node":"trim_messages"' in line:
                                first_node = time.perf_counter() - t0
                        elif '"type":"completed"' in line:
                            data = json.loads(line[5:])["data"]
                            completed = bool(data.get("response")) and bool(data.get("sql"))
                            if not completed:
                                error = "completed without an answer or SQL"
                        elif '"type":"error"' in line:
                            data = json.loads(line[5:])["data"]
                            error = f"{data.get('error_type')}: {data.get('error')}"
                        elif '"type":"end"' in line:
                            ended = True
                finally:
                    streams.closed()
        except (httpx.HTTPError, OSError, ValueError) as exc:
            return failed_sample(t0, exc)
        total = time.perf_counter() - t0
        if not (completed and ended):
            error = error or ("no end event" if completed else "no completed event")
        return Sample(completed and ended, total, started, first_node, error)

    return ask


def service_sync(client: httpx.AsyncClient, base_url: str) -> Question:
    """Return a question to our legacy synchronous JSON endpoint."""
    url = base_url + SYNC_PATH

    async def ask(index: int, worker: int) -> Sample:
        body = {"question": QUESTION, "user_id": f"bench{worker}"}
        t0 = time.perf_counter()
        try:
            response = await client.post(url, json=body)
            payload = response.json()
        except (httpx.HTTPError, OSError, ValueError) as exc:
            return failed_sample(t0, exc)
        total = time.perf_counter() - t0
        data = payload.get("data") or {}
        ok = response.status_code == 200 and payload.get("success") is True
        ok = ok and bool(data.get("response")) and bool(data.get("sql"))
        error = None if ok else f"HTTP {response.status_code}: {str(payload)[:150]}"
        return Sample(ok, total, None, None, error)

    return ask
