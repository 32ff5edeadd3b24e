"""A federated statement takes a fair turn on each source it reads (PostgreSQL and MariaDB)."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from config import Settings
from react_agent.databases.base import QueryFailed, SQLDatabase
from react_agent.databases.fair_share import ASKER, FairShare, ShareCounts
from react_agent.databases.federation.sources import NamedSources
from react_agent.databases.gated import GatedDatabase
from react_agent.databases.open import open_named
from react_agent.errors import ServiceError
from react_agent.sample_data.load_postgres import load_into_postgres
from tests.support.waiting import eventually

# Each written with its sources in the other order: taken in that order, two of them
# could each hold one source while waiting for the other's.
SALES_THEN_FIN = (
    "SELECT count(*) AS n FROM sales.orders o JOIN fin.stores s ON s.store_id = o.store_id"
)
FIN_THEN_SALES = (
    "SELECT count(*) AS n FROM fin.stores s JOIN sales.orders o ON s.store_id = o.store_id"
)
ON_SALES = "SELECT count(*) AS n FROM sales.orders"


STARTED: list[asyncio.Task[object]] = []
"""The test's tasks, stopped before its sources close when an assertion ended it early."""


def as_user(user: str, make: Callable[[], Awaitable[object]]) -> asyncio.Task[object]:
    """Start `make()` in a task whose statements are `user`'s."""
    context = contextvars.copy_context()
    context.run(ASKER.set, user)
    task = asyncio.get_running_loop().create_task(make(), context=context)
    STARTED.append(task)
    return task


async def close(sources: NamedSources) -> None:
    """Stop the test's tasks still running, then close the sources."""
    for task in STARTED:
        task.cancel()
    await asyncio.gather(*STARTED, return_exceptions=True)
    STARTED.clear()
    await sources.aclose()


class Gates:
    """The service's gate, one slot per source, telling who waited where."""

    def __init__(self, max_wait: float = 60) -> None:
        self.max_wait = max_wait
        self.shares: dict[str, FairShare] = {}
        self.waits: list[tuple[str, str, int]] = []

    def __call__(self, database: SQLDatabase, url: str, name: str, limit: int) -> SQLDatabase:
        share = FairShare(name, 1, self.max_wait)
        self.shares[name] = share
        return GatedDatabase(database, share, self._report)

    def _report(self, source: str, ahead: int) -> None:
        self.waits.append((ASKER.get(), source, ahead))

    def idle(self) -> bool:
        return all(
            share.counts() == ShareCounts(1, 0, 0, share.counts().refused)
            for share in self.shares.values()
        )


@pytest.fixture
def sources_text(postgres_database: str, mysql_sample_url: str) -> str:
    """Give DATA_SOURCES naming the sample on PostgreSQL (sales) and MariaDB (fin)."""
    load_into_postgres(postgres_database)
    return f"sales={postgres_database};fin={mysql_sample_url}"


async def open_gated(sources_text: str, gates: Gates) -> NamedSources:
    return await open_named(Settings(data_sources=sources_text, _env_file=None), gates)


@pytest.fixture
async def gates(sources_text: str) -> AsyncIterator[tuple[NamedSources, Gates]]:
    gates = Gates()
    sources = await open_gated(sources_text, gates)
    try:
        yield sources, gates
    finally:
        await close(sources)


async def hold(sources: NamedSources, sql: str, release: asyncio.Event) -> None:
    """Keep an export of `sql` open (its turns held) until `release` is set."""
    async with sources.open_row_stream(sql, max_rows=10, timeout=30) as rows:
        await anext(rows.batches)
        await release.wait()


def statement(
    sources: NamedSources, sql: str, tag: str, served: list[str]
) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        result = await sources.run_query(sql, row_limit=1, timeout=30)
        assert result.rows[0]["n"] > 0
        served.append(tag)

    return run


async def queue(share: FairShare, user: str, make: Callable[[], Awaitable[None]]) -> asyncio.Task:
    """Start `make()` as `user` and wait until it queues on `share` (arrival order known)."""
    before = share.counts().queued
    task = as_user(user, make)
    assert await eventually(lambda: share.counts().queued == before + 1)
    return task


async def test_a_federated_statement_waits_its_fair_turn_not_behind_a_flood(gates):
    sources, gates = gates
    sales = gates.shares["sales"]
    release, served = asyncio.Event(), []
    holder = as_user("flood", lambda: hold(sources, ON_SALES, release))
    assert await eventually(lambda: sales.counts().in_use == 1)
    flood = [
        await queue(sales, "flood", statement(sources, ON_SALES, f"flood{i}", served))
        for i in range(6)
    ]
    light = await queue(sales, "light", statement(sources, SALES_THEN_FIN, "light", served))
    # It took fin's turn (the first by name), and waits on sales after one of the flood's.
    assert gates.shares["fin"].counts().in_use == 1
    assert ("light", "sales", 1) in gates.waits
    release.set()
    await asyncio.gather(holder, *flood, light)
    assert served.index("light") <= 1 and len(served) == 7
    assert gates.idle()


async def test_statements_reading_a_b_and_b_a_take_turns_in_one_order_and_all_finish(gates):
    sources, gates = gates
    sales, fin = gates.shares["sales"], gates.shares["fin"]
    release, served = asyncio.Event(), []
    holders = [
        as_user("flood", lambda: hold(sources, ON_SALES, release)),
        as_user("flood", lambda: hold(sources, "SELECT * FROM fin.stores", release)),
    ]
    assert await eventually(lambda: sales.counts().in_use == 1 and fin.counts().in_use == 1)
    on_fin = "SELECT count(*) AS n FROM fin.stores"
    tasks = [
        await queue(sales, "flood", statement(sources, ON_SALES, "flood-sales", served)),
        await queue(fin, "flood", statement(sources, on_fin, "flood-fin", served)),
        await queue(fin, "x", statement(sources, SALES_THEN_FIN, "x", served)),
        await queue(fin, "y", statement(sources, FIN_THEN_SALES, "y", served)),
    ]
    # Both wait on fin, the first by name, holding nothing of sales: no cycle can form.
    assert sales.counts().queued == 1 and fin.counts().queued == 3
    release.set()
    await asyncio.gather(*holders, *tasks)
    assert sorted(served) == ["flood-fin", "flood-sales", "x", "y"]
    assert gates.idle()


async def test_a_federated_statement_that_fails_gives_back_every_turn(gates):
    sources, gates = gates
    failing = SALES_THEN_FIN.replace("count(*)", "CAST(s.store_name AS INTEGER)")
    with pytest.raises(QueryFailed):
        await sources.run_query(failing, row_limit=1, timeout=30)
    assert gates.idle()


async def test_a_busy_source_is_named_in_the_503_and_the_turn_taken_is_given_back(sources_text):
    gates = Gates(max_wait=0)  # no wait at all: refused as soon as it would queue
    sources = await open_gated(sources_text, gates)
    release = asyncio.Event()
    try:
        holder = as_user("flood", lambda: hold(sources, ON_SALES, release))
        assert await eventually(lambda: gates.shares["sales"].counts().in_use == 1)
        with pytest.raises(ServiceError) as refused:
            await sources.run_query(SALES_THEN_FIN, row_limit=1, timeout=30)
        assert refused.value.status == 503 and refused.value.error_type == "DATA_SOURCE_BUSY"
        assert refused.value.params["source"] == "sales"
        assert gates.shares["fin"].counts().in_use == 0
        release.set()
        await holder
        assert gates.idle()
    finally:
        await close(sources)


async def test_a_cancelled_federated_statement_gives_back_every_turn(gates):
    sources, gates = gates
    sales, fin = gates.shares["sales"], gates.shares["fin"]
    release = asyncio.Event()
    holder = as_user("flood", lambda: hold(sources, ON_SALES, release))
    assert await eventually(lambda: sales.counts().in_use == 1)
    waiting = await queue(sales, "light", statement(sources, FIN_THEN_SALES, "light", []))
    assert fin.counts().in_use == 1
    waiting.cancel()  # cancelled while holding fin's turn and waiting for sales's
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert fin.counts() == ShareCounts(1, 0, 0, 0) and sales.counts().queued == 0
    release.set()
    await holder
    # Cancelled while holding both turns, its rows half read.
    streaming = as_user("light", lambda: hold(sources, SALES_THEN_FIN, asyncio.Event()))
    assert await eventually(lambda: sales.counts().in_use == 1 and fin.counts().in_use == 1)
    streaming.cancel()
    with pytest.raises(asyncio.CancelledError):
        await streaming
    assert gates.idle()
