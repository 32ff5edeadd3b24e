"""Retrieval with a reviewed memory: `python -m bench.memory.review`.

Figures, not assertions. Times `ExampleRetriever.search` (lexical) over 10,000 verified
examples alone (as many as bench.memory.retrieval serves today, where every example is served), then
over the same 10,000 plus 10,000 proposed ones: only the verified are indexed, so the
second should be no slower, and no proposed example may be served.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from bench.memory.retrieval import (
    MEASURES,
    PERIODS,
    REGIONS,
    example,
    insert_items,
    percentiles,
)
from config import Settings
from react_agent.memory.examples import SQL
from react_agent.memory.store import Memory, open_memory


async def fill(memory: Memory, count: int, status: str, offset: int) -> None:
    """Insert `count` examples with `status` in a few statements."""
    rng = random.Random(20261125 + offset)
    rows = []
    for i in range(offset, offset + count):
        question, sql = example(i, rng)
        rows.append((f"bench-{i}", SQL, question, sql, "t", "t", status))
    await insert_items(memory, "status", rows)


async def measure(directory: Path, verified: int, proposed: int, questions: int) -> dict:
    """Return index build and search times, and how many proposed items were served."""
    settings = Settings(
        _env_file=None, data_dir=directory, checkpoint_database_url="memory", embedding_model=None
    )
    rng = random.Random(7)
    async with open_memory(settings) as memory:
        await fill(memory, verified, "verified", 0)
        await fill(memory, proposed, "proposed", verified)
        started = time.perf_counter()
        await memory.retriever.search("华东 销售额 本月")
        first = time.perf_counter() - started
        times, served_proposed = [], 0
        for _ in range(questions):
            query = f"{rng.choice(REGIONS)}的{rng.choice(MEASURES)} {rng.choice(PERIODS)}"
            started = time.perf_counter()
            found = await memory.retriever.search(query)
            times.append(time.perf_counter() - started)
            served_proposed += sum(item.status != "verified" for item in found)
        indexed = len(memory.retriever._lexical.items)
    return {
        "verified": verified,
        "proposed": proposed,
        "indexed": indexed,
        "served_proposed": served_proposed,
        "index_build_and_first_search_ms": round(first * 1000, 1),
        **percentiles(times),
    }


async def run(count: int, questions: int) -> dict:
    """Measure verified only, then verified + as many proposed, each on a fresh database."""
    with tempfile.TemporaryDirectory() as directory:
        return {
            "verified_only": await measure(Path(directory) / "a", count, 0, questions),
            "verified_and_proposed": await measure(Path(directory) / "b", count, count, questions),
            "load_average": os.getloadavg(),
        }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=10_000)
    parser.add_argument("--questions", type=int, default=200)
    args = parser.parse_args(argv)
    print(json.dumps(asyncio.run(run(args.examples, args.questions)), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
