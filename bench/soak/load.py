"""The soak's load: clients looping on streamed questions until the deadline, with samples."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from dataclasses import asdict
from typing import Any

import httpx

from bench.soak.process_samples import ProcessSample, sample_process, wait_until_fds_steady
from bench.soak.streams import QUESTION, LoadState, StreamRecord, ask_streamed
from bench.soak.summary import summarize
from tests.support.service_process import ServiceProcess

WARMUP_QUESTIONS = 20
"""Questions asked (10 at a time) before the baseline is sampled, so lazy start-up costs
(imports, pools, caches) do not count as growth."""


async def client_loop(
    index: int,
    http: httpx.AsyncClient,
    state: LoadState,
    deadline: float,
    args: argparse.Namespace,
) -> None:
    """Ask questions until the deadline: a new thread, then follow-ups on it."""
    await asyncio.sleep(index * args.ramp / max(1, args.concurrency))  # stagger the start
    user_id = f"soak{index}"
    thread_id: str | None = None
    asked_on_thread = 0
    while time.monotonic() < deadline:
        body: dict[str, Any] = {"question": QUESTION, "user_id": user_id}
        if thread_id is not None:
            body["thread_id"] = thread_id
        state.active += 1
        state.started += 1
        try:
            record, new_thread = await ask_streamed(http, body, args.stream_timeout)
        finally:
            state.active -= 1
        state.records.append(record)
        asked_on_thread += 1
        if record.outcome != "completed" or asked_on_thread >= args.questions_per_thread:
            thread_id, asked_on_thread = None, 0
        else:
            thread_id = thread_id or new_thread


async def sample_during(
    pid: int, state: LoadState, start: float, every: float, samples: list[ProcessSample]
) -> None:
    """Sample the service every `every` seconds until cancelled."""
    while True:
        samples.append(sample_process(pid, time.monotonic() - start, state.active))
        await asyncio.sleep(every)


def new_client(concurrency: int, timeout: float) -> httpx.AsyncClient:
    """Return an HTTP client with a connection for every concurrent stream."""
    limits = httpx.Limits(max_connections=concurrency + 10, max_keepalive_connections=concurrency)
    return httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(timeout))


async def warm_up(base_url: str, timeout: float) -> list[StreamRecord]:
    """Ask WARMUP_QUESTIONS questions, 10 at a time, on fresh threads."""
    async with new_client(10, timeout) as http:
        http.base_url = httpx.URL(base_url)
        records: list[StreamRecord] = []
        for batch in range(WARMUP_QUESTIONS // 10):
            results = await asyncio.gather(
                *(
                    ask_streamed(
                        http, {"question": QUESTION, "user_id": f"warm{batch}x{n}"}, timeout
                    )
                    for n in range(10)
                )
            )
            records.extend(record for record, _ in results)
    return records


async def soak(service: ServiceProcess, args: argparse.Namespace) -> dict[str, Any]:
    """Run the load against a ready service and return the measurements."""
    pid = service.process.pid
    idle = sample_process(pid, -1)
    warmup = await warm_up(service.base_url, args.stream_timeout)
    probes = [await settle_and_probe(service, args)]
    baseline = sample_process(pid, 0)

    state = LoadState()
    timeline: list[ProcessSample] = []
    start = time.monotonic()
    deadline = start + args.duration
    sampler = asyncio.create_task(sample_during(pid, state, start, args.sample_every, timeline))
    try:
        async with new_client(args.concurrency, args.stream_timeout) as http:
            http.base_url = httpx.URL(service.base_url)
            await asyncio.gather(
                *(client_loop(i, http, state, deadline, args) for i in range(args.concurrency))
            )
        load_seconds = time.monotonic() - start
    finally:
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
    probes.append(await settle_and_probe(service, args))
    after = sample_process(pid, time.monotonic() - start)
    results = summarize(args, state, warmup, idle, baseline, timeline, after, load_seconds)
    results["probes"] = [asdict(probe) for probe in probes]
    return results


async def settle_and_probe(service: ServiceProcess, args: argparse.Namespace) -> StreamRecord:
    """Let connections settle, then ask one question on a connection closed after it.

    Idle keep-alive connections to the LLM are closed by its client only when it next
    sends a request (once they are older than its 5 s expiry), so the probe brings the
    pool to the same state before and after the load; it also shows the service still
    answers. Its own connection is closed at once (`Connection: close`), not after
    Hypercorn's 5 s keep-alive.
    """
    pid = service.process.pid
    await wait_until_fds_steady(pid, args.settle)
    headers = {"Connection": "close"}
    async with httpx.AsyncClient(base_url=service.base_url, headers=headers) as http:
        record, _ = await ask_streamed(http, {"question": QUESTION, "user_id": "probe"}, 60)
    await wait_until_fds_steady(pid, args.settle)
    return record
