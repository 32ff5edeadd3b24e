"""The audit's cost per question: CPU and throughput in-process with AUDIT on vs off.

`python -m bench.access.audit_cost` builds the agent as `python -m app` does (the sample
database, conversations in a SQLite file), with a tiny scripted chat model instead of an
LLM (one run_sql, then an answer: one audit record per question), and alternates rounds
with the audit off and on. Each round asks `--questions` questions, `--concurrency` at a
time, each on a new thread, and measures the process's CPU time and the wall time from
the first question to the last record written (the writer's last batch is flushed inside
the measurement, so its cost is counted). It prints the median of each side and the
difference per question, then the CPU of the audit's own path per query (the listener in
the question's task, and the batched write), which load on the machine hardly moves;
with `--json` it writes them too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from config import Settings
from react_agent.audit.database import open_ledger_database
from react_agent.audit.listener import LedgerListener
from react_agent.audit.schema import create_ledger_schema
from react_agent.audit.store import AuditStore
from react_agent.audit.writer import AuditWriter
from react_agent.runs.events.events import RunFailed, RunFinished
from react_agent.runs.events.listeners import QueryFinished, RunAccepted
from react_agent.service import open_agent_service

SQL = "SELECT r.region_name, COUNT(*) AS stores FROM stores s JOIN regions r USING (region_id)"


class OneQueryModel(BaseChatModel):
    """Calls run_sql once, then answers: the shape of a typical question, without an LLM."""

    @property
    def _llm_type(self) -> str:
        return "one-query"

    def bind_tools(self, tools: Any, **kwargs: Any) -> OneQueryModel:
        """Return the model itself: its replies do not depend on the tools."""
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        if isinstance(messages[-1], ToolMessage):
            reply = AIMessage(content="done")
        else:
            call = {"name": "run_sql", "args": {"sql": SQL}, "id": f"call_{uuid.uuid4().hex}"}
            reply = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=reply)])


async def one_round(audit: bool, questions: int, concurrency: int, data_dir: Path) -> dict:
    """Ask `questions` questions with the audit on or off; return CPU and wall seconds."""
    settings = Settings(
        _env_file=None,
        data_dir=data_dir,
        checkpoint_database_url=f"sqlite:///{data_dir / f'{uuid.uuid4().hex}.db'}",
        audit=audit,
        log_level="WARNING",
        memory=False,
    )
    async with open_agent_service(settings, model=OneQueryModel()) as service:
        runner = service.require_runner()
        gate = asyncio.Semaphore(concurrency)

        async def ask(n: int) -> None:
            async with gate:
                run = await runner.start("how many stores per region?", f"bench:{n}-{uuid.uuid4()}")
                async for _, event in run.follow(0):
                    if isinstance(event, RunFailed):
                        raise event.error
                    if isinstance(event, RunFinished):
                        return

        await asyncio.gather(*(ask(n) for n in range(10)))  # warm-up, unmeasured
        if service.ledger is not None and service.ledger.writer is not None:
            await service.ledger.writer.flush()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(ask(n) for n in range(questions)))
        if service.ledger is not None and service.ledger.writer is not None:
            await service.ledger.writer.flush()  # the records' write is part of the cost
            assert await service.ledger.audit.count() == questions + 10
        return {"cpu": time.process_time() - cpu0, "wall": time.perf_counter() - wall0}


async def measure(rounds: int, questions: int, concurrency: int) -> dict:
    """Alternate rounds off and on; return each side's median and the difference."""
    sides: dict[str, list[dict]] = {"off": [], "on": []}
    with tempfile.TemporaryDirectory() as directory:
        for _ in range(rounds):
            for name in ("off", "on"):
                sides[name].append(
                    await one_round(name == "on", questions, concurrency, Path(directory))
                )
    result: dict[str, Any] = {"rounds": rounds, "questions": questions, "concurrency": concurrency}
    for name, samples in sides.items():
        cpu = statistics.median(s["cpu"] for s in samples) / questions * 1000
        rate = statistics.median(questions / s["wall"] for s in samples)
        result[name] = {"cpu_ms_per_question": round(cpu, 3), "questions_per_s": round(rate, 1)}
    result["cpu_ms_added_per_question"] = round(
        result["on"]["cpu_ms_per_question"] - result["off"]["cpu_ms_per_question"], 3
    )
    result["throughput_ratio_on_off"] = round(
        result["on"]["questions_per_s"] / result["off"]["questions_per_s"], 3
    )
    return result


async def record_path_cost(records: int = 10_000) -> dict:
    """Return the CPU µs per query of the listener (record made, queued) and of its write.

    The part of the audit that runs in a question's task (the listener on QueryFinished)
    and the part the background writer spends per record (batched INSERTs into SQLite),
    each timed with `time.process_time()` over `records` queries.
    """
    with tempfile.TemporaryDirectory() as directory:
        database = await open_ledger_database(f"sqlite:///{directory}/ledger.db")
        await create_ledger_schema(database)
        writer = AuditWriter(AuditStore(database), batch_size=500)
        listener = LedgerListener(writer, None)
        run = SimpleNamespace(run_id="r", thread_id="bench:1", lang=None, trace_id=None)
        listener.on_run_event(run, RunAccepted("how many stores per region?"))
        event = QueryFinished(SQL, SQL, "sqlite", "ok", 0.002, tables=("regions", "stores"))
        cpu0 = time.process_time()
        for _ in range(records):
            listener.on_run_event(run, event)
        listened = time.process_time() - cpu0
        cpu0 = time.process_time()
        await writer.flush()
        written = time.process_time() - cpu0
        await database.aclose()
    return {
        "listener_us_per_query": round(listened / records * 1e6, 1),
        "write_us_per_record": round(written / records * 1e6, 1),
    }


def main() -> None:
    """Parse the options, measure, print (and write) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    result = asyncio.run(measure(args.rounds, args.questions, args.concurrency))
    result["record_path"] = asyncio.run(record_path_cost())
    print(json.dumps(result, indent=2))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
