"""Soak test: many concurrent streamed questions for minutes; memory and FDs must stay flat.

Usage::

    python -m bench.soak                                 # 200 streams for 300 s, 50 ms model
    python -m bench.soak --duration 20                   # the short form CI runs
    python -m bench.soak --concurrency 50 --duration 60 --latency-ms 20 --out /tmp/soak.json

It starts the stub LLM (`python -m tests.support.openai_stub`, its default policy: a
`run_sql` call with a sales-per-region query, then an answer quoting the rows, each after
`--latency-ms`) and the service (`python -m app`, SQLite checkpointer in a temporary
directory, LOG_LEVEL=WARNING) as subprocesses on 127.0.0.1, with the helpers of
`tests/support/service_process.py`. Then `--concurrency` clients each loop until
`--duration` has passed: ask a streamed question (a new thread, then the same thread for
`--questions-per-thread` questions in all) and read it to `end`. Nothing leaves 127.0.0.1
and every loop is bounded by a deadline.

Every stream is classified by how it ended:

- `completed`: a `completed` event, then `end`;
- `error:<ERROR_TYPE>`: a clear `error` event (code >= 400, an error_type, can_retry),
  then `end`; counted, but not a failure;
- `broken:<reason>`: anything else (no `end`, a reset, a non-200 status, longer than
  `--stream-timeout`): a failure.

The service's RSS, open file descriptors (/proc/<pid>/fd) and threads are sampled when it
is idle after start-up, after a warm-up (the baseline), every `--sample-every` seconds
during the load, and after it, once FDs are back at the baseline or `--settle` seconds
have passed, each time followed by one probe question on a fresh connection (which
also prunes the LLM client's expired keep-alive connections, so the pool is alike in both
samples). Finished runs stay resumable for two minutes (app/stream_runs.py), so RSS
right after a load includes them; a leak shows as growth that does not level off.

The report is a table on stdout and JSON at `--out` (default bench/soak_results.json):
streams started, completed, errored (by error_type) and broken (by reason), latency
p50/p90/p99/max, throughput, RSS/FDs/threads before, at peak and after, and the sampled
timeline. The exit status is 1 if any stream broke, nothing completed, a probe failed,
the service died, RSS after exceeds `--max-rss-growth` times the baseline (3: it
includes the retained runs, ~35-50 KB each, 80-170 MB at 20-30 questions/s), the median
RSS of the last quarter exceeds that of the third by more than `--max-rss-drift` (5%, for
loads of at least 240 s), or FDs after exceed the baseline by more than `--fd-slack`
(0); 0 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
from httpx_sse import aconnect_sse

from app.stream_runs import FINISHED_RUN_TTL
from tests.support.service_process import (
    ServiceProcess,
    spawn_service,
    start_stub_llm,
    stop_process,
    wait_until_ready,
)

STREAM_PATH = "/api/v0/ask_react_agent_stream"
QUESTION = "每个地区的销售额是多少"
DEFAULT_OUT = Path(__file__).resolve().parent / "soak_results.json"
WARMUP_QUESTIONS = 20
"""Questions asked (10 at a time) before the baseline is sampled, so lazy start-up costs
(imports, pools, caches) do not count as growth."""


@dataclass
class StreamRecord:
    """How one streamed question ended, and how long it took (seconds)."""

    outcome: str
    latency: float
    first_event: float | None = None
    """Seconds to the first event (`started`): how soon the service took the question."""


@dataclass
class ProcessSample:
    """The service process at one moment."""

    t: float
    """Seconds since the load started (negative: before it)."""
    rss_mb: float
    fds: int
    sockets: int
    threads: int
    active_streams: int = 0


@dataclass
class LoadState:
    """What the clients share: their records and how many streams are open now."""

    records: list[StreamRecord] = field(default_factory=list)
    active: int = 0
    started: int = 0


def sample_process(pid: int, t: float, active: int = 0) -> ProcessSample:
    """Read RSS and threads from /proc/<pid>/status and the FDs from /proc/<pid>/fd."""
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    rss_kb = int(fields["VmRSS"].split()[0])
    targets = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):  # closed between listing and reading
            targets.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
    sockets = sum(target.startswith("socket:") for target in targets)
    threads = int(fields["Threads"])
    return ProcessSample(
        round(t, 2), round(rss_kb / 1024, 1), len(targets), sockets, threads, active
    )


async def ask_streamed(
    http: httpx.AsyncClient, body: dict[str, Any], timeout: float
) -> tuple[StreamRecord, str | None]:
    """Ask one streamed question, read it to `end`; return its record and thread id."""
    started = time.monotonic()
    first_event: float | None = None
    thread_id: str | None = None
    final: dict[str, Any] | None = None
    outcome = "broken:no_end"
    try:
        async with (
            asyncio.timeout(timeout),
            aconnect_sse(http, "POST", STREAM_PATH, json=body) as source,
        ):
            if source.response.status_code != 200:
                outcome = f"broken:http_{source.response.status_code}"
            else:
                async for sse in source.aiter_sse():
                    envelope = json.loads(sse.data)
                    data = envelope["data"]
                    first_event = first_event or time.monotonic() - started
                    if data["type"] == "started":
                        thread_id = data["thread_id"]
                    elif data["type"] in ("completed", "error"):
                        final = envelope
                    elif data["type"] == "end":
                        outcome = classify_final(final)
                        break
    except TimeoutError:
        outcome = "broken:timeout"
    except (httpx.HTTPError, json.JSONDecodeError, KeyError) as exc:
        outcome = f"broken:{type(exc).__name__}"
    return StreamRecord(outcome, time.monotonic() - started, first_event), thread_id


def classify_final(final: dict[str, Any] | None) -> str:
    """Name the outcome of a stream that reached `end` after the event `final`."""
    if final is None:
        return "broken:end_without_result"
    data = final["data"]
    if data["type"] == "completed":
        return "completed" if final["code"] == 200 and data.get("response") else "broken:empty"
    clear = (
        final["code"] >= 400
        and isinstance(data.get("error_type"), str)
        and isinstance(data.get("can_retry"), bool)
    )
    return f"error:{data['error_type']}" if clear else "broken:unclear_error"


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


POLL_INTERVAL = 0.5


STEADY_SECONDS = 6.0
"""How long the FD count must not change to count as steady: longer than Hypercorn's
keep-alive timeout (5 s), after which it closes connections its clients left idle."""


async def wait_until_fds_steady(pid: int, settle: float) -> None:
    """Poll until the FD count is unchanged for STEADY_SECONDS, or `settle` seconds pass."""
    counts: list[int] = []
    window = round(STEADY_SECONDS / POLL_INTERVAL) + 1
    for _ in range(max(1, round(settle / POLL_INTERVAL))):
        counts.append(sample_process(pid, 0).fds)
        if len(counts) >= window and len(set(counts[-window:])) == 1:
            return
        await asyncio.sleep(POLL_INTERVAL)


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


def percentile(values: list[float], q: float) -> float | None:
    """Return the nearest-rank q-th percentile (0-100) of `values`, or None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, round(q / 100 * len(ordered) + 0.5 - 1e-9))
    return round(ordered[min(rank, len(ordered)) - 1], 3)


def summarize(
    args: argparse.Namespace,
    state: LoadState,
    warmup: list[StreamRecord],
    idle: ProcessSample,
    baseline: ProcessSample,
    timeline: list[ProcessSample],
    after: ProcessSample,
    load_seconds: float,
) -> dict[str, Any]:
    """Put the measurements in the shape of the JSON report."""
    outcomes = Counter(record.outcome for record in state.records)
    latencies = [r.latency for r in state.records if r.outcome == "completed"]
    first_events = [r.first_event for r in state.records if r.first_event is not None]
    peak_rss = max([s.rss_mb for s in timeline] + [after.rss_mb])
    peak_fds = max([s.fds for s in timeline] + [after.fds])
    return {
        "config": {
            "concurrency": args.concurrency,
            "duration_s": args.duration,
            "latency_ms": args.latency_ms,
            "questions_per_thread": args.questions_per_thread,
            "checkpointer": "sqlite",
            "max_rss_growth": args.max_rss_growth,
            "max_rss_drift": args.max_rss_drift,
            "fd_slack": args.fd_slack,
        },
        "warmup": dict(Counter(record.outcome for record in warmup)),
        "streams": {
            "started": state.started,
            "finished": len(state.records),
            "completed": outcomes["completed"],
            "errored": {k[6:]: v for k, v in outcomes.items() if k.startswith("error:")},
            "broken": {k[7:]: v for k, v in outcomes.items() if k.startswith("broken:")},
        },
        "latency_s": {
            "p50": percentile(latencies, 50),
            "p90": percentile(latencies, 90),
            "p99": percentile(latencies, 99),
            "max": round(max(latencies), 3) if latencies else None,
        },
        "first_event_s": {
            "p50": percentile(first_events, 50),
            "p99": percentile(first_events, 99),
        },
        "throughput_per_s": round(outcomes["completed"] / load_seconds, 1),
        "load_seconds": round(load_seconds, 1),
        "service": {
            "idle_after_start": asdict(idle),
            "baseline_after_warmup": asdict(baseline),
            "peak": {"rss_mb": peak_rss, "fds": peak_fds},
            "rss_second_half": rss_second_half(timeline, args.duration),
            "after": asdict(after),
        },
        "timeline": [asdict(sample) for sample in timeline],
    }


def rss_second_half(timeline: list[ProcessSample], duration: float) -> dict[str, Any] | None:
    """Compare the median RSS of the third and the last quarter of the load.

    Finished runs are kept for FINISHED_RUN_TTL, so RSS rises for about that long, then
    should stay level; a leak keeps rising. Medians ignore a single step (a new arena).
    Loads shorter than twice the TTL return None (not judged).
    """
    if duration < 2 * FINISHED_RUN_TTL:
        return None
    third = [s.rss_mb for s in timeline if duration / 2 <= s.t < duration * 3 / 4]
    last = [s.rss_mb for s in timeline if duration * 3 / 4 <= s.t <= duration]
    if not third or not last:
        return None
    middle, end = statistics.median(third), statistics.median(last)
    return {
        "third_quarter_median_mb": middle,
        "last_quarter_median_mb": end,
        "growth": round(end / middle - 1, 4),
    }


def verdict(results: dict[str, Any], alive: bool) -> list[str]:
    """Return why the soak failed (empty when it passed)."""
    failures = []
    streams = results["streams"]
    service = results["service"]
    config = results["config"]
    if streams["broken"]:
        failures.append(f"streams that did not end properly: {streams['broken']}")
    if streams["started"] != streams["finished"]:
        failures.append(f"{streams['started'] - streams['finished']} streams never finished")
    if not streams["completed"]:
        failures.append("no stream completed")
    if not alive:
        failures.append("the service process died")
    if any(probe["outcome"] != "completed" for probe in results["probes"]):
        failures.append(f"a probe question did not complete: {results['probes']}")
    baseline, after = service["baseline_after_warmup"], service["after"]
    limit = baseline["rss_mb"] * config["max_rss_growth"]
    if after["rss_mb"] > limit:
        failures.append(
            f"RSS grew from {baseline['rss_mb']} MB to {after['rss_mb']} MB (> {limit:.0f})"
        )
    drift = service["rss_second_half"]
    if drift is not None and drift["growth"] > config["max_rss_drift"]:
        failures.append(
            f"RSS still grew by {drift['growth']:.1%} in the second half of the load "
            f"({drift['third_quarter_median_mb']} -> {drift['last_quarter_median_mb']} MB)"
        )
    if after["fds"] > baseline["fds"] + config["fd_slack"]:
        failures.append(
            f"open FDs did not return to the baseline: {baseline['fds']} -> {after['fds']}"
        )
    return failures


def report_table(results: dict[str, Any]) -> str:
    """Return the human-readable summary of a soak."""
    config, streams, latency = results["config"], results["streams"], results["latency_s"]
    service = results["service"]
    rows = [
        ("concurrency / duration", f"{config['concurrency']} streams / {config['duration_s']} s"),
        ("model latency per call", f"{config['latency_ms']} ms"),
        ("streams started", streams["started"]),
        ("streams completed", streams["completed"]),
        ("streams errored", streams["errored"] or 0),
        ("streams broken", streams["broken"] or 0),
        ("throughput", f"{results['throughput_per_s']} completed/s"),
        ("latency p50 / p90 / p99 / max", " / ".join(f"{latency[k]} s" for k in latency)),
        (
            "first event p50 / p99",
            " / ".join(f"{results['first_event_s'][k]} s" for k in ("p50", "p99")),
        ),
    ]
    for label, key in (
        ("idle after start", "idle_after_start"),
        ("baseline (after warm-up)", "baseline_after_warmup"),
        ("after (settled)", "after"),
    ):
        sample = service[key]
        rows.append(
            (
                f"service {label}",
                f"RSS {sample['rss_mb']} MB, {sample['fds']} FDs ({sample['sockets']} sockets), "
                f"{sample['threads']} threads",
            )
        )
    probes = " / ".join(f"{p['outcome']} in {p['latency']:.2f} s" for p in results["probes"])
    rows.append(("probe question before / after", probes))
    peak = service["peak"]
    rows.append(("service peak during load", f"RSS {peak['rss_mb']} MB, {peak['fds']} FDs"))
    drift = service["rss_second_half"]
    rows.append(
        (
            "RSS median, 3rd -> 4th quarter",
            f"{drift['third_quarter_median_mb']} MB -> {drift['last_quarter_median_mb']} MB "
            f"({drift['growth']:+.2%})"
            if drift
            else f"not judged (load shorter than {2 * FINISHED_RUN_TTL:.0f} s)",
        )
    )
    width = max(len(label) for label, _ in rows)
    lines = [f"{label:<{width}}  {value}" for label, value in rows]
    verdict_line = "PASS" if results["ok"] else "FAIL: " + "; ".join(results["failures"])
    return "\n".join([*lines, f"{'verdict':<{width}}  {verdict_line}"])


@contextlib.contextmanager
def running_service(llm_url: str, workdir: Path) -> Iterator[ServiceProcess]:
    """Run `python -m app` on the stub LLM with a SQLite checkpointer in `workdir`."""
    env = {
        "OPENAI_BASE_URL": llm_url,
        "CHECKPOINT_DATABASE_URL": f"sqlite:///{workdir / 'soak.db'}",
        "LOG_LEVEL": "WARNING",  # an access log line per request would dwarf everything
    }
    service = spawn_service(env, workdir)
    try:
        wait_until_ready(service)
        yield service
    finally:
        stop_process(service.process)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Read the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak", description=__doc__.split("\n", 1)[0]
    )
    parser.add_argument("--concurrency", type=int, default=200, help="streams kept open")
    parser.add_argument("--duration", type=float, default=300.0, help="seconds of load")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="stub delay per call")
    parser.add_argument("--questions-per-thread", type=int, default=3)
    parser.add_argument(
        "--stream-timeout",
        type=float,
        default=120.0,
        help="seconds a stream may take before it counts as broken",
    )
    parser.add_argument("--ramp", type=float, default=2.0, help="seconds to start all clients")
    parser.add_argument("--sample-every", type=float, default=1.0, help="seconds between samples")
    parser.add_argument(
        "--settle",
        type=float,
        default=30.0,
        help="most seconds to wait for the FD count to settle (before each probe and sample)",
    )
    parser.add_argument(
        "--max-rss-growth",
        type=float,
        default=3.0,
        help="fail if RSS after exceeds the baseline times this (it includes finished runs "
        "kept for resumption, about 35-50 KB each)",
    )
    parser.add_argument(
        "--max-rss-drift",
        type=float,
        default=0.05,
        help="fail if the median RSS of the last quarter of a load of at least twice "
        "FINISHED_RUN_TTL exceeds that of the third quarter by more than this fraction "
        "(a leak; retention has levelled off by then)",
    )
    parser.add_argument(
        "--fd-slack",
        type=int,
        default=0,
        help="fail if FDs after exceed the baseline by more than this",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON report path")
    args = parser.parse_args(argv)
    if args.concurrency < 1 or args.duration <= 0:
        parser.error("--concurrency must be >= 1 and --duration > 0")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the soak and report; return the exit status."""
    args = parse_args(argv)
    with (
        tempfile.TemporaryDirectory(prefix="soak-") as workdir,
        start_stub_llm(latency_ms=args.latency_ms) as llm_url,
        running_service(llm_url, Path(workdir)) as service,
    ):
        print(
            f"soak: {args.concurrency} streams for {args.duration:g} s against "
            f"{service.base_url} (pid {service.process.pid})",
            flush=True,
        )
        results = asyncio.run(soak(service, args))
        alive = service.process.poll() is None
        failures = verdict(results, alive)
        results["ok"], results["failures"] = not failures, failures
        if failures:
            results["service_log_tail"] = service.log_tail()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n")
    print(report_table(results))
    print(f"report: {args.out}")
    return 0 if results["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
