"""Memory on vs off at c=100: `python -m bench.memory.throughput`.

Figures, not assertions. Two agents built by `react_agent.service.open_agent_service`, as
`python -m app` builds them (ChatOpenAI on the benchmark's stub, `python -m bench.stub`,
started here in a process of its own; the sample database; a SQLite checkpointer each):
one with MEMORY on and 10,000 stored question→SQL examples (bench/memory/retrieval.py's synthetic
ones, most sharing words with the question, so every question puts examples in its
prompt), one with MEMORY off. Questions go through `AgentRunner.start` and its event log
(bench/drivers/graph.py `runner_question`, what the routes do less HTTP) at a fixed
concurrency; rounds alternate between the two (on, off, off, on, …) so that the machine's
other load falls on both. Prints each round, the throughput of each side (the median of
its rounds), the ratio on/off (target ≥ 0.95), the CPU time per question of each side
(the steadier figure on a shared machine: the ratio off/on is the throughput ratio a
CPU-bound process would see) and the retrieval time per question at
10,000 examples, lexical and lexical + vector (bench/memory/retrieval.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from bench.drivers.graph import runner_question
from bench.drivers.question import Question
from bench.memory.retrieval import fill
from bench.memory.retrieval import run as retrieval_times
from config import Settings
from react_agent.service import AgentService, open_agent_service


@contextmanager
def stub_process(latency_ms: float):
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


async def open_side(
    stack: AsyncExitStack, base: Settings, directory: Path, memory: bool, examples: int
) -> AgentService:
    """Open one agent in its own data directory; with memory, fill it with the examples."""
    settings = base.model_copy(update={"data_dir": directory, "memory": memory})
    service = await stack.enter_async_context(open_agent_service(settings))
    service.require_runner()
    if memory:
        assert service.memory is not None
        await fill(service.memory, examples, with_embeddings=False)
    return service


async def compare(args: argparse.Namespace, base_url: str) -> dict[str, Any]:
    """Measure both sides, round after round, and return every figure."""
    base = Settings(
        _env_file=None,
        openai_base_url=base_url,
        openai_api_key=SecretStr("bench"),
        llm_model="stub-model",
    )
    rounds: dict[str, list[dict[str, Any]]] = {"on": [], "off": []}
    with tempfile.TemporaryDirectory() as directory:
        async with AsyncExitStack() as stack:
            sides = {
                name: runner_question(
                    (
                        await open_side(
                            stack, base, Path(directory) / name, name == "on", args.examples
                        )
                    ).require_runner()
                )
                for name in ("on", "off")
            }
            for ask in sides.values():  # builds the index, warms the pools
                await one_round(ask, args.concurrency, args.concurrency)
            for number in range(args.rounds):
                order = ("on", "off") if number % 2 == 0 else ("off", "on")
                for name in order:
                    result = await one_round(sides[name], args.concurrency, args.questions)
                    rounds[name].append(result)
                    print(f"round {number + 1} memory {name}: {json.dumps(result)}", flush=True)
    on = statistics.median(r["qps"] for r in rounds["on"])
    off = statistics.median(r["qps"] for r in rounds["off"])
    cpu_on = round(statistics.median(r["cpu_ms_per_question"] for r in rounds["on"]), 1)
    cpu_off = round(statistics.median(r["cpu_ms_per_question"] for r in rounds["off"]), 1)
    return {
        "concurrency": args.concurrency,
        "questions_per_round": args.questions,
        "examples": args.examples,
        "stub_latency_ms": args.latency_ms,
        "rounds": rounds,
        "memory_on_qps": on,
        "memory_off_qps": off,
        "ratio_on_off": round(on / off, 3),
        "cpu_ms_per_question_on": cpu_on,
        "cpu_ms_per_question_off": cpu_off,
        "cpu_ratio_off_on": round(cpu_off / cpu_on, 3),
    }


def main(argv: list[str] | None = None) -> int:
    """Run both measurements and print them as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--questions", type=int, default=400, help="per round")
    parser.add_argument("--rounds", type=int, default=6, help="per side, interleaved")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="the stub's, per call")
    parser.add_argument("--retrieval-questions", type=int, default=200)
    args = parser.parse_args(argv)
    with stub_process(args.latency_ms) as base_url:
        throughput = asyncio.run(compare(args, base_url))
    retrieval = asyncio.run(retrieval_times(args.examples, args.retrieval_questions))
    print(json.dumps({"throughput": throughput, "retrieval": retrieval}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
