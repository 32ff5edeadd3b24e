"""Model calls per question: `python -m bench.model_calls [--code DIR] --label NAME`.

Figures, not assertions (the targets are checked by tests/react_agent/service/
test_model_calls.py). Builds the agent with `open_agent_service` and default settings,
on ChatOpenAI over HTTP to the tests' stub answering as a tool-calling model
(bench/model_calls/policy.py, a fixed latency per call), and asks, on the sample and
on the generated 1,000-table schema (bench/schema_scale): a simple question, a
follow-up on its thread, a two-part question and a question equal to a verified example.
For each: model calls, prompt and completion tokens, the share of each request that is
a byte-identical prefix of the previous one (within a turn, and from a turn's last
request to the follow-up's first), the first request's characters, and the time from
the start of the run to its first progress event (the first agent step or tool call).

`--code DIR` runs the service code of another checkout (a worktree of the commit before,
for the "before" column): its directory goes first on the import path, ahead of this
one's react_agent, app, config and tests. Each run writes bench/results/48-model-calls-
NAME.json; `python -m bench.model_calls.report` turns two of them into the results page.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import platform
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "bench" / "results"
SCENARIOS = {
    "simple": "每个地区的销售额是多少",
    "follow_up": "其中华东是多少",
    "two_part": "每个地区的销售额是多少？另外一共有几家门店",
    "verified": "一共有多少行？",
}
VERIFIED_QUESTION = "一共 有多少行"
"""A verified example's question: the scenario asks it in other spaces and punctuation."""


async def ask(service: Any, stub: Any, question: str, thread: str) -> dict[str, Any]:
    """Ask one question; return its figures from the stub's requests and the run's events."""
    from bench.model_calls.policy import first_prompt_chars, prefix_share
    from react_agent.runs.events.events import NodeFinished, RunFailed, RunFinished

    before = len(stub.requests)
    started = time.perf_counter()
    run = await service.runner.start(question, thread)
    first_progress = None
    result = None
    async for _, event in run.follow(0):
        progress = isinstance(event, NodeFinished) and event.node in ("agent", "tools")
        if first_progress is None and progress:
            first_progress = time.perf_counter() - started
        if isinstance(event, RunFinished):
            result = event.result
            break
        if isinstance(event, RunFailed):
            raise RuntimeError(event.error.detail)
    requests = stub.requests[before:]
    usage = (result.usage if result is not None else None) or {}
    within = [prefix_share(a, b) for a, b in itertools.pairwise(requests)]
    return {
        "calls": len(requests),
        "prompt_tokens": usage.get("prompt_tokens", 0),
        "completion_tokens": usage.get("completion_tokens", 0),
        "cached_tokens": usage.get("cached_tokens"),
        "prefix_within": min(within) if within else None,
        "first_prompt_chars": first_prompt_chars(requests[0]) if requests else 0,
        "first_progress_ms": round(first_progress * 1000, 1) if first_progress else None,
        "tools_used": result.tools_used if result is not None else [],
        "requests": requests,
    }


async def measure_schema(stub: Any, settings: Any) -> dict[str, Any]:
    """Ask the four questions on one schema; return their figures."""
    from bench.model_calls.policy import prefix_share
    from react_agent.memory.examples import SQL
    from react_agent.service import open_agent_service

    async with open_agent_service(settings) as service:
        if service.catalog is not None:
            await service.catalog.wait_ready()
        if service.memory is not None:
            # Its SQL reads a table of this schema (the sample's first: customers).
            table = service.tables[0]
            sql = f"SELECT COUNT(*) AS n FROM {table}"
            await service.memory.examples.add(SQL, VERIFIED_QUESTION, sql)
        await ask(service, stub, "一共有几家门店", f"warm:{uuid.uuid4().hex}")  # warm-up
        thread = f"bench:{uuid.uuid4().hex}"
        figures = {"simple": await ask(service, stub, SCENARIOS["simple"], thread)}
        figures["follow_up"] = await ask(service, stub, SCENARIOS["follow_up"], thread)
        last, first = figures["simple"]["requests"][-1], figures["follow_up"]["requests"][0]
        figures["follow_up"]["prefix_across"] = prefix_share(last, first)
        for name in ("two_part", "verified"):
            figures[name] = await ask(service, stub, SCENARIOS[name], f"b:{uuid.uuid4().hex}")
    for entry in figures.values():
        entry.pop("requests")
    return figures


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the scenarios on the sample and the 1,000-table schema; write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--code", type=Path, help="checkout whose service code to run")
    parser.add_argument("--label", default="after")
    parser.add_argument("--latency-ms", type=float, default=50.0)
    args = parser.parse_args(argv)
    code = args.code or REPO
    if args.code is not None:
        sys.path.insert(0, str(code))
    from pydantic import SecretStr

    from bench.model_calls.policy import tool_calling_model
    from bench.schema_scale.load import write_semantic_file, write_sqlite
    from bench.schema_scale.schema import build_tables
    from config import Settings
    from tests.support.openai_stub import OpenAIStub

    commit = _commit(code)
    out: dict[str, Any] = {"label": args.label, "commit": commit, "machine": _machine()}
    with tempfile.TemporaryDirectory() as tmp, OpenAIStub(args.latency_ms / 1000) as stub:
        stub.default_policy = tool_calling_model
        stub.prefix_cache = True
        folder = Path(tmp)
        tables = build_tables()
        write_sqlite(tables, folder / "schema.db")
        write_semantic_file(tables, folder / "semantic.yaml")
        base = {
            "_env_file": None,
            "openai_base_url": stub.base_url,
            "openai_api_key": SecretStr("bench"),
            "llm_model": "stub-model",
            "llm_max_retries": 0,
            "log_level": "WARNING",
        }
        for name, extra in (
            ("sample", {}),
            (
                "1000_tables",
                {
                    "data_database_url": f"sqlite:///{folder / 'schema.db'}",
                    "semantic_file": folder / "semantic.yaml",
                },
            ),
        ):
            data = folder / name
            data.mkdir()
            settings = Settings(**base, **extra, data_dir=data)
            out[name] = await measure_schema(stub, settings)
    path = RESULTS / f"48-model-calls-{args.label}.json"
    path.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(out, indent=2, ensure_ascii=False))
    return out


def _commit(code: Path) -> str:
    """Return the short commit of the checkout at `code`."""
    git = ["git", "-C", str(code), "rev-parse", "--short", "HEAD"]
    return subprocess.run(git, capture_output=True, text=True, check=False).stdout.strip()


def _machine() -> dict[str, Any]:
    import os

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average": list(os.getloadavg()),
    }


if __name__ == "__main__":
    asyncio.run(main())
