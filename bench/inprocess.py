"""The in-process baseline: the service's own graph, no HTTP.

`python -m bench.inprocess SPEC.json OUT.json` (started by `python -m bench`) runs the graph
at the concurrency levels and compares checkpointers, in a process of its own so that its
RSS and CPU are measured like a server's. The sequential questions of the overhead ratio
are asked by `python -m bench` itself with the same functions, taking turns with the HTTP
questions. The agent is
built by `react_agent.service.open_agent_service` from the environment's settings (ChatOpenAI
on the benchmark's stub, the sample database, a SQLite checkpointer), exactly as
`python -m app` builds it, and questions are asked two ways:

- `astream`: the compiled graph's `astream(stream_mode=["updates"])` with the input the
  runner gives it, consumed to the end. This is the `in_process` figure of the benchmark:
  the graph's own time, which HTTP and SSE can only add to.
- `runner`: `AgentRunner.start(...)` and its event log followed to the end (what the
  HTTP routes do, less HTTP): the graph plus the runner's state reads and task.

It also runs the graph at the benchmark's concurrency levels (the ceiling the HTTP service
could reach) and compares checkpointers (SQLite, PostgreSQL, memory) per question.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import uuid
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage

from bench.load import QUESTION, Sample
from bench.measure import Quiet, measured_level, measured_series
from bench.procs import Sampler
from config import Settings
from react_agent.graph.state import new_question_state
from react_agent.runs.events import NodeFinished, RunFailed, RunFinished, RunStarted
from react_agent.runs.runner import AgentRunner
from react_agent.service import open_agent_service

try:  # newer runners stamp the question with its time
    from react_agent.graph.messages import stamped  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the version of the agent

    def stamped(message: Any) -> Any:
        return message


def astream_question(runner: AgentRunner) -> Any:
    """Return a question through the compiled graph's astream, on a new thread."""

    async def ask(index: int, worker: int) -> Sample:
        thread_id = f"inproc{worker}:{uuid.uuid4().hex}"
        config = runner.config_for(thread_id)
        graph_input = {"messages": [stamped(HumanMessage(QUESTION))], **new_question_state()}
        t0 = time.perf_counter()
        first = None
        ok = False
        try:
            async for _, chunk in runner.graph.astream(
                graph_input, config, stream_mode=["updates"]
            ):
                if first is None:
                    first = time.perf_counter() - t0
                final = chunk.get("format_final_response") if isinstance(chunk, dict) else None
                if final:
                    ok = bool(final.get("final_answer"))
        except Exception as exc:
            total = time.perf_counter() - t0
            return Sample(False, total, None, first, f"{type(exc).__name__}: {exc}"[:200])
        total = time.perf_counter() - t0
        # No `started` event here; the first node's update is comparable with the servers'.
        return Sample(ok, total, None, first, None if ok else "no final answer")

    return ask


def runner_question(runner: AgentRunner) -> Any:
    """Return a question through AgentRunner.start and its event log, on a new thread."""

    async def ask(index: int, worker: int) -> Sample:
        thread_id = f"inproc{worker}:{uuid.uuid4().hex}"
        t0 = time.perf_counter()
        started = first = None
        try:
            run = await runner.start(QUESTION, thread_id)
            async for _, event in run.follow(0):
                if isinstance(event, RunStarted):
                    started = time.perf_counter() - t0
                elif isinstance(event, NodeFinished) and first is None:
                    first = time.perf_counter() - t0
                elif isinstance(event, RunFinished):
                    ok = bool(event.result.answer) and bool(event.result.sql)
                    total = time.perf_counter() - t0
                    return Sample(ok, total, started, first, None if ok else "no answer/SQL")
                elif isinstance(event, RunFailed):
                    error = f"{event.error.error_type}: {event.error.detail}"
                    return Sample(False, time.perf_counter() - t0, started, first, error)
        except Exception as exc:
            return Sample(False, time.perf_counter() - t0, started, first, repr(exc)[:200])
        return Sample(False, time.perf_counter() - t0, started, first, "no final event")

    return ask


async def _sequential(ask: Any, count: int) -> list[Sample]:
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
