"""One whole benchmark run: the stub, the in-process peer, the servers, the HTTP phase, ratios."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

import httpx

from bench.drivers.langgraph import langgraph_stream
from bench.drivers.question import QUESTION, Question
from bench.drivers.service import service_stream
from bench.environment import TELEMETRY_OFF, log
from bench.facts import environment_facts
from bench.http_phase import InProcessLevel, Sides, http_phase
from bench.measure.measured import db_name
from bench.measure.sampler import Sampler
from bench.peers.launch import (
    LANGGRAPH_ASSISTANT,
    Started,
    admission_side,
    run_in_process,
    run_in_process_level,
    server_description,
    start_admission,
    start_flask,
    start_langgraph,
    start_service,
    start_stack_floor,
    start_stub,
)
from bench.peers.postgres_scratch import scratch_postgres
from bench.peers.scale_out import SCALE_OUT_WORKERS, side_name, start_service_workers
from bench.processes import Processes, wait_for_http
from bench.profiling import profile
from bench.report.labels import SLOW_FLOOR_KEY, STACK_FLOOR
from bench.report.ratios import compute_ratios
from bench.report.targets import compute_targets
from bench.slow_level import run_slow_level
from bench.state import BenchState

Starter = Callable[[BenchState, Processes], Started]
AskerFactory = Callable[[str], Callable[[httpx.AsyncClient], Question]]


def run_bench(state: BenchState) -> dict[str, Any]:
    """Run every measurement; return the results (always stopping every process)."""
    args, results = state.args, state.results
    results["meta"] = _meta(state)
    with state.cleanup, Processes(state.log_dir) as procs, Sampler() as sampler:
        sampler.watch("client", os.getpid(), children=False)
        if args.slow_only:
            _slow_levels(state, procs, sampler)
            results["network"] = _network(sampler, [])
            return results
        start_stub(state, procs, sampler)
        child_sockets = _in_process_phase(state, procs)
        servers = [server for server in _servers(args.runs_max_active) if server[0] in args.sides]
        log("starting " + ", ".join(name for name, _, _ in servers))
        started: dict[str, Started] = {}
        for name, start, _ in servers:
            try:
                started[name] = start(state, procs)
            except Exception as exc:
                log(f"{name} failed to start: {exc}")
                results[name] = {"error": str(exc)[-2000:]}
        sides = _ready_sides(state, servers, started, procs, sampler)
        in_process = _in_process_rounds(state, procs, started, child_sockets)
        try:
            asyncio.run(http_phase(state, sides, sampler, in_process))
        except Exception as exc:
            log(f"HTTP measurements failed: {type(exc).__name__}: {exc}")
            results["http_phase_error"] = f"{type(exc).__name__}: {exc}"[-2000:]
        if args.profile and "service_stream" in sides:
            log(f"profiling the service at c={args.profile_concurrency} with py-spy")
            try:
                child, base, _ = started["service_stream"]
                results["profile"] = profile(state, child, base)
            except Exception as exc:
                results["profile"] = {"error": f"{type(exc).__name__}: {exc}"}
        for name in list(started):
            sampler.unwatch(name)
            procs.stop(started[name][0])
        if args.slow_streams:
            _slow_levels(state, procs, sampler)
        results["network"] = _network(sampler, child_sockets)
    results["ratios"] = compute_ratios(results)
    results["targets"] = compute_targets(results)
    return results


def _slow_levels(state: BenchState, procs: Processes, sampler: Sampler) -> None:
    """Run the slow-model level on our chosen side, then the floor's (if it is a side)."""
    state.results["slow_streams"] = run_slow_level(state, procs, sampler)
    if STACK_FLOOR in state.args.sides:
        state.results[SLOW_FLOOR_KEY] = run_slow_level(state, procs, sampler, STACK_FLOOR)


def _network(sampler: Sampler, child_sockets: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "outside_sockets": [*sampler.outside_sockets, *child_sockets],
        "note": "sockets of the servers, the stub, the in-process child and the load "
        "generator whose local or remote address is not loopback, checked every 2 s; "
        "empty means none was seen",
        "telemetry_env": TELEMETRY_OFF,
    }


def _meta(state: BenchState) -> dict[str, Any]:
    args = state.args
    return {
        **environment_facts(),
        "quick": args.quick,
        "slow_only": args.slow_only,
        "sides": args.sides,
        "only_sides": args.only_sides,
        "rounds": args.rounds,
        "latency_ms": args.latency_ms,
        "model_calls_per_question": args.calls,
        "question": QUESTION,
        "levels": {str(c): n for c, n in state.levels.items()},
        "sequential_questions": args.sequential,
        "warmup_questions": args.warmup,
        "level_mode": "closed loop: `concurrency` clients each ask again as soon as "
        "their question ends, until the level's questions are all asked",
    }


def _in_process_phase(state: BenchState, procs: Processes) -> list[dict[str, Any]]:
    """Run the in-process peer (and the checkpointers); return the sockets it saw outside.

    Its levels run here in a run of one round; with --rounds N they take their turns
    with the servers' (`_in_process_rounds`). The checkpointer comparison is left out
    with --sides, which runs only the levels of the sides named.
    """
    args = state.args
    levels = args.in_process_levels and args.rounds == 1 and "in_process" in args.sides
    compare = not args.only_sides
    if not (levels or compare):
        return []
    with scratch_postgres(compare and not args.skip_postgres) as (pg_url, pg_why):
        log("in-process baseline" + (" (and checkpointer comparison)" if compare else ""))
        try:
            in_process = run_in_process(
                state, procs, pg_url, pg_why, levels=levels, compare=compare
            )
        except Exception as exc:
            log(f"in-process baseline failed: {exc}")
            in_process = {"error": str(exc)[-2000:]}
    checkpointers = in_process.pop("checkpointers", None)
    child_sockets = in_process.pop("outside_sockets", [])
    state.results["in_process"] = in_process
    if compare:
        state.results["checkpointer"] = checkpointers or {"error": "in-process run failed"}
    return child_sockets


def _in_process_rounds(
    state: BenchState,
    procs: Processes,
    started: dict[str, Started],
    child_sockets: list[dict[str, Any]],
) -> InProcessLevel | None:
    """Return how to run one in-process level in its turn of a round (with --rounds N > 1).

    Each runs in a process of its own, whose sampler counts the idle servers, the load
    generator and the servers' PostgreSQL backends as the benchmark's, not as other load;
    the sockets it saw outside loopback join `child_sockets`.
    """
    args = state.args
    if args.rounds == 1 or not args.in_process_levels or "in_process" not in args.sides:
        return None
    ours: list[dict[str, Any]] = [{"pid": os.getpid(), "children": False}]
    ours += [{"pid": child.pid, "children": True} for child, _, _ in started.values()]
    ours += [{"matching": database} for database in state.databases.values()]

    def level(concurrency: int, total: int, round_no: int) -> dict[str, Any]:
        result = run_in_process_level(state, procs, concurrency, total, round_no, ours)
        child_sockets.extend(result.get("outside_sockets") or [])
        return result["levels"][str(concurrency)]

    return level


def _servers(limits: list[int]) -> list[tuple[str, Starter, AskerFactory]]:
    """Name, how to start it and how to ask it, of every server the run may test."""
    servers: list[tuple[str, Starter, AskerFactory]] = [
        ("service_stream", start_service, lambda base: lambda c: service_stream(c, base)),
    ]
    servers += [
        (admission_side(n), start_admission(n), lambda base: lambda c: service_stream(c, base))
        for n in limits
    ]
    servers += [
        (side_name(n), start_service_workers(n), lambda base: lambda c: service_stream(c, base))
        for n in SCALE_OUT_WORKERS
    ]
    from react_agent.graph.state import new_question_state

    graph_input = {"messages": [{"role": "user", "content": QUESTION}], **new_question_state()}
    return [
        *servers,
        (
            "langgraph_server",
            start_langgraph,
            lambda base: lambda c: langgraph_stream(c, base, LANGGRAPH_ASSISTANT, graph_input),
        ),
        ("flask_reference", start_flask, lambda base: lambda c: service_stream(c, base)),
        (STACK_FLOOR, start_stack_floor, lambda base: lambda c: service_stream(c, base)),
    ]


def _ready_sides(
    state: BenchState,
    servers: list[tuple[str, Starter, AskerFactory]],
    started: dict[str, Started],
    procs: Processes,
    sampler: Sampler,
) -> Sides:
    """Wait for each started server; watch those that came up and note their idle RSS."""
    results = state.results
    sides: Sides = {}
    for name, _, asker in servers:
        if name not in started:
            continue
        child, base, ready_url = started[name]
        try:
            wait_for_http(child, ready_url, 120)
        except Exception as exc:
            log(f"{name} did not come up: {exc}")
            results[name] = {"error": str(exc)[-2000:]}
            procs.stop(child)
            continue
        sampler.watch(name, child.pid)
        if name in state.databases:
            # Its database's backends work for it: their CPU is the side's, not other load.
            sampler.watch_matching(db_name(name), state.databases[name])
        sampler.begin()
        idle = sampler.end()
        results[name] = {
            "server": server_description(name, state),
            "idle_rss_mb": idle.peak_rss_mb.get(name),
        }
        sides[name] = (base, asker(base))
    if "service_stream" in sides:
        results["service_sync"] = {"server": server_description("service_stream", state)}
    return sides
