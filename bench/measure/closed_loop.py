"""A closed-loop level: `concurrency` workers each ask again as soon as their question ends."""

from __future__ import annotations

import asyncio
import itertools
import time

from bench.drivers.question import Question, Sample


async def run_level(
    ask: Question, concurrency: int, total: int, deadline: float
) -> tuple[list[Sample], float, int]:
    """Run `total` questions with `concurrency` in flight (closed loop).

    Returns the samples, the wall time, and how many questions were never finished
    because the level ran past `deadline` seconds (those count as failed).
    """
    samples: list[Sample] = []
    counter = itertools.count()

    async def worker(index: int) -> None:
        while next(counter) < total:
            samples.append(await ask(len(samples), index))

    t0 = time.perf_counter()
    tasks = [asyncio.create_task(worker(w)) for w in range(concurrency)]
    _, pending = await asyncio.wait(tasks, timeout=deadline)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    wall = time.perf_counter() - t0
    return samples, wall, total - len(samples)
