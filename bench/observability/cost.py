"""Observability's cost at c=100: `python -m bench.observability.cost`.

Figures, not assertions. Three agents built by `react_agent.service.open_agent_service` as
`python -m app` builds them (ChatOpenAI on the benchmark's stub, `python -m bench.stub`,
in a process of its own; the sample database; a SQLite checkpointer each): `none` (the
default: nothing on), `metrics` (METRICS=on: the run listener and the timed checkpoint
writes) and `metrics_traces` (also traces, exported over OTLP/HTTP to a local receiver,
`python -m tests.support.otlp_receiver`, in a process of its own that decodes every
request as a collector would). Questions go through `AgentRunner.start` and its event log
(bench/drivers/graph.py `runner_question`: what the routes do, less HTTP) at a fixed
concurrency; rounds alternate the order of the sides so that the machine's other load
falls on all of them. Prints each round, each side's median questions/s, the ratios to
`none` (targets: metrics ≥ 0.97, metrics + traces ≥ 0.90), the CPU time per question,
and the listeners' own CPU time per question, from a replay of one recorded question's
events (the steadiest figure on a shared machine). Figures: bench/observability/results.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path
from types import SimpleNamespace
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

SIDES = ("none", "metrics", "metrics_traces")


class FirstRunRecorder:
    """A run listener keeping the events of the first run it hears of, for the replay."""

    def __init__(self) -> None:
        self.run_id: str | None = None
        self.events: list[Any] = []

    def on_run_event(self, run: Any, event: Any) -> None:
        """Keep the event when it belongs to the first run."""
        self.run_id = self.run_id or run.run_id
        if run.run_id == self.run_id:
            self.events.append(event)


def listener_cost(events: list[Any], listeners: list[Any], repeats: int) -> float:
    """Return the CPU microseconds the listeners take per question, replaying its events.

    The steady figure on a shared machine: what the listeners add to each question,
    measured alone (spans exported included: the receiver is flushed to before the end).
    """
    from react_agent.observability.tracing import flush_traces

    cpu = time.process_time()
    for number in range(repeats):
        run = SimpleNamespace(
            run_id=f"replay{number}", thread_id="bench:1", lang=None, trace_id=None
        )
        for event in events:
            for listener in listeners:
                listener.on_run_event(run, event)
        if number % 100 == 99:  # as the batch exporter would, before its queue fills
            flush_traces()
    flush_traces()
    return round((time.process_time() - cpu) / repeats * 1e6, 1)


@contextmanager
def otlp_receiver_process():
    """Run the OTLP/HTTP receiver in a process of its own; yield its base URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.otlp_receiver"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line.startswith("OTLP_ENDPOINT="), line
        yield line.split("=", 1)[1]
    finally:
        process.terminate()
        process.wait(timeout=30)


def side_settings(base: Settings, name: str, directory: Path, collector: str) -> Settings:
    """Return one side's settings: its data directory, and what it turns on."""
    update: dict[str, Any] = {"data_dir": directory}
    if name != "none":
        update["metrics"] = True
    if name == "metrics_traces":
        update["otel_exporter_otlp_endpoint"] = collector
    return base.model_copy(update=update)


async def compare(args: argparse.Namespace, stub_url: str, collector: str) -> dict[str, Any]:
    """Measure every side, round after round in alternating order; return every figure."""
    base = Settings(
        _env_file=None,
        openai_base_url=stub_url,
        openai_api_key=SecretStr("bench"),
        llm_model="stub-model",
    )
    with tempfile.TemporaryDirectory() as directory:
        async with AsyncExitStack() as stack:
            sides, listeners = {}, {}
            for name in SIDES:
                (Path(directory) / name).mkdir()
                settings = side_settings(base, name, Path(directory) / name, collector)
                service = await stack.enter_async_context(open_agent_service(settings))
                sides[name] = runner_question(service.require_runner())
                listeners[name] = list(service.require_runner().listeners.listeners)
            recorder = FirstRunRecorder()
            service.require_runner().listeners.add(recorder)  # the last side's first question
            rounds = await alternated_rounds(
                sides,
                rounds=args.rounds,
                concurrency=args.concurrency,
                questions=args.questions,
            )
            from react_agent.observability.tracing import flush_traces

            flush_traces()  # the last spans reach the receiver before it stops
            events = recorder.events
            cost = {
                name: listener_cost(events, listeners[name], args.replays)
                for name in SIDES
                if name != "none"
            }
    head = rounds_report(args, rounds)
    qps, cpu = head["median_qps"], head["cpu_ms_per_question"]
    return {
        **head,
        "ratio_metrics_none": round(qps["metrics"] / qps["none"], 3),
        "ratio_metrics_traces_none": round(qps["metrics_traces"] / qps["none"], 3),
        "cpu_ratio_none_metrics": round(cpu["none"] / cpu["metrics"], 3),
        "cpu_ratio_none_metrics_traces": round(cpu["none"] / cpu["metrics_traces"], 3),
        "events_per_question": len(events),
        "listener_cpu_us_per_question": cost,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print it as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_round_options(parser)
    parser.add_argument("--replays", type=int, default=2000, help="of one question's events")
    args = parser.parse_args(argv)
    with stub_process(args.latency_ms) as stub_url, otlp_receiver_process() as collector:
        figures = asyncio.run(compare(args, stub_url, collector))
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
