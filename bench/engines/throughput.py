"""The generic engine against the native one at c=100: `python -m bench.engines.throughput`.

Figures, not assertions. Two agents built by `react_agent.service.open_agent_service` as
`python -m app` builds them (ChatOpenAI on the benchmark's stub, `python -m bench.stub`, in
a process of its own; a SQLite checkpointer each) on the same data database: `native`
(DATA_ENGINE=native) and `generic` (DATA_ENGINE=generic, the SQLAlchemy engine). Questions go
through `AgentRunner.start` at a fixed concurrency; rounds alternate the order of the sides.
Prints each side's median questions/s and CPU per question and the ratio `generic / native`
(target ≥ 0.8). `--data-url` names the database (default: the embedded SQLite sample; the
sample loaded into PostgreSQL or MariaDB: `python -m react_agent.sample_data.load_postgres
URL`, `… load_mysql URL`).
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
    rounds_report,
    stub_process,
)
from config import Settings
from react_agent.service import open_agent_service

SIDES = ("native", "generic")


async def compare(args: argparse.Namespace, stub_url: str) -> dict[str, Any]:
    """Measure both sides, round after round in alternating order; return every figure."""
    base = Settings(
        _env_file=None,
        openai_base_url=stub_url,
        openai_api_key=SecretStr("bench"),
        llm_model="stub-model",
    )
    with tempfile.TemporaryDirectory() as directory:
        async with AsyncExitStack() as stack:
            sides = {}
            for name in SIDES:
                (Path(directory) / name).mkdir()
                update: dict[str, Any] = {"data_dir": Path(directory) / name, "data_engine": name}
                if args.data_url:
                    update["data_database_url"] = args.data_url
                service = await stack.enter_async_context(
                    open_agent_service(base.model_copy(update=update))
                )
                assert not service.problems, service.problems
                sides[name] = runner_question(service.require_runner())
            rounds = await alternated_rounds(
                sides, rounds=args.rounds, concurrency=args.concurrency, questions=args.questions
            )
    head = rounds_report(args, rounds)
    qps, cpu = head["median_qps"], head["cpu_ms_per_question"]
    return {
        **head,
        "data_url": args.data_url or "the embedded SQLite sample",
        "ratio_generic_native": round(qps["generic"] / qps["native"], 3),
        "cpu_ratio_native_generic": round(cpu["native"] / cpu["generic"], 3),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print it as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_round_options(parser)
    parser.add_argument(
        "--data-url", default=None, help="the data database (default: the embedded sample)"
    )
    args = parser.parse_args(argv)
    with stub_process(args.latency_ms) as stub_url:
        figures = asyncio.run(compare(args, stub_url))
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
