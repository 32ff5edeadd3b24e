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
import sys
import tempfile
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from bench.drivers.graph import runner_question
from bench.measure.runner_rounds import (
    add_round_options,
    alternated_rounds,
    median_figures,
    stub_process,
)
from bench.memory.retrieval import fill
from bench.memory.retrieval import run as retrieval_times
from config import Settings
from react_agent.service import AgentService, open_agent_service


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
            # The warm-up round builds the index and warms the pools.
            rounds = await alternated_rounds(
                sides,
                rounds=args.rounds,
                concurrency=args.concurrency,
                questions=args.questions,
                label="memory ",
            )
    medians = median_figures(rounds)
    on, off = medians["on"]["qps"], medians["off"]["qps"]
    cpu_on, cpu_off = medians["on"]["cpu_ms_per_question"], medians["off"]["cpu_ms_per_question"]
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
    add_round_options(parser, questions=400, rounds=6)
    parser.add_argument("--retrieval-questions", type=int, default=200)
    args = parser.parse_args(argv)
    with stub_process(args.latency_ms) as base_url:
        throughput = asyncio.run(compare(args, base_url))
    retrieval = asyncio.run(retrieval_times(args.examples, args.retrieval_questions))
    print(json.dumps({"throughput": throughput, "retrieval": retrieval}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
