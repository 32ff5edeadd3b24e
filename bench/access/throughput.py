"""The access policy's cost at c=100: `python -m bench.access.throughput`.

Figures, not assertions. Two agents built by `react_agent.service.open_agent_service` as
`python -m app` builds them (ChatOpenAI on the benchmark's stub, `python -m bench.stub`,
in a process of its own; the sample database; a SQLite checkpointer each): `none` (no
POLICY_FILE) and `policy` (config/policy.sample.yaml, every question asked as `alice`,
the east_analyst: the stub's SQL is rewritten with the region filters, the denied and
sensitive columns checked, and each model call's input passes the masking boundary).
Questions go through `AgentRunner.start` with the asker's scope, as the accept path gives
it (bench/drivers/graph.py `runner_question`), at a fixed concurrency; rounds alternate
the order of the sides. Prints each round, each side's median questions/s and CPU time per
question, and the ratio `policy / none` (target ≥ 0.95). `--data-url` asks another data
database than the embedded sample (the sample loaded into PostgreSQL, say:
`python -m react_agent.sample_data.load_postgres URL`).
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

SIDES = ("none", "policy")
SAMPLE_POLICY = Path(__file__).resolve().parents[2] / "config" / "policy.sample.yaml"
ASKER = "alice"


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
                update: dict[str, Any] = {"data_dir": Path(directory) / name}
                if args.data_url:
                    update["data_database_url"] = args.data_url
                if name == "policy":
                    update["policy_file"] = SAMPLE_POLICY
                    update["auth_trusted_gateway"] = True  # the bench names the asker itself
                settings = base.model_copy(update=update)
                service = await stack.enter_async_context(open_agent_service(settings))
                options: dict[str, Any] = {}
                if service.policy is not None:
                    actor = service.policy.actor_for(ASKER)
                    options = {"actor": actor, "scope": service.policy.scope_for(actor)}
                sides[name] = runner_question(service.require_runner(), **options)
            rounds = await alternated_rounds(
                sides,
                rounds=args.rounds,
                concurrency=args.concurrency,
                questions=args.questions,
            )
    head = rounds_report(args, rounds)
    qps, cpu = head["median_qps"], head["cpu_ms_per_question"]
    return {
        **head,
        "ratio_policy_none": round(qps["policy"] / qps["none"], 3),
        "cpu_ratio_none_policy": round(cpu["none"] / cpu["policy"], 3),
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
