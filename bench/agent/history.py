"""History benchmark: prompt size per model call over a 40-turn conversation, window vs blocks.

`python -m bench.agent.history [--turns 40] [--index-max 10] [--table small]` asks the same
questions, one thread per mode, through the real ChatOpenAI against the OpenAI-compatible
stub, and counts the characters of every chat-completions request the stub receives. Per
turn the stub calls `run_sql` once, then answers quoting the preview table: with
`--table wide` (the default) a 30-row orders query whose 20-row preview the model sees,
with `--table small` the stub's own default policy (7 rows of sales per region). Figures,
not assertions: it prints a Markdown table and writes `bench/out/history.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from bench.environment import BENCH_DIR, TELEMETRY_OFF
from config import Settings
from react_agent.service import open_agent_service
from tests.support.openai_stub import OpenAIStub, Reply, ToolCall, default_policy, message_text

MODES = ("window", "blocks")
REPORTED_TURNS = (1, 10, 20, 40)
TOPICS = (
    "每个地区的销售额是多少",
    "Which region had the highest sales?",
    "各地区已完成订单的销售额排名",
    "Show me sales per region again",
    "华东和华南的销售额差多少",
    "What share of sales does the top region have?",
    "按地区汇总销售额，从高到低",
    "Compare the regions by completed-order revenue",
)


ANSWER_QUOTE_CHARS = 300


def wide_table_policy(body: dict[str, Any]) -> Reply:
    """Answer a new question with its own 30-row orders query, and a result by quoting it."""
    messages = body.get("messages") or []
    if messages[-1].get("role") == "tool":
        return Reply(text="查询结果如下：" + message_text(messages[-1])[:ANSWER_QUOTE_CHARS])
    first = turn_of(body) * 30
    sql = (
        "SELECT o.order_id, o.order_date, o.total_amount, o.status, s.store_name "
        "FROM orders o JOIN stores s ON s.store_id = o.store_id "
        f"WHERE o.order_id > {first} ORDER BY o.order_id LIMIT 30"
    )
    return Reply(tool_calls=[ToolCall(name="run_sql", args={"sql": sql})])


POLICIES = {"wide": wide_table_policy, "small": default_policy}


def question(turn: int) -> str:
    """Return the question of turn `turn`: the topics in turn, numbered so each is distinct."""
    return f"{TOPICS[(turn - 1) % len(TOPICS)]} (#{turn})"


def prompt_chars(body: dict[str, Any]) -> int:
    """Return the characters the model reads in one request: contents and tool-call arguments.

    The tool schemas are left out: they are the same in every request of both modes.
    """
    total = 0
    for message in body.get("messages") or []:
        content = message.get("content") or ""
        total += len(content if isinstance(content, str) else json.dumps(content))
        for call in message.get("tool_calls") or []:
            total += len(call["function"]["name"]) + len(call["function"]["arguments"])
    return total


def turn_of(body: dict[str, Any]) -> int:
    """Return the turn a request belongs to: the number in its newest user message."""
    users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
    return int(users[-1]["content"].rsplit("#", 1)[1].rstrip(")"))


async def run_mode(mode: str, turns: int, index_max: int, stub: OpenAIStub) -> dict[int, list]:
    """Ask `turns` questions in one thread in `mode`; return each turn's prompt sizes."""
    stub.clear()
    with tempfile.TemporaryDirectory(prefix="bench-history-") as data_dir:
        settings = Settings(
            _env_file=None,
            data_dir=Path(data_dir),
            checkpoint_database_url=f"sqlite:///{Path(data_dir) / 'checkpoints.db'}",
            openai_base_url=stub.base_url,
            openai_api_key=SecretStr("bench-key"),
            llm_model="stub-model",
            llm_max_retries=0,
            history_mode=mode,
            history_index_max=index_max,
        )
        async with open_agent_service(settings) as service:
            runner = service.require_runner()
            for turn in range(1, turns + 1):
                await runner.ask(question(turn), f"bench:history-{mode}")
    sizes: dict[int, list[int]] = {}
    for body in stub.requests:
        sizes.setdefault(turn_of(body), []).append(prompt_chars(body))
    return sizes


def report(results: dict[str, dict[int, list[int]]], turns: int, index_max: int) -> str:
    """Return the Markdown table of the prompt sizes at the reported turns, and the targets."""
    shown = [turn for turn in REPORTED_TURNS if turn <= turns]
    lines = [
        f"Prompt characters per model call ({turns}-turn conversation, "
        f"HISTORY_INDEX_MAX={index_max}; first call of the turn / call after its run_sql):",
        "",
        "| mode | " + " | ".join(f"turn {turn}" for turn in shown) + " |",
        "|---|" + "---:|" * len(shown),
    ]
    for mode, sizes in results.items():
        cells = [" / ".join(f"{size:,}" for size in sizes[turn]) for turn in shown]
        lines.append(f"| {mode} | " + " | ".join(cells) + " |")
    last, tenth = shown[-1], 10 if 10 in shown else shown[0]
    window, blocks = max(results["window"][last]), max(results["blocks"][last])
    growth = max(results["blocks"][last]) / max(results["blocks"][tenth]) - 1
    lines += [
        "",
        f"- blocks / window at turn {last}: {blocks / window:.0%} (target ≤ 30 %)",
        f"- blocks growth from turn {tenth} to turn {last}: {growth:+.1%} (target < 10 %)",
    ]
    return "\n".join(lines)


async def main_async(turns: int, index_max: int, table: str) -> dict[str, Any]:
    """Run both modes against one in-process stub and return the figures."""
    with OpenAIStub() as stub:
        stub.default_policy = POLICIES[table]
        results = {mode: await run_mode(mode, turns, index_max, stub) for mode in MODES}
    return {"turns": turns, "index_max": index_max, "table": table, "prompt_chars": results}


def main(argv: list[str] | None = None) -> int:
    """Run the history benchmark, print its table and write bench/out/history.json."""
    parser = argparse.ArgumentParser(prog="python -m bench.agent.history")
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--index-max", type=int, default=Settings(_env_file=None).history_index_max)
    parser.add_argument("--table", choices=sorted(POLICIES), default="wide")
    args = parser.parse_args(argv)
    os.environ.update(TELEMETRY_OFF)
    figures = asyncio.run(main_async(args.turns, args.index_max, args.table))
    out = BENCH_DIR / "out"
    out.mkdir(exist_ok=True)
    (out / "history.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(
        f"Preview table: {args.table}. "
        + report(figures["prompt_chars"], args.turns, args.index_max)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
