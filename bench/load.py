"""The load generator: one question per call, closed-loop concurrency levels, statistics.

Every question is a new conversation asking the same thing; the stub LLM answers it with
the same tool calls and text on every side. A `Sample` records when the first event and
the end arrived and whether the run really completed (a `completed` event with an answer
and its SQL, then `end`; for LangGraph's server, the `format_final_response` update).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

QUESTION = "每个地区的销售额是多少"
STREAM_PATH = "/api/v0/ask_react_agent_stream"
SYNC_PATH = "/api/v0/ask_react_agent"
REQUEST_TIMEOUT = 180.0
"""Seconds one question may take before the client gives up on it (counted as failed)."""


@dataclass
class Sample:
    """One question as the client saw it; times in seconds from sending the request."""

    ok: bool
    total: float
    started: float | None = None
    """Time to the first event: `started` (ours, Flask), `metadata` (LangGraph's server)."""
    first_node: float | None = None
    """Time to the first node's update (`trim_messages`), comparable across all sides."""
    error: str | None = None


Question = Callable[[int, int], Awaitable[Sample]]
"""`(question index, worker index) -> Sample`."""


def new_client(concurrency: int) -> httpx.AsyncClient:
    """Return an HTTP client with room for every concurrent stream (and keep-alive)."""
    limits = httpx.Limits(
        max_connections=concurrency + 16, max_keepalive_connections=concurrency + 16
    )
    timeout = httpx.Timeout(REQUEST_TIMEOUT, connect=60.0)
    # trust_env=False: no proxy from the environment may sit between client and server.
    return httpx.AsyncClient(limits=limits, timeout=timeout, trust_env=False)


def _failed(t0: float, error: BaseException | str) -> Sample:
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    return Sample(ok=False, total=time.perf_counter() - t0, error=text[:200])


def service_stream(client: httpx.AsyncClient, base_url: str) -> Question:
    """Return a streamed question to our SSE endpoint (also Flask's: the same frames)."""
    url = base_url + STREAM_PATH

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
                    return _failed(t0, f"HTTP {response.status_code}")
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
        except (httpx.HTTPError, OSError, ValueError) as exc:
            return _failed(t0, exc)
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
            return _failed(t0, exc)
        total = time.perf_counter() - t0
        data = payload.get("data") or {}
        ok = response.status_code == 200 and payload.get("success") is True
        ok = ok and bool(data.get("response")) and bool(data.get("sql"))
        error = None if ok else f"HTTP {response.status_code}: {str(payload)[:150]}"
        return Sample(ok, total, None, None, error)

    return ask


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
                    return _failed(t0, f"HTTP {response.status_code}: {response.text[:150]}")
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
            return _failed(t0, exc)
        total = time.perf_counter() - t0
        ok = completed and error is None
        if not ok:
            error = error or "no format_final_response update"
        return Sample(ok, total, started, first_node, error)

    return ask


async def run_level(
    ask: Question, concurrency: int, total: int, deadline: float
) -> tuple[list[Sample], float, int]:
    """Run `total` questions with `concurrency` in flight (closed loop).

    Returns the samples, the wall time, and how many questions were never finished
    because the level ran past `deadline` seconds (those count as failed).
    """
    samples: list[Sample] = []
    counter = itertools.count()

    async def worker(index: int) -> None:
        while next(counter) < total:
            samples.append(await ask(len(samples), index))

    t0 = time.perf_counter()
    tasks = [asyncio.create_task(worker(w)) for w in range(concurrency)]
    _, pending = await asyncio.wait(tasks, timeout=deadline)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    wall = time.perf_counter() - t0
    return samples, wall, total - len(samples)


def percentile(values: list[float], q: float) -> float | None:
    """Return the q-th percentile (0-100), nearest rank; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


def summarize(samples: list[Sample], wall: float, not_finished: int = 0) -> dict[str, Any]:
    """Throughput, latency percentiles (ms) and completion of one level or series."""
    good = [s for s in samples if s.ok]
    totals = [s.total for s in good]
    started = [s.started for s in good if s.started is not None]
    first = [s.first_node for s in good if s.first_node is not None]
    errors = Counter(s.error for s in samples if not s.ok)
    if not_finished:
        errors["not finished within the level's deadline"] += not_finished
    questions = len(samples) + not_finished
    return {
        "questions": questions,
        "completed": len(good),
        "failed": questions - len(good),
        "all_completed": len(good) == questions,
        "errors": dict(errors.most_common(5)),
        "wall_s": round(wall, 3),
        "throughput_qps": round(len(good) / wall, 2) if wall > 0 else None,
        "started_p50_ms": _ms(percentile(started, 50)),
        "started_p99_ms": _ms(percentile(started, 99)),
        "first_node_p50_ms": _ms(percentile(first, 50)),
        "first_node_p99_ms": _ms(percentile(first, 99)),
        "total_p50_ms": _ms(percentile(totals, 50)),
        "total_p99_ms": _ms(percentile(totals, 99)),
        "total_mean_ms": _ms(sum(totals) / len(totals)) if totals else None,
        "total_min_ms": _ms(min(totals)) if totals else None,
        "total_max_ms": _ms(max(totals)) if totals else None,
    }
