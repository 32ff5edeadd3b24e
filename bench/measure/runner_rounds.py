"""Feature benchmarks' rounds: sides of in-process runners, asked in alternated rounds.

`python -m bench.access.throughput`, `bench.observability.cost`, `bench.backends.throughput`
and `bench.memory.throughput` each compare agents built in one process (a feature on and
off, two backends) on the benchmark's stub model: every side warmed with one round, then
`rounds` rounds in `round_order` (reversed every other round), each side's figures the
median of its rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from bench.drivers.question import Question
from bench.measure.rounds import round_order

Rounds = dict[str, list[dict[str, Any]]]
"""Each side's rounds, in the order they ran: `{qps, cpu_ms_per_question, failed}`."""


@contextmanager
def stub_process(latency_ms: float) -> Iterator[str]:
    """Run `python -m bench.stub` (three model calls per question); yield its base URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.stub", "--latency-ms", str(latency_ms)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line.startswith("OPENAI_BASE_URL="), line
        yield line.split("=", 1)[1]
    finally:
        process.terminate()
        process.wait(timeout=30)


async def one_round(ask: Question, concurrency: int, questions: int) -> dict[str, Any]:
    """Ask `questions` questions, `concurrency` at a time: throughput, CPU time, failures.

    At c=100 the process is CPU-bound, so its CPU time per question (this process's, the
    stub runs in its own) is the steadier figure on a shared machine: other load slows the
    wall clock of a round, not the CPU each question takes.
    """
    gate = asyncio.Semaphore(concurrency)

    async def worker(index: int) -> bool:
        async with gate:
            return (await ask(index, index % concurrency)).ok

    started, cpu = time.perf_counter(), time.process_time()
    results = await asyncio.gather(*(worker(i) for i in range(questions)))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {
        "qps": round(questions / elapsed, 2),
        "cpu_ms_per_question": round(cpu / questions * 1000, 1),
        "failed": results.count(False),
    }


async def alternated_rounds(
    asks: Mapping[str, Question], *, rounds: int, concurrency: int, questions: int, label: str = ""
) -> Rounds:
    """Warm every side with one round, then run `rounds` rounds of every side, alternated.

    Each round's figures are printed as they come (`label` before the side's name).
    """
    for ask in asks.values():  # warms the pools and the caches
        await one_round(ask, concurrency, concurrency)
    measured: Rounds = {name: [] for name in asks}
    for number in range(1, rounds + 1):
        for name in round_order(list(asks), number):
            result = await one_round(asks[name], concurrency, questions)
            measured[name].append(result)
            print(f"round {number} {label}{name}: {json.dumps(result)}", flush=True)
    return measured


def median_figures(measured: Rounds) -> dict[str, dict[str, float]]:
    """Return each side's median q/s and CPU ms per question, and its failures in all."""
    return {
        name: {
            "qps": statistics.median(r["qps"] for r in results),
            "cpu_ms_per_question": round(
                statistics.median(r["cpu_ms_per_question"] for r in results), 1
            ),
            "failed": sum(r["failed"] for r in results),
        }
        for name, results in measured.items()
    }


def add_round_options(
    parser: argparse.ArgumentParser, *, questions: int = 300, rounds: int = 5, of: str = "side"
) -> None:
    """Add the options every feature benchmark's rounds take (their defaults as given)."""
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--questions", type=int, default=questions, help="per round")
    parser.add_argument("--rounds", type=int, default=rounds, help=f"per {of}, interleaved")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="the stub's, per call")


def rounds_report(args: argparse.Namespace, measured: Rounds) -> dict[str, Any]:
    """Return a report's head: the run's options, its rounds and each side's medians.

    The caller adds its ratios from `median_qps` and `cpu_ms_per_question`.
    """
    medians = median_figures(measured)
    return {
        "concurrency": args.concurrency,
        "questions_per_round": args.questions,
        "stub_latency_ms": args.latency_ms,
        "rounds": measured,
        "median_qps": {name: medians[name]["qps"] for name in measured},
        "cpu_ms_per_question": {name: medians[name]["cpu_ms_per_question"] for name in measured},
    }
