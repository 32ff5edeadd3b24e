"""The command line of `python -m bench.soak`: start the stub and the service, soak, report."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bench.soak.load import soak
from bench.soak.verdict import report_table, verdict
from tests.support.service_process import (
    ServiceProcess,
    spawn_service,
    start_stub_llm,
    stop_process,
    wait_until_ready,
)

DESCRIPTION = (
    "Soak test: many concurrent streamed questions for minutes; memory and FDs must stay flat."
)
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "soak_results.json"


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
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=DESCRIPTION)
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
