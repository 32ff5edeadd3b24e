"""Cost per question: the CPU one question costs the in-process graph, and where it goes.

`python -m bench.cost_per_question` starts the benchmark's stub model (`python -m
bench.stub`, 3 calls of 50 ms per question, in its own process so that its CPU is not
counted), builds the agent with `open_agent_service` as `python -m app` does (ChatOpenAI
on the stub, the sample database, memory on and empty, logging at INFO as the service
configures it), then for each checkpointer and durability:

1. asks `--warmup` questions, unmeasured;
2. asks `--questions` sequential questions through `AgentRunner.start` and its event log
   (what the routes do, less HTTP), each on a new thread, and takes `time.process_time()`
   around each: CPU time, robust to other load on the machine (wall time is not);
3. asks as many again under a CPU-time stack sampler (bench/measure/cpu_sampler.py) and
   spreads step 2's CPU per question over the areas of bench/report/areas.py;
4. with `--concurrency C`, runs a closed-loop level of `--level-questions` at C in flight
   and reports its throughput and CPU per question.

It prints a table (ms of CPU per question, by area) and writes the figures as JSON
(`--json`, default bench/out/cost_per_question.json).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import statistics
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench.drivers.question import QUESTION, Question, Sample
from bench.environment import BENCH_DIR, PYTHON, REPO, child_env
from bench.measure.areas import area_names
from bench.measure.closed_loop import run_level
from bench.measure.cpu_sampler import CpuSampler
from bench.peers.postgres_scratch import scratch_postgres
from bench.processes import Processes, wait_for_line
from config import Settings
from react_agent.runs.events.events import RunFailed, RunFinished
from react_agent.runs.runner import AgentRunner
from react_agent.service import open_agent_service


def runner_ask(runner: AgentRunner, stream_tokens: bool) -> Question:
    """Return a question through AgentRunner.start and its event log, on a new thread."""

    async def ask(index: int, worker: int) -> Sample:
        t0 = time.perf_counter()
        run = await runner.start(
            QUESTION, f"cost{worker}:{uuid.uuid4().hex}", stream_tokens=stream_tokens
        )
        async for _, event in run.follow(0):
            if isinstance(event, RunFinished):
                ok = bool(event.result.answer) and bool(event.result.sql)
                return Sample(ok, time.perf_counter() - t0, error=None if ok else "no answer/SQL")
            if isinstance(event, RunFailed):
                return Sample(False, time.perf_counter() - t0, error=event.error.detail)
        return Sample(False, time.perf_counter() - t0, error="no final event")

    return ask


async def _sequential(ask: Question, count: int) -> tuple[list[float], list[Sample]]:
    """Ask `count` questions one after another; return each one's CPU seconds and sample."""
    cpu: list[float] = []
    samples: list[Sample] = []
    for index in range(count):
        c0 = time.process_time()
        samples.append(await ask(index, 0))
        cpu.append(time.process_time() - c0)
    return cpu, samples


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        resident_pages = int(statm.read().split()[1])
    return round(resident_pages * 4096 / 2**20, 1)


async def measure(settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    """Measure one configuration (a checkpointer and a durability)."""
    out: dict[str, Any] = {}
    async with open_agent_service(settings) as service:
        runner = service.require_runner()
        out["rss_after_start_mb"] = _rss_mb()
        ask = runner_ask(runner, args.stream_tokens)
        await _sequential(ask, args.warmup)
        times0 = os.times()
        cpu, samples = await _sequential(ask, args.questions)
        times1 = os.times()
        out["user_ms_mean"] = round(1000 * (times1.user - times0.user) / args.questions, 2)
        out["system_ms_mean"] = round(1000 * (times1.system - times0.system) / args.questions, 2)
        out["questions"] = args.questions
        out["failed"] = sum(not sample.ok for sample in samples)
        out["errors"] = sorted({str(s.error) for s in samples if not s.ok})[:5]
        out["wall_ms_median"] = round(1000 * statistics.median(s.total for s in samples), 1)
        out["cpu_ms_mean"] = round(1000 * statistics.fmean(cpu), 2)
        out["cpu_ms_median"] = round(1000 * statistics.median(cpu), 2)
        with CpuSampler(args.interval_ms / 1000) as sampler:
            profiled, samples = await _sequential(ask, args.questions)
        out["failed"] += sum(not sample.ok for sample in samples)
        out["errors"] += sorted({str(s.error) for s in samples if not s.ok})[:5]
        out["profiled_cpu_ms_mean"] = round(1000 * statistics.fmean(profiled), 2)
        out["samples"] = sampler.samples
        areas = sampler.ms_per_question(sum(cpu), len(cpu))
        out["areas_ms"] = {name: round(ms, 2) for name, ms in areas.items()}
        out["top_leaf_pct"] = [[n, round(p, 1)] for n, p in sampler.top(sampler.leaves, 15)]
        inclusive = sampler.top(sampler.inclusive, 150)
        out["top_inclusive_pct"] = [[n, round(p, 1)] for n, p in inclusive]
        if args.concurrency:
            out[f"c{args.concurrency}"] = await _level(ask, args)
        out["rss_end_mb"] = _rss_mb()
    return out


async def _level(ask: Question, args: argparse.Namespace) -> dict[str, Any]:
    c0 = time.process_time()
    samples, wall, unfinished = await run_level(ask, args.concurrency, args.level_questions, 300)
    cpu = time.process_time() - c0
    done = sum(sample.ok for sample in samples)
    return {
        "questions": args.level_questions,
        "completed": done,
        "unfinished": unfinished,
        "throughput_qps": round(done / wall, 2) if wall else 0.0,
        "cpu_ms_per_question": round(1000 * cpu / max(done, 1), 2),
        "cpu_busy_pct": round(100 * cpu / wall, 1) if wall else 0.0,
    }


def _configurations(args: argparse.Namespace, stack: ExitStack) -> dict[str, str | None]:
    urls: dict[str, str | None] = {}
    for name in args.checkpointers.split(","):
        if name == "sqlite":
            urls[name] = None  # the default: checkpoints.db in the data directory
        elif name == "memory":
            urls[name] = "memory"
        elif name == "postgres":
            url, why = stack.enter_context(scratch_postgres(True))
            if url is None:
                print(f"postgres: unavailable ({why})", flush=True)
                continue
            urls[name] = url
        else:
            raise SystemExit(f"unknown checkpointer {name!r} (sqlite, postgres, memory)")
    return urls


async def _measure_all(
    args: argparse.Namespace, base_url: str, urls: dict[str, str | None], data_root: Path
) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    for name, url in urls.items():
        for durability in args.durability.split(","):
            label = f"{name}/{durability}"
            settings = Settings(
                openai_base_url=base_url,
                llm_model="stub",
                data_dir=data_root / label.replace("/", "-"),
                checkpoint_database_url=url,
                checkpoint_durability=durability,  # type: ignore[arg-type]
                log_level=args.log_level,
            )
            print(f"measuring {label} ...", flush=True)
            results[label] = await measure(settings, args)
    return results


def print_table(results: dict[str, dict[str, Any]]) -> None:
    """Print ms of CPU per question by area, one column per configuration."""
    names = list(results)
    width = max(len(area) for area in area_names()) + 2
    print(
        "\nCPU per question (ms), by area" + " " * (width - 30) + "".join(f"{n:>16}" for n in names)
    )
    for area in area_names():
        cells = [results[n].get("areas_ms", {}).get(area) for n in names]
        if all(cell is None for cell in cells):
            continue
        print(f"{area:<{width}}" + "".join(f"{cell or 0:>16.1f}" for cell in cells))
    rows = [
        ("total, mean", "cpu_ms_mean"),
        ("total, median", "cpu_ms_median"),
        ("of which user", "user_ms_mean"),
        ("of which system (kernel)", "system_ms_mean"),
        ("wall per question, median", "wall_ms_median"),
        ("RSS after start (MB)", "rss_after_start_mb"),
        ("failed questions", "failed"),
    ]
    for label, key in rows:
        print(f"{label:<{width}}" + "".join(f"{results[n].get(key, '-'):>16}" for n in names))
    for n in names:
        level = next(
            (v for k, v in results[n].items() if k.startswith("c") and k[1:].isdigit()), None
        )
        if level:
            print(
                f"{n}: c={args_concurrency(results[n])} {level['throughput_qps']} q/s, "
                f"{level['cpu_ms_per_question']} ms CPU/question, {level['completed']}/"
                f"{level['questions']} completed"
            )


def args_concurrency(result: dict[str, Any]) -> str:
    return next((k[1:] for k in result if k.startswith("c") and k[1:].isdigit()), "?")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.cost_per_question")
    parser.add_argument("--questions", type=int, default=40, help="measured questions")
    parser.add_argument("--warmup", type=int, default=8)
    parser.add_argument("--checkpointers", default="sqlite", help="sqlite,postgres,memory")
    parser.add_argument("--durability", default="sync", help="sync,async,exit")
    parser.add_argument("--concurrency", type=int, default=10, help="0: no level")
    parser.add_argument("--level-questions", type=int, default=100)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--interval-ms", type=float, default=1.0, help="CPU per sample")
    parser.add_argument("--stream-tokens", action="store_true")
    parser.add_argument("--log-level", default="INFO", help="as the service's LOG_LEVEL")
    parser.add_argument("--json", type=Path, default=BENCH_DIR / "out" / "cost_per_question.json")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # As app/__init__.py configures it for `python -m app`.
    logging.basicConfig(level=args.log_level.upper())
    for chatty in ("httpx", "httpx2", "openai"):
        logging.getLogger(chatty).setLevel(max(logging.WARNING, logging.getLogger().level))
    # A SIGTERM still stops the stub (the ExitStack unwinds).
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    with ExitStack() as stack:
        processes = stack.enter_context(Processes(BENCH_DIR / "out" / "logs"))
        stub = processes.start(
            "cost-stub",
            [PYTHON, "-m", "bench.stub", "--latency-ms", str(args.latency_ms), "--calls", "3"],
            env=child_env({}),
            cwd=REPO,
        )
        base_url = wait_for_line(stub, "OPENAI_BASE_URL=", 60)
        configurations = _configurations(args, stack)
        data_root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cost-")))
        # One event loop for all: langchain-openai shares its HTTP client across models.
        results = asyncio.run(_measure_all(args, base_url, configurations, data_root))
    print_table(results)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, ensure_ascii=False, indent=2))
    print(f"\nfigures: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
