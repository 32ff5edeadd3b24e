"""The slow-model level: thousands of streams open at once on our service, 2 s per model call.

`python -m bench --slow-streams 2000 --slow-latency-ms 2000` (`--slow-only` for this level
alone). A stub of its own answers every model call after `--slow-latency-ms`, so each
question holds its stream open for three such calls; all `--slow-streams` questions are
sent at once (each by a user of its own, on a new thread) and read to `end`.

Measured: how many completed, time to `started` and to the end, the server's peak RSS
(whole process tree, every 50 ms) over its RSS before the level divided by the most
streams open at once, and the server's file descriptors (whole tree) before, during and
after the level: after, the client has closed its connections and the count has been
steady for longer than Hypercorn's keep-alive timeout.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any
from urllib.parse import urlsplit

from bench.drivers.http_client import new_client, sharded_question
from bench.drivers.question import OpenStreams
from bench.drivers.service import service_stream
from bench.environment import log
from bench.measure.fds import (
    FD_HEADROOM,
    fd_breakdown,
    raise_open_files_limit,
    steady_fds,
    tree_fds,
)
from bench.measure.measured import quiet_moment
from bench.measure.sampler import Sampler, tree_rss_mb
from bench.measure.stats import percentile, summarize
from bench.peers.launch import (
    server_description,
    start_service,
    start_stack_floor,
    start_stub_process,
)
from bench.peers.scale_out import start_service_workers
from bench.processes import Child, Processes, wait_for_http
from bench.report.labels import STACK_FLOOR
from bench.state import BenchState

FDS_FLAT_TOLERANCE = 16
"""Descriptors the server may hold after the level beyond its count before, still "flat":
pooled keep-alive connections to the model and the database may differ by a few."""
WARMUP_STREAMS = 4
FD_SAMPLE_SECONDS = 0.5
PROGRESS_EVERY = 60
"""FD samples between two progress lines of the level (30 s)."""
FD_SERIES_POINTS = 120
"""Most (seconds, FDs, open streams) points kept in results.json."""


def run_slow_level(
    state: BenchState, procs: Processes, sampler: Sampler, side: str | None = None
) -> dict[str, Any]:
    """Start a slow stub and a side (by default the chosen side of ours), run the level.

    `side` may also be the stack's floor, which holds each stream for the model calls'
    time without calling the stub.
    """
    args = state.args
    side = side or args.slow_side
    streams = args.slow_streams
    # The client holds one socket per stream, the server one per stream and one per model
    # call in flight; children started from here on inherit the limit.
    nofile = raise_open_files_limit(2 * streams + FD_HEADROOM)
    stub, stub_url = start_stub_process(state, procs, "stub_slow", args.slow_latency_ms)
    sampler.watch("stub_slow", stub.pid)
    log(
        f"slow-model level: {streams} streams at once on {side}, "
        f"{args.slow_latency_ms} ms per model call (open files limit {nofile})"
    )
    child: Child | None = None
    name = f"slow_{side}"
    try:
        child, base = _start_side(state, procs, side, name, stub_url)
        sampler.watch(name, child.pid)
        result = asyncio.run(_level(state, child.pid, base, stub_url, sampler, name))
    except Exception as exc:
        log(f"slow-model level failed: {type(exc).__name__}: {exc}")
        result = {"error": f"{type(exc).__name__}: {exc}"[-2000:]}
    finally:
        sampler.unwatch(name)
        sampler.unwatch("stub_slow")
        if child is not None:
            procs.stop(child)
        procs.stop(stub)
    return {
        "side": side,
        "server": server_description(side, state),
        "runs_max_active": "auto"
        if args.slow_runs_max_active is None
        else args.slow_runs_max_active,
        "streams": streams,
        "latency_ms": args.slow_latency_ms,
        "model_calls_per_question": args.calls,
        "open_files_limit": nofile,
        **result,
    }


def _start_side(
    state: BenchState, procs: Processes, side: str, name: str, stub_url: str
) -> tuple[Child, str]:
    args = state.args
    if side == STACK_FLOOR:
        hold = args.calls * args.slow_latency_ms
        child, base, ready = start_stack_floor(state, procs, hold_ms=hold, name=name)
        wait_for_http(child, ready, 120)
        return child, base
    extra = {"OPENAI_BASE_URL": stub_url}
    if args.slow_runs_max_active is not None:  # else the default (auto)
        extra["RUNS_MAX_ACTIVE"] = str(args.slow_runs_max_active)
        extra["RUNS_MAX_QUEUED"] = str(max(1000, args.slow_streams))
    if side == "service_stream":
        child, base, ready = start_service(state, procs, name=name, extra_env=extra)
    else:
        workers = int(side.rsplit("_", 1)[1])
        start = start_service_workers(workers, name=name, extra_env=extra)
        child, base, ready = start(state, procs)
    wait_for_http(child, ready, 120)
    return child, base


async def _level(
    state: BenchState, pid: int, base: str, stub_url: str, sampler: Sampler, name: str
) -> dict[str, Any]:
    args = state.args
    total = args.slow_streams
    failed = await _ask_apart(base, WARMUP_STREAMS)
    if failed:
        return {"error": f"warm-up question failed: {failed}"}
    fds_before, _ = await steady_fds(pid, 30)
    ports = (urlsplit(base).port or 80, urlsplit(stub_url).port or 80)
    kinds_before = fd_breakdown(pid, *ports)
    rss_before = tree_rss_mb(pid)
    waited, _ = await quiet_moment(state.quiet)
    open_streams = OpenStreams()
    series: list[tuple[float, int, int]] = []
    asker = functools.partial(service_stream, base_url=base, streams=open_streams)
    async with sharded_question(asker, total, args.slow_deadline) as ask:
        loop = asyncio.get_running_loop()
        sampler.begin()
        t0 = loop.time()
        watcher = asyncio.create_task(_watch_fds(pid, open_streams, t0, series))
        tasks = [asyncio.create_task(ask(i, i)) for i in range(total)]
        done, pending = await asyncio.wait(tasks, timeout=args.slow_deadline)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        wall = loop.time() - t0
        window = sampler.end()
        watcher.cancel()
    _, settled_s = await steady_fds(pid, 60)
    kinds_idle = fd_breakdown(pid, *ports)
    # Idle keep-alive connections to the model expire, but the server's HTTP client closes
    # them only when it next sends a request: one more question, then count again.
    await _ask_apart(base, 1)
    fds_after, _ = await steady_fds(pid, 60)
    kinds_after = fd_breakdown(pid, *ports)
    samples = [task.result() for task in done]
    peak_rss = window.peak_rss_mb.get(name)
    grown_kb = None if peak_rss is None else (peak_rss - rss_before) * 1024
    per_stream = round(grown_kb / open_streams.peak, 1) if grown_kb and open_streams.peak else None
    fds_peak = max((fds for _, fds, _ in series), default=None)
    started = [s.started for s in samples if s.started is not None]
    return {
        **summarize(samples, wall, len(pending)),
        # `started` comes before the run's outcome: over every stream that got it.
        "started_all_count": len(started),
        "started_all_p50_ms": _ms(percentile(started, 50)),
        "started_all_p99_ms": _ms(percentile(started, 99)),
        "peak_open_streams": open_streams.peak,
        "rss_before_mb": rss_before,
        "server_peak_rss_mb": peak_rss,
        "rss_per_open_stream_kb": per_stream,
        "fds_before": fds_before,
        "fds_peak_during": fds_peak,
        "fds_after": fds_after,
        "fds_after_settled_s": settled_s,
        "fds_by_kind": {"before": kinds_before, "idle": kinds_idle, "after": kinds_after},
        "fds_flat": fds_after - fds_before <= FDS_FLAT_TOLERANCE,
        "fds_flat_tolerance": FDS_FLAT_TOLERANCE,
        "fds_series": _thin(series),
        "server_cpu_pct": window.cpu_pct.get(name),
        "stub_cpu_pct": window.cpu_pct.get("stub_slow"),
        "client_cpu_pct": window.cpu_pct.get("client"),
        "foreign_cpu_pct": window.foreign_cpu_pct,
        "listen_queue_overflows": window.listen_overflows,
        "waited_for_quiet_s": waited,
    }


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


async def _ask_apart(base: str, count: int) -> str | None:
    """Ask `count` questions at once on a client of their own; return the first error."""
    async with new_client(count) as client:
        ask = service_stream(client, base)
        samples = await asyncio.gather(*(ask(i, i) for i in range(count)))
    return next((s.error or "failed" for s in samples if not s.ok), None)


async def _watch_fds(
    pid: int, streams: OpenStreams, t0: float, series: list[tuple[float, int, int]]
) -> None:
    """Append (seconds, the tree's FDs, open streams) every FD_SAMPLE_SECONDS until cancelled."""
    loop = asyncio.get_running_loop()
    while True:
        fds = await asyncio.to_thread(tree_fds, pid)
        series.append((round(loop.time() - t0, 1), fds, streams.now))
        if len(series) % PROGRESS_EVERY == 0:
            log(f"  {series[-1][0]:.0f} s: {streams.now} streams open, server FDs {fds}")
        await asyncio.sleep(FD_SAMPLE_SECONDS)


def _thin(series: list[tuple[float, int, int]]) -> list[list[float]]:
    """Keep at most FD_SERIES_POINTS points, evenly spread, the peak always among them."""
    if len(series) <= FD_SERIES_POINTS:
        return [list(point) for point in series]
    step = len(series) / FD_SERIES_POINTS
    kept = {round(i * step) for i in range(FD_SERIES_POINTS)}
    kept.add(max(range(len(series)), key=lambda i: series[i][1]))
    return [list(series[i]) for i in sorted(kept) if i < len(series)]
