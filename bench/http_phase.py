"""The HTTP phase: warm every server up, the overhead series, then each level on each side."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Any

import httpx

from bench.drivers.http_client import new_client, sharded_question
from bench.drivers.question import Question
from bench.drivers.service import service_stream, service_sync
from bench.environment import log
from bench.measure.measured import measured_level, measured_series
from bench.measure.rounds import median_level, round_order
from bench.measure.sampler import Sampler
from bench.peers.scale_out import measured_here
from bench.state import BenchState

Sides = dict[str, tuple[str, Callable[[httpx.AsyncClient], Question]]]
"""Server name → (base URL, how to make its question driver on a client)."""

InProcessLevel = Callable[[int, int, int], dict[str, Any]]
"""(concurrency, questions, round) → the in-process graph's level, run in a process of its own."""


async def http_phase(
    state: BenchState, sides: Sides, sampler: Sampler, in_process: InProcessLevel | None = None
) -> None:
    """Warm every server up, then each level on each side in turn, in --rounds rounds.

    Taking turns level by level spreads whatever else the machine does over all
    sides instead of landing on one of them. `in_process`, when given, runs the
    in-process graph's levels as one more side of the rounds.
    """
    async with AsyncExitStack() as stack:
        asks: dict[str, Question] = {}
        for name, (_, make_ask) in sides.items():
            shards = sharded_question(make_ask, max(state.levels))
            ask = await stack.enter_async_context(shards)
            failed = await _warm_up(ask, state.args.warmup)
            if failed:
                # One broken side must not cost the others their measurements.
                log(f"{name}: {failed}; left out")
                state.results[name]["error"] = failed
                continue
            asks[name] = ask
        if "service_stream" in asks and not state.args.only_sides:
            await _overhead_phase(state, sides["service_stream"][0], sampler)
        for concurrency, total in state.levels.items():
            here = [
                name
                for name in state.args.sides
                if (name in asks or (name == "in_process" and in_process))
                and measured_here(name, concurrency, list(state.levels))
            ]
            await _rounds(state, here, asks, in_process, concurrency, total, sampler)


async def _rounds(
    state: BenchState,
    here: list[str],
    asks: dict[str, Question],
    in_process: InProcessLevel | None,
    concurrency: int,
    total: int,
    sampler: Sampler,
) -> None:
    """Measure the sides `here` at one level, --rounds times, in alternated order."""
    rounds = state.args.rounds
    orders = [round_order(here, r) for r in range(1, rounds + 1)]
    if rounds > 1:
        state.results["meta"].setdefault("round_orders", {})[str(concurrency)] = orders
    for round_no, order in enumerate(orders, 1):
        if rounds > 1:
            log(f"c={concurrency} round {round_no}/{rounds}: {', '.join(order)}")
        for name in order:
            if name == "in_process" and in_process is not None:
                try:
                    level = await asyncio.to_thread(in_process, concurrency, total, round_no)
                except Exception as exc:  # one broken round must not cost the others theirs
                    log(f"in_process c={concurrency} round {round_no} failed: {exc}")
                    state.results.setdefault(name, {})["error"] = str(exc)[-2000:]
                    continue
                _log_level(name, level)
            else:
                level = await _measure_level(state, name, asks[name], concurrency, total, sampler)
            entry = state.results.setdefault(name, {})
            entry.setdefault("levels", {})[str(concurrency)] = level
            if rounds > 1:
                level.update(round=round_no, position=order.index(name) + 1)
                entry.setdefault("rounds", {}).setdefault(str(concurrency), []).append(level)
    if rounds > 1:
        for name in here:
            measured = (state.results.get(name) or {}).get("rounds", {}).get(str(concurrency))
            if measured:
                state.results[name]["levels"][str(concurrency)] = median_level(measured)


async def _warm_up(ask: Question, count: int) -> str | None:
    """Ask `count` questions; return why the first failure failed, or None."""
    for i in range(count):
        sample = await ask(i, 0)
        if not sample.ok:
            return f"warm-up question failed: {sample.error}"
    return None


async def _overhead_phase(state: BenchState, base: str, sampler: Sampler) -> None:
    log("overhead: sequential questions, in-process and HTTP in turn")
    series = await overhead(state, base, sampler)
    results = state.results
    results["in_process"]["astream"] = series["astream"]
    results["in_process"]["runner"] = series["runner"]
    results["service_stream"]["sequential"] = series["stream"]
    results["service_sync"]["sequential"] = series["sync"]
    log("sequential p50: " + ", ".join(f"{k} {v['total_p50_ms']} ms" for k, v in series.items()))


async def _measure_level(
    state: BenchState, name: str, ask: Question, concurrency: int, total: int, sampler: Sampler
) -> dict[str, Any]:
    level = await measured_level(
        ask, concurrency, total, state.args.level_deadline, sampler, state.quiet, server=name
    )
    _log_level(name, level)
    return level


def _log_level(name: str, level: dict[str, Any]) -> None:
    concurrency = level["concurrency"]
    log(
        f"{name} c={concurrency}: {level['completed']}/{level['questions']} ok, "
        f"{level['throughput_qps']} q/s, started p50/p99 "
        f"{level['started_p50_ms']}/{level['started_p99_ms']} ms, total p50/p99 "
        f"{level['total_p50_ms']}/{level['total_p99_ms']} ms, RSS "
        f"{level['server_peak_rss_mb']} MB, CPU server {level['server_cpu_pct']}%"
        f" client {level['client_cpu_pct']}% others {level['foreign_cpu_pct']}%"
    )
    if level["errors"]:
        log(f"  errors: {level['errors']}")


async def overhead(state: BenchState, base: str, sampler: Sampler) -> dict[str, dict[str, Any]]:
    """Sequential questions: in-process graph, runner, stream and sync endpoints in turn.

    The in-process agent is built here, in the load generator's process and loop, by
    `open_agent_service` from the same settings as the service's; questions never
    overlap, so each way is measured alone, and taking turns gives all four the same
    moments of the machine.
    """
    # Imported here: the graph is built only once the environment has been cleaned.
    from bench.drivers.graph import astream_question, runner_question
    from config import Settings
    from react_agent.service import open_agent_service

    workdir = state.scratch / "overhead"
    workdir.mkdir()
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        openai_base_url=state.stub_url,
        openai_api_key="bench-not-a-secret",
        llm_model="stub-model",
        data_database_url=None,
        data_dir=workdir,
        checkpoint_database_url=f"sqlite:///{workdir / 'checkpoints.db'}",
    )
    async with open_agent_service(settings) as service, new_client(4) as client:
        runner = service.require_runner()
        asks = {
            "astream": astream_question(runner),
            "runner": runner_question(runner),
            "stream": service_stream(client, base),
            "sync": service_sync(client, base),
        }
        for name, ask in asks.items():
            failed = await _warm_up(ask, state.args.warmup)
            if failed:
                raise RuntimeError(f"{name}: {failed}")
        return await measured_series(asks, state.args.sequential, sampler, state.quiet)
