"""`python -m bench.agent.subagents`: a two-part question with delegation vs one ReAct loop.

Both sides run in-process on the sample database with the same scripted model and the same
latency per model call. Each part of the question takes `rounds` tool rounds (describe the
tables, then run its query); the one loop does both parts one after the other, the
delegating agent hands each part to a sub-agent and the two run at once. Reported: wall
time per question and the size of the parent's last prompt (characters, and tokens at
about 4 characters each).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from config import Settings
from react_agent.service import open_agent_service
from tests.support.routed_model import RoutedChatModel
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

QUESTION = "比较各地区的销售额，并列出最畅销的三个产品"
PARTS = {
    "sales by region": (
        "各地区的销售额是多少？",
        ["orders", "stores", "regions"],
        "SELECT r.region_name AS region, ROUND(SUM(o.total_amount), 2) AS sales "
        "FROM orders o JOIN stores s ON s.store_id = o.store_id "
        "JOIN regions r ON r.region_id = s.region_id GROUP BY r.region_name",
    ),
    "top products": (
        "最畅销的三个产品是哪些？",
        ["order_items", "products"],
        "SELECT p.product_name, SUM(i.quantity) AS units FROM order_items i "
        "JOIN products p ON p.product_id = i.product_id GROUP BY p.product_name "
        "ORDER BY units DESC LIMIT 3",
    ),
}


class DelayedModel(RoutedChatModel):
    """The routed scripted model, waiting `latency` seconds before each reply."""

    latency: float = 0.1

    async def _agenerate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(self.latency)  # the simulated LLM's latency, not synchronisation
        return await super()._agenerate(messages, *args, **kwargs)


def part_calls(tables: list[str], sql: str, rounds: int) -> list[AIMessage]:
    """Return one part's tool calls: `rounds - 1` table descriptions, then its query."""
    return [
        *(call_tool("describe_tables", table_names=tables) for _ in range(rounds - 1)),
        call_tool("run_sql", sql=sql),
    ]


def one_loop_model(rounds: int, latency: float) -> DelayedModel:
    """Return the model of the agent that answers both parts in one loop."""
    calls = [c for _, tables, sql in PARTS.values() for c in part_calls(tables, sql, rounds)]
    parent = ScriptedChatModel(replies=[*calls, answer("两部分的答案")])
    return DelayedModel(parent=parent, latency=latency)


def delegating_model(rounds: int, latency: float) -> DelayedModel:
    """Return the model of the agent that delegates each part to a sub-agent."""
    tasks = [{"description": d, "question": q} for d, (q, _, _) in PARTS.items()]
    parent = ScriptedChatModel(replies=[call_tool("delegate", tasks=tasks), answer("两部分的答案")])
    routes = {
        question: ScriptedChatModel(replies=[*part_calls(tables, sql, rounds), answer("答案")])
        for question, tables, sql in PARTS.values()
    }
    return DelayedModel(parent=parent, routes=routes, latency=latency)


async def measure(model: DelayedModel, repeats: int, data_dir: Path) -> dict[str, float]:
    """Return the median wall time and the parent's last prompt size over `repeats` runs."""
    settings = Settings(_env_file=None, data_dir=data_dir, checkpoint_database_url="memory")
    walls = []
    async with open_agent_service(settings, model=model) as service:
        assert service.runner is not None
        for n in range(repeats):
            for script in (model.parent, *model.routes.values()):
                script.seen.clear()
            started = time.perf_counter()
            await service.runner.ask(QUESTION, f"bench:{n}")
            walls.append(time.perf_counter() - started)
    last_prompt = model.parent.seen[-1]
    chars = sum(len(str(m.content)) for m in last_prompt)
    return {
        "wall_s": sorted(walls)[len(walls) // 2],
        "parent_calls": len(model.parent.seen),
        "prompt_chars": chars,
        "prompt_tokens": chars // 4,
    }


async def compare(rounds_list: list[int], latency: float, repeats: int) -> list[str]:
    """Return the Markdown table of both sides for each number of rounds per part."""
    lines = [
        f"Model latency {latency * 1000:.0f} ms per call; median of {repeats} runs.",
        "",
        "| rounds per part | one loop: wall s | delegated: wall s | one loop: parent prompt "
        "chars (≈tokens) | delegated: parent prompt chars (≈tokens) |",
        "|---:|---:|---:|---:|---:|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for rounds in rounds_list:
            single = await measure(one_loop_model(rounds, latency), repeats, Path(tmp))
            split = await measure(delegating_model(rounds, latency), repeats, Path(tmp))
            lines.append(
                f"| {rounds} | {single['wall_s']:.2f} | {split['wall_s']:.2f} | "
                f"{single['prompt_chars']} (≈{single['prompt_tokens']}) | "
                f"{split['prompt_chars']} (≈{split['prompt_tokens']}) |"
            )
    return lines


def main() -> int:
    """Run the comparison and print its table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--rounds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    lines = asyncio.run(compare(args.rounds, args.latency_ms / 1000, args.repeats))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
