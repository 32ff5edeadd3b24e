"""Agents built as `python -m app` builds them, one per side, asked in alternated rounds.

`python -m bench.access.throughput` and `bench.engines.throughput` each open one agent per
side with `react_agent.service.open_agent_service` (ChatOpenAI on the benchmark's stub,
`python -m bench.stub`, in a process of its own; a SQLite checkpointer and a data folder
each; `--data-url` the data database), ask them through `AgentRunner.start` in
`bench.measure.runner_rounds`'s alternated rounds, and print one JSON report.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections.abc import Awaitable, Callable, Mapping
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
from react_agent.service import AgentService, open_agent_service

AskOptions = Callable[[AgentService], dict[str, Any]]
"""A side's `runner_question` options (the asker's actor and scope, say) from its service."""

Compare = Callable[[argparse.Namespace, str], Awaitable[dict[str, Any]]]
"""A benchmark's comparison: its options and the stub's base URL in, its report out."""


async def measure_sides(
    args: argparse.Namespace,
    stub_url: str,
    updates: Mapping[str, Mapping[str, Any]],
    ask_options: AskOptions | None = None,
) -> dict[str, Any]:
    """Open one agent per side, run the alternated rounds, return the report's head.

    Args:
        args: The options of `add_round_options`, and `data_url`.
        stub_url: The benchmark stub's OpenAI base URL.
        updates: Each side's name and the settings that make it that side.
        ask_options: The options each side's questions are asked with (default: none).

    """
    base = Settings(
        _env_file=None,
        openai_base_url=stub_url,
        openai_api_key=SecretStr("bench"),
        llm_model="stub-model",
    )
    with tempfile.TemporaryDirectory() as directory:
        async with AsyncExitStack() as stack:
            sides = {}
            for name, update in updates.items():
                (Path(directory) / name).mkdir()
                settings = base.model_copy(
                    update={
                        "data_dir": Path(directory) / name,
                        **({"data_database_url": args.data_url} if args.data_url else {}),
                        **update,
                    }
                )
                service = await stack.enter_async_context(open_agent_service(settings))
                assert not service.problems, service.problems
                options = ask_options(service) if ask_options else {}
                sides[name] = runner_question(service.require_runner(), **options)
            rounds = await alternated_rounds(
                sides, rounds=args.rounds, concurrency=args.concurrency, questions=args.questions
            )
    return rounds_report(args, rounds)


def run_comparison(argv: list[str] | None, description: str, compare: Compare) -> int:
    """Parse the round options and `--data-url`, run `compare` on a stub, print its JSON."""
    parser = argparse.ArgumentParser(description=description)
    add_round_options(parser)
    parser.add_argument(
        "--data-url", default=None, help="the data database (default: the embedded sample)"
    )
    args = parser.parse_args(argv)
    with stub_process(args.latency_ms) as stub_url:
        figures = asyncio.run(compare(args, stub_url))
    print(json.dumps(figures, indent=2))
    return 0
