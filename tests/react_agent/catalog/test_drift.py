"""Schema drift: a refresh marks examples whose SQL reads a vanished name stale, and un-marks."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from react_agent.catalog.drift import mark_drifted_examples
from react_agent.catalog.service import CatalogService
from react_agent.catalog.store import CatalogStore
from react_agent.databases.sqlite.engine import SQLiteDatabase
from react_agent.memory.database import open_memory_database
from react_agent.memory.examples import SQL, ExampleStore
from react_agent.memory.migrations import migrate_memory
from react_agent.memory.retrieval.retriever import ExampleRetriever

REGION_SQL = "SELECT region, SUM(amount) AS total FROM orders GROUP BY region ORDER BY total"
CITY_SQL = "SELECT city, COUNT(*) FROM shops GROUP BY city"


def change(path: Path, *statements: str) -> None:
    with sqlite3.connect(path) as connection:
        for statement in statements:
            connection.execute(statement)


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[tuple[Path, CatalogService, ExampleStore]]:
    data_path = tmp_path / "data.db"
    change(
        data_path,
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, region TEXT, amount REAL)",
        "CREATE TABLE shops (id INTEGER PRIMARY KEY, city TEXT)",
    )
    memory = await open_memory_database(f"sqlite:///{tmp_path / 'memory.db'}")
    await migrate_memory(memory)
    examples = ExampleStore(memory)

    async def check(previous, current):
        await mark_drifted_examples(examples, previous, current)

    catalog = CatalogService(
        SQLiteDatabase(data_path), CatalogStore(memory, "data"), on_built=check
    )
    try:
        yield data_path, catalog, examples
    finally:
        await memory.aclose()


async def test_a_dropped_column_makes_its_examples_stale_until_it_comes_back(world):
    data_path, catalog, examples = world
    region = await examples.add(SQL, "各地区销售额", REGION_SQL)
    city = await examples.add(SQL, "每个城市的门店数", CITY_SQL)
    retriever = ExampleRetriever(examples, k=5, budget_chars=4000, revision_ttl=0.0)
    await catalog.refresh()
    assert not (await examples.get(region.id)).stale  # the first build compares with nothing

    change(data_path, "ALTER TABLE orders DROP COLUMN amount")
    await catalog.refresh()

    stale = await examples.get(region.id)
    assert stale.stale and stale.stale_reason == "gone: orders.amount not in the database"
    assert stale.as_record()["stale"] is True
    assert stale.as_record()["stale_reason"] == stale.stale_reason
    assert not (await examples.get(city.id)).stale
    assert await examples.count_stale() == 1
    assert [item.id for item in await retriever.search("销售额 地区")] == []

    change(data_path, "ALTER TABLE orders ADD COLUMN amount REAL")
    await catalog.refresh()

    assert not (await examples.get(region.id)).stale
    assert (await examples.get(region.id)).stale_reason is None
    assert [item.id for item in await retriever.search("销售额 地区")] == [region.id]


async def test_a_dropped_table_and_a_changed_type_are_reasons_too(world):
    data_path, catalog, examples = world
    city = await examples.add(SQL, "每个城市的门店数", CITY_SQL)
    region = await examples.add(SQL, "各地区销售额", REGION_SQL)
    await catalog.refresh()

    change(
        data_path,
        "DROP TABLE shops",
        "ALTER TABLE orders RENAME COLUMN amount TO amount_old",
        "ALTER TABLE orders ADD COLUMN amount TEXT",
    )
    await catalog.refresh()

    assert (await examples.get(city.id)).stale_reason == "gone: shops not in the database"
    assert (await examples.get(region.id)).stale_reason == (
        "changed: type of orders.amount REAL -> TEXT"
    )
    # Editing the example lifts the mark; the next refresh judges the new SQL.
    await examples.update(
        region.id, SQL, "各地区销售额", REGION_SQL.replace("amount", "amount_old")
    )
    await catalog.refresh()
    assert not (await examples.get(region.id)).stale
