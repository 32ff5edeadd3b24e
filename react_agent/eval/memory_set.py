"""A golden set grown from production: the memory's verified question→SQL examples."""

from __future__ import annotations

from pathlib import Path

from config import Settings
from react_agent.eval.golden import GoldenQuestion, write_golden_set
from react_agent.memory.examples import SQL, VERIFIED
from react_agent.memory.store import Memory, open_memory


async def memory_golden_set(memory: Memory) -> list[GoldenQuestion]:
    """Return one golden question per verified `sql` example, oldest first."""
    items = sorted(await memory.examples.all_items((VERIFIED,)), key=lambda i: i.created_at)
    return [
        GoldenQuestion(
            id=f"memory-{item.id}",
            turns=(item.question,),
            gold_sql=item.content,
            tags=("memory",),
            difficulty="unknown",
        )
        for item in items
        if item.training_data_type == SQL and item.question
    ]


async def write_memory_golden_set(settings: Settings, path: Path) -> int:
    """Write the memory's verified examples as a golden set; return how many."""
    async with open_memory(settings) as memory:
        return write_golden_set(path, await memory_golden_set(memory))
