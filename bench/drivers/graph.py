"""The in-process graph driver: a question through the compiled graph or the runner, no HTTP.

- `astream`: the compiled graph's `astream(stream_mode=["updates"])` with the input the
  runner gives it, consumed to the end: the graph's own time, which HTTP and SSE can only
  add to (the `in_process` baseline of the benchmark).
- `runner`: `AgentRunner.start(...)` and its event log followed to the end (what the HTTP
  routes do, less HTTP): the graph plus the runner's state reads and task.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from langchain_core.messages import HumanMessage

from bench.drivers.question import QUESTION, Question, Sample
from react_agent.graph.messages import stamped
from react_agent.graph.state import new_question_state
from react_agent.runs.events.events import NodeFinished, RunFailed, RunFinished, RunStarted
from react_agent.runs.runner import AgentRunner


def astream_question(runner: AgentRunner) -> Question:
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


def runner_question(runner: AgentRunner, **start_options: Any) -> Question:
    """Return a question through AgentRunner.start and its event log, on a new thread.

    `start_options` go to every `start` (e.g. the asker's `scope` and `actor`).
    """

    async def ask(index: int, worker: int) -> Sample:
        thread_id = f"inproc{worker}:{uuid.uuid4().hex}"
        t0 = time.perf_counter()
        started = first = None
        try:
            run = await runner.start(QUESTION, thread_id, **start_options)
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
