"""The in-process peer: the service's own graph in a process of its own, no HTTP.

`python -m bench.peers.inprocess SPEC.json OUT.json` (started by `python -m bench`) runs the
graph at the concurrency levels and compares checkpointers, in a process of its own so
that its RSS and CPU are measured like a server's. The agent is built by
`react_agent.service.open_agent_service` from the environment's settings (ChatOpenAI on the
benchmark's stub, the sample database, a SQLite checkpointer), exactly as `python -m app`
builds it; questions are asked through the drivers of bench/drivers/graph.py. The
sequential questions of the overhead ratio are asked by `python -m bench` itself with the
same drivers, taking turns with the HTTP questions.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from bench.drivers.graph import astream_question, runner_question
from bench.drivers.question import Question, Sample
from bench.measure.measured import Quiet, measured_level, measured_series
from bench.measure.sampler import Sampler
from config import Settings
from react_agent.service import open_agent_service


async def _sequential(ask: Question, count: int) -> list[Sample]:
    return [await ask(i, 0) for i in range(count)]


async def baseline(spec: dict[str, Any], sampler: Sampler, quiet: Quiet) -> dict[str, Any]:
    """Sequential astream and runner questions, then astream at each concurrency level."""
    settings = Settings()
    out: dict[str, Any] = {
        "what": "react_agent.service.open_agent_service + ChatOpenAI on the stub, "
        "checkpointer " + settings.resolved_checkpoint_database_url.split("://")[0],
    }
    async with open_agent_service(settings) as service:
        runner = service.require_runner()
        astream_ask = astream_question(runner)
        runner_ask = runner_question(runner)
        await _sequential(astream_ask, spec["warmup"])
        await _sequential(runner_ask, spec["warmup"])
        if spec["sequential"]:
            series = await measured_series(
                {"astream": astream_ask, "runner": runner_ask}, spec["sequential"], sampler, quiet
            )
            out.update(series)
        levels: dict[str, Any] = {}
        for concurrency, total in spec["levels"]:
            level = await measured_level(
                astream_ask,
                concurrency,
                total,
                spec["level_deadline"],
                sampler,
                quiet,
                server="in_process",
            )
            levels[str(concurrency)] = level
            print(f"in_process c={concurrency}: {_brief(level)}", flush=True)
        out["levels"] = levels
    return out


async def checkpointers(spec: dict[str, Any], sampler: Sampler, quiet: Quiet) -> dict[str, Any]:
    """Per-question time of the same graph with each checkpointer, sequential and at 10.

    Sequentially through `astream` (the checkpointer alone) and through the runner (with
    the thread locks the service picks for that checkpointer); at c=10 through the runner.
    """
    results: dict[str, Any] = {}
    for name, url in spec["checkpointers"].items():
        if url is None:
            results[name] = {"unavailable": spec["unavailable"].get(name, "not configured")}
            continue
        settings = Settings(checkpoint_database_url=url)
        if name == "postgres":
            # The scratch database's backends work for us: not "other load".
            sampler.watch_matching("postgres_backends", url.rsplit("/", 1)[-1])
        try:
            async with AsyncExitStack() as stack:
                service = await stack.enter_async_context(open_agent_service(settings))
                if service.runner is None:
                    problems = {k: v.detail for k, v in service.problems.items()}
                    results[name] = {"unavailable": f"agent not ready: {problems}"}
                    continue
                ask = astream_question(service.runner)
                ask_runner = runner_question(service.runner)
                await _sequential(ask, spec["warmup"])
                await _sequential(ask_runner, spec["warmup"])
                sequential = await measured_series(
                    {"astream": ask, "runner": ask_runner},
                    spec["checkpointer_questions"],
                    sampler,
                    quiet,
                )
                concurrency = spec["checkpointer_concurrency"]
                # At c>1 through the runner: with PostgreSQL it also holds each thread's
                # advisory lock (a pooled connection), as the service does.
                level = await measured_level(
                    ask_runner,
                    concurrency,
                    spec["checkpointer_concurrent_questions"],
                    spec["level_deadline"],
                    sampler,
                    quiet,
                    server="in_process",
                )
                results[name] = {
                    "locks": type(service.runner.locks).__name__,
                    "sequential": sequential["astream"],
                    "sequential_runner": sequential["runner"],
                    f"concurrency_{concurrency}": level,
                }
        except Exception as exc:
            results[name] = {"unavailable": f"{type(exc).__name__}: {exc}"[:300]}
        sampler.unwatch("postgres_backends")
        print(f"checkpointer {name}: {json.dumps(results[name])[:200]}", flush=True)
    return results


def _brief(level: dict[str, Any]) -> str:
    return (
        f"{level['completed']}/{level['questions']} ok, {level['throughput_qps']} q/s, "
        f"p50 {level['total_p50_ms']} ms, p99 {level['total_p99_ms']} ms, "
        f"others {level['foreign_cpu_pct']}%"
    )


async def main_async(spec: dict[str, Any]) -> dict[str, Any]:
    quiet = Quiet(**spec["quiet"])
    with Sampler() as sampler:
        sampler.watch("in_process", os.getpid())
        if spec.get("stub_pid"):
            sampler.watch("stub", spec["stub_pid"])
        for ours in spec.get("ours", []):
            # The benchmark's idle servers and load generator, while this level runs.
            sampler.count_as_ours(
                ours.get("pid", 0),
                children=ours.get("children", True),
                matching=ours.get("matching"),
            )
        result = await baseline(spec, sampler, quiet)
        result["checkpointers"] = await checkpointers(spec, sampler, quiet)
    result["outside_sockets"] = sampler.outside_sockets
    return result


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[0]).read_text())
    result = asyncio.run(main_async(spec))
    Path(argv[1]).write_text(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
