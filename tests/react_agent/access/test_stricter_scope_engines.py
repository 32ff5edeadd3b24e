"""The stricter scope of a resumed question on every engine: both filters hold, values bound.

The stored scope (region 1, as when the question paused) and the policy's scope now are
combined by `stricter_scope`; each query runs through the executor on SQLite, PostgreSQL,
MariaDB and DuckDB and must return exactly the stores an oracle keeps: the sample's
stores filtered, in Python, by both predicates.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import duckdb
import pytest

from react_agent.access.scope import Scope
from react_agent.access.scoping.executor import run_in_scope
from react_agent.access.stricter import stricter_scope
from react_agent.databases.base import SQLDatabase
from react_agent.databases.open import open_database
from react_agent.sample_data import SAMPLE_DATABASE_URL, SAMPLE_DB_PATH
from react_agent.sample_data.load_postgres import load_into_postgres

STORED = Scope(
    tables=frozenset({"stores", "regions"}),
    row_filters={"stores": "region_id = :region_id"},
    parameters={"region_id": 1},
)
Row = tuple[int, int]
CHANGES: list[tuple[str, Scope, Callable[[Row], bool]]] = [
    # (the policy now, the rows it keeps on its own: (store_id, region_id))
    (
        "moved to region 2",
        Scope(row_filters={"stores": "region_id = :region_id"}, parameters={"region_id": 2}),
        lambda row: row[1] == 2,
    ),
    ("every region", Scope(), lambda row: True),
    (
        "two stores of its region",
        Scope(
            row_filters={"stores": "region_id = :region_id AND store_id <= :top"},
            parameters={"region_id": 1, "top": 2},
        ),
        lambda row: row[1] == 1 and row[0] <= 2,
    ),
    (
        "another column",
        Scope(row_filters={"stores": "store_id > :low"}, parameters={"low": 3}),
        lambda row: row[0] > 3,
    ),
    (
        "regions 1 and 3, as a list",
        Scope(row_filters={"stores": "region_id IN (1, 3)"}),
        lambda row: row[1] in (1, 3),
    ),
]
QUERIES = {
    "SELECT store_id, region_id FROM stores": lambda rows: sorted(rows),
    "SELECT count(*) AS n FROM stores": lambda rows: [(len(rows),)],
    "SELECT s.store_id FROM stores s JOIN regions r ON r.region_id = s.region_id": (
        lambda rows: sorted((row[0],) for row in rows)
    ),
    "SELECT store_id FROM stores WHERE store_id IN (SELECT store_id FROM stores)": (
        lambda rows: sorted((row[0],) for row in rows)
    ),
}


def sample_stores() -> list[Row]:
    with sqlite3.connect(SAMPLE_DB_PATH) as connection:
        return list(connection.execute("SELECT store_id, region_id FROM stores"))


def duckdb_copy(path: Path) -> str:
    with duckdb.connect(str(path)) as connection:
        connection.execute("CREATE TABLE regions (region_id INTEGER, region_name VARCHAR)")
        connection.execute("CREATE TABLE stores (store_id INTEGER, region_id INTEGER)")
        with sqlite3.connect(SAMPLE_DB_PATH) as source:
            regions = list(source.execute("SELECT region_id, region_name FROM regions"))
        connection.executemany("INSERT INTO regions VALUES (?, ?)", regions)
        connection.executemany("INSERT INTO stores VALUES (?, ?)", sample_stores())
    return f"duckdb:///{path}"


@pytest.fixture(params=["sqlite", "postgres", "mysql", "duckdb"])
def engine_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Return the sample on one engine (the MySQL fixtures run their own event loop)."""
    if request.param == "sqlite":
        return SAMPLE_DATABASE_URL
    if request.param == "postgres":
        url = request.getfixturevalue("postgres_database")
        load_into_postgres(url)
        return url
    if request.param == "mysql":
        return request.getfixturevalue("mysql_sample_url")
    return duckdb_copy(tmp_path / "sample.duckdb")


@pytest.fixture
async def engine(engine_url: str) -> AsyncIterator[SQLDatabase]:
    database = await open_database(engine_url, connect_timeout=5)
    try:
        yield database
    finally:
        await database.aclose()


@pytest.mark.parametrize("change", CHANGES, ids=[c[0] for c in CHANGES])
async def test_a_resumed_scope_reads_only_what_both_scopes_keep(engine, change):
    _, current, keeps = change
    both = stricter_scope(STORED, current)
    oracle_rows = [row for row in sample_stores() if row[1] == 1 and keeps(row)]
    for sql, expected in QUERIES.items():
        scoped, result = await run_in_scope(engine, sql, both, None, row_limit=1000, timeout=10)
        got = sorted(tuple(int(value) for value in row.values()) for row in result.rows)
        assert got == expected(oracle_rows), (engine.dialect, sql, scoped.sql)
        # Both values of region_id travel as bound parameters, never in the text.
        assert ":paused_region_id" not in scoped.sql and 1 in scoped.params.values()
