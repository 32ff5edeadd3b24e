"""Driver of LangGraph's own server (`langgraph dev`): one `runs/stream` request per question."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import httpx

from bench.drivers.question import Question, Sample, failed_sample


def langgraph_stream(
    client: httpx.AsyncClient, base_url: str, assistant_id: str, graph_input: dict[str, Any]
) -> Question:
    """`POST /threads/{id}/runs/stream` on LangGraph's server, stream_mode=updates.

    The thread is created by the same request (`if_not_exists: create`), as our endpoint
    starts a new conversation in the same request.
    """

    async def ask(index: int, worker: int) -> Sample:
        url = f"{base_url}/threads/{uuid.uuid4()}/runs/stream"
        body = {
            "assistant_id": assistant_id,
            "input": graph_input,
            "stream_mode": "updates",
            "if_not_exists": "create",
            "config": {"recursion_limit": 40},
        }
        t0 = time.perf_counter()
        started = first_node = None
        completed = False
        error = None
        event = ""
        try:
            async with client.stream("POST", url, json=body) as response:
                if response.status_code != 200:
                    await response.aread()
                    return failed_sample(t0, f"HTTP {response.status_code}: {response.text[:150]}")
                async for line in response.aiter_lines():
                    if line.startswith("event:"):
                        event = line[6:].strip()
                        continue
                    if not line.startswith("data:"):
                        continue
                    if started is None:
                        started = time.perf_counter() - t0
                    if event == "updates":
                        if first_node is None and line.startswith('data: {"trim_messages"'):
                            first_node = time.perf_counter() - t0
                        if line.startswith('data: {"format_final_response"'):
                            data = json.loads(line[5:])["format_final_response"]
                            completed = bool(data.get("final_answer"))
                    elif event == "error":
                        error = line[5:].strip()[:200]
        except (httpx.HTTPError, OSError, ValueError) as exc:
            return failed_sample(t0, exc)
        total = time.perf_counter() - t0
        ok = completed and error is None
        if not ok:
            error = error or "no format_final_response update"
        return Sample(ok, total, started, first_node, error)

    return ask
