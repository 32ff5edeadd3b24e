"""Retrieval time of the memory with 10,000 stored examples: `python -m bench.memory.retrieval`.

Figures, not assertions. Fills a fresh SQLite memory (in a temporary directory) with
10,000 question→SQL examples, then times `ExampleRetriever.search` for a set of questions:
lexical (BM25) only, and lexical + vector (embeddings from the tests' OpenAI-compatible
stub on 127.0.0.1, so the vector time includes one local /v1/embeddings call per question).
The first search of each kind builds the index; its time is reported apart. The vector
search itself (no embedding call) is timed apart too, on the stub's 64-dimension vectors
and on random 1,536-dimension ones (the size of common embedding models).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from pydantic import SecretStr

from config import Settings
from react_agent.memory.examples import SQL, MemoryItem
from react_agent.memory.retrieval.vectors import VectorIndex
from react_agent.memory.store import Memory, open_memory
from tests.support.openai_stub import OpenAIStub, stub_embedding

REGIONS = ["华东", "华北", "华南", "西南", "东北", "north", "south", "east", "west"]
MEASURES = ["销售额", "订单数", "客单价", "退款", "GMV", "revenue", "orders", "customers"]
PERIODS = ["本月", "上月", "今年", "去年", "this month", "last year", "by week", "by day"]


def example(i: int, rng: random.Random) -> tuple[str, str]:
    """Return the i-th synthetic question and its SQL."""
    region, measure, period = rng.choice(REGIONS), rng.choice(MEASURES), rng.choice(PERIODS)
    question = f"{region} {measure} {period} #{i}"
    return question, f"SELECT SUM(amount) FROM orders WHERE region = '{region}' -- {i}"


async def fill(memory: Memory, count: int, *, with_embeddings: bool) -> None:
    """Insert `count` examples in a few statements (the bench is about retrieval)."""
    rng = random.Random(20261123)
    rows = []
    for i in range(count):
        question, sql = example(i, rng)
        embedding = json.dumps(stub_embedding(f"{question}\n{sql}")) if with_embeddings else None
        rows.append((f"bench-{i}", SQL, question, sql, "t", "t", embedding))
    await insert_items(memory, "embedding", rows)


async def insert_items(memory: Memory, last_column: str, rows: list[tuple]) -> None:
    """Insert memory items (id, type, question, SQL, created, updated, `last_column`)."""
    for start in range(0, len(rows), 500):
        batch = rows[start : start + 500]
        await memory.database.execute(
            "INSERT INTO memory_items (id, training_data_type, question, content, created_at, "
            f"updated_at, {last_column}) VALUES "
            + ", ".join("(?, ?, ?, ?, ?, ?, ?)" for _ in batch),
            [value for row in batch for value in row],
        )
    await memory.examples._bump_revision()


async def measure(settings: Settings, count: int, questions: int, vector: bool) -> dict:
    """Return the first-search and per-question timings of one kind of retrieval."""
    rng = random.Random(7)
    async with open_memory(settings) as memory:
        await fill(memory, count, with_embeddings=vector)
        started = time.perf_counter()
        await memory.retriever.search("华东 销售额 本月")
        first = time.perf_counter() - started
        times = []
        for _ in range(questions):
            query = f"{rng.choice(REGIONS)}的{rng.choice(MEASURES)} {rng.choice(PERIODS)}"
            started = time.perf_counter()
            found = await memory.retriever.search(query)
            times.append(time.perf_counter() - started)
            assert found, query
    times.sort()
    return {
        "examples": count,
        "questions": questions,
        "index_build_and_first_search_ms": round(first * 1000, 1),
        "p50_ms": round(statistics.median(times) * 1000, 2),
        "p95_ms": round(times[int(len(times) * 0.95) - 1] * 1000, 2),
    }


def percentiles(times: list[float]) -> dict:
    """Return p50 and p95 of times in seconds, in milliseconds."""
    times = sorted(times)
    return {
        "p50_ms": round(statistics.median(times) * 1000, 2),
        "p95_ms": round(times[max(int(len(times) * 0.95) - 1, 0)] * 1000, 2),
    }


def vector_search_times(count: int, questions: int, dimensions: int) -> dict:
    """Time VectorIndex.search alone over `count` random unit vectors."""
    rng = np.random.default_rng(11)
    vectors = rng.standard_normal((count, dimensions)).astype(np.float32)
    items = [
        MemoryItem(f"v{i}", SQL, "q", "SELECT 1", embedding=json.dumps(vector.tolist()))
        for i, vector in enumerate(vectors)
    ]
    started = time.perf_counter()
    index = VectorIndex(items)
    built = time.perf_counter() - started
    times = []
    for query in rng.standard_normal((questions, dimensions)).tolist():
        started = time.perf_counter()
        index.search(query, 50)
        times.append(time.perf_counter() - started)
    return {"dimensions": dimensions, "matrix_build_ms": round(built * 1000), **percentiles(times)}


async def run(count: int, questions: int) -> dict:
    """Measure lexical, then lexical + vector retrieval, each on a fresh database."""
    results = {}
    with tempfile.TemporaryDirectory() as directory, OpenAIStub() as stub:
        for kind, vector in (("lexical", False), ("lexical+vector", True)):
            settings = Settings(
                _env_file=None,
                data_dir=Path(directory) / kind,
                checkpoint_database_url="memory",
                embedding_model="stub-embedding" if vector else None,
                openai_base_url=stub.base_url,
                openai_api_key=SecretStr("bench"),
            )
            results[kind] = await measure(settings, count, questions, vector)
    results["vector_search_only"] = [
        vector_search_times(count, questions, dimensions) for dimensions in (64, 1536)
    ]
    return results


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
