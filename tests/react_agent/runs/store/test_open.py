"""The opener: one choice of run store, memory on SQLite and PostgreSQL beside its checkpointer."""

from __future__ import annotations

import subprocess
import sys

from react_agent.databases.postgres.pool import open_pool
from react_agent.runs.store.events import RunRecord
from react_agent.runs.store.local import InProcessRunEvents, InProcessThreadLocks
from react_agent.runs.store.open import open_run_store
from tests.react_agent.runs.store.postgres.test_events import THREAD

OPTIONS = {"ttl": 60.0, "max_run_seconds": 60.0, "pool_options": {}}


async def test_without_a_postgresql_checkpointer_every_part_is_kept_in_memory():
    async with open_run_store(None, **OPTIONS) as store:
        assert isinstance(store.events, InProcessRunEvents)
        assert isinstance(store.locks, InProcessThreadLocks)
        assert store.interrupts is None
        assert await store.thread_ids.reserve(THREAD) and await store.thread_ids.reserve(THREAD)


async def test_on_postgresql_thread_ids_and_events_are_shared_with_another_process(
    postgres_database,
):
    pool = await open_pool(postgres_database, name="opener")
    try:
        async with (
            open_run_store(pool, **OPTIONS) as here,
            open_run_store(pool, **OPTIONS) as there,
        ):
            assert here.interrupts is here.events
            assert await here.thread_ids.reserve(THREAD)
            assert not await there.thread_ids.reserve(THREAD)
            record = RunRecord("run-opened", THREAD, "wang1", "zh-CN", here.events.owner)
            await here.events.open_run(record, lambda: None)
            await here.events.append("run-opened", 1, {"n": 1})  # its row goes with it
            assert (await there.events.record("run-opened")) == record
            await here.events.finish("run-opened")
    finally:
        await pool.close()


def test_opening_the_store_on_sqlite_loads_no_postgresql_module():
    script = (
        "import asyncio, sys\n"
        "from react_agent.runs.store.open import open_run_store\n"
        "async def main():\n"
        "    async with open_run_store(None, ttl=1, max_run_seconds=1, pool_options={}):\n"
        "        pass\n"
        "asyncio.run(main())\n"
        "print([m for m in sys.modules if m.startswith('react_agent.runs.store.postgres')])\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"
