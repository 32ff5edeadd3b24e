"""One catalogue build for N workers: the first claims it, the others read it from memory."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest

from react_agent.catalog.service import CatalogService
from react_agent.catalog.store import CatalogStore
from react_agent.databases.open import open_database
from react_agent.memory.database import open_memory_database
from react_agent.memory.migrations import migrate_memory
from react_agent.sample_data import SAMPLE_DATABASE_URL

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(params=["sqlite", "postgres"])
def memory_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return request.getfixturevalue("postgres_database")
    return f"sqlite:///{tmp_path / 'memory.db'}"


async def test_two_workers_starting_together_build_the_catalogue_once(memory_url):
    # Each "worker" has its own data and memory connections, as two processes would.
    workers = []
    for _ in range(2):
        memory = await open_memory_database(memory_url)
        await migrate_memory(memory)
        data = await open_database(SAMPLE_DATABASE_URL)
        catalog = CatalogService(data, CatalogStore(memory, "sample"), revision_ttl=0.0)
        workers.append((memory, data, catalog))
    try:
        for _, _, catalog in workers:
            catalog.start()
        snapshots = await asyncio.gather(*(catalog.wait_ready() for _, _, catalog in workers))

        assert sorted(catalog.builds for _, _, catalog in workers) == [0, 1]
        assert snapshots[0].catalog == snapshots[1].catalog
        assert await workers[0][2].store.revision() == 1

        # A refresh on one worker is what the other reads next (here with no revision TTL).
        builder, reader = workers[0][2], workers[1][2]
        await builder.refresh(force=True)
        await reader.current()
        assert reader.revision == builder.revision == 2
        assert reader.builds + builder.builds == 2
    finally:
        for memory, data, catalog in workers:
            await catalog.aclose()
            await data.aclose()
            await memory.aclose()


async def test_a_restarted_worker_reuses_a_fresh_build(tmp_path):
    memory = await open_memory_database(f"sqlite:///{tmp_path / 'memory.db'}")
    await migrate_memory(memory)
    data = await open_database(SAMPLE_DATABASE_URL)
    try:
        first = CatalogService(data, CatalogStore(memory, "sample"))
        await first.refresh(force=False)
        second = CatalogService(data, CatalogStore(memory, "sample"))
        snapshot = await second.refresh(force=False)

        assert (first.builds, second.builds) == (1, 0)
        assert snapshot.catalog == first.snapshot.catalog
    finally:
        await data.aclose()
        await memory.aclose()


WORKER_SCRIPT = """
import asyncio, json, sys
from react_agent.catalog.service import CatalogService
from react_agent.catalog.store import CatalogStore
from react_agent.databases.open import open_database
from react_agent.memory.database import open_memory_database
from react_agent.memory.migrations import migrate_memory
from react_agent.sample_data import SAMPLE_DATABASE_URL

async def main():
    memory = await open_memory_database(sys.argv[1])
    await migrate_memory(memory)
    data = await open_database(SAMPLE_DATABASE_URL)
    catalog = CatalogService(data, CatalogStore(memory, "sample"))
    print("started", flush=True)
    sys.stdin.readline()  # both processes start building at the same moment
    catalog.start()
    snapshot = await catalog.wait_ready()
    print(json.dumps({"builds": catalog.builds, "tables": len(snapshot.catalog.tables)}))
    await catalog.aclose(); await data.aclose(); await memory.aclose()

asyncio.run(main())
"""


async def test_two_processes_share_one_build(postgres_database):
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            WORKER_SCRIPT,
            postgres_database,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        for _ in range(2)
    ]
    for process in processes:
        assert (await process.stdout.readline()).strip() == b"started"
    for process in processes:
        process.stdin.write(b"go\n")
        await process.stdin.drain()
    outputs = [json.loads((await process.communicate())[0]) for process in processes]

    assert sorted(output["builds"] for output in outputs) == [0, 1]
    assert [output["tables"] for output in outputs] == [6, 6]


async def test_a_worker_waiting_for_a_failed_build_takes_it_over(tmp_path):
    memory = await open_memory_database(f"sqlite:///{tmp_path / 'memory.db'}")
    await migrate_memory(memory)
    data = await open_database(SAMPLE_DATABASE_URL)
    try:
        store = CatalogStore(memory, "sample")
        # Another worker claimed the build, then gave it back after failing.
        assert await store.claim("other", time.time(), fresh_seconds=60, stuck_seconds=600)
        waiting = CatalogService(data, CatalogStore(memory, "sample"))
        waiter = asyncio.create_task(waiting.refresh(force=False))
        await store.release("other")
        snapshot = await waiter

        assert waiting.builds == 1 and len(snapshot.catalog.tables) == 6
        assert (await store.read()).status == "ready"
    finally:
        await data.aclose()
        await memory.aclose()
