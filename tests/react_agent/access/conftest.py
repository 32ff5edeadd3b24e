"""The sample data for the access tests: as it is (plus a view), and as region 1 sees it."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from react_agent.sample_data import SAMPLE_DB_PATH
from react_agent.sample_data.load_postgres import load_into_postgres
from tests.support.mysql import REQUIRE_ENV, mysql_server
from tests.support.postgres import create_test_database, drop_test_database
from tests.support.requirements import skip_or_fail

POLICY_FILE = Path(__file__).resolve().parents[3] / "config" / "policy.sample.yaml"
"""The sample policy; its east_analyst reads region 1 only, without products.unit_cost."""

VIEW = (
    "CREATE VIEW region_sales AS "
    "SELECT store_id, sum(total_amount) AS total FROM orders GROUP BY store_id"
)
# What east_analyst may see, as plain data: the oracle a scoped query must match.
REGION_ONE = [
    "DELETE FROM order_items WHERE order_id IN (SELECT order_id FROM orders WHERE store_id IN "
    "(SELECT store_id FROM stores WHERE region_id <> 1))",
    "DELETE FROM orders WHERE store_id IN (SELECT store_id FROM stores WHERE region_id <> 1)",
    "DELETE FROM customers WHERE region_id <> 1",
    "DELETE FROM stores WHERE region_id <> 1",
    "DELETE FROM regions WHERE region_id <> 1",
]
SQLITE_DROP_COST = [
    "CREATE TABLE products_kept AS "
    "SELECT product_id, product_name, category, unit_price FROM products",
    "DROP TABLE products",
    "ALTER TABLE products_kept RENAME TO products",
]


@dataclass(frozen=True)
class SampleCopies:
    """URLs of the full sample (with a view) and of region 1's oracle copy."""

    dialect: str
    full: str
    oracle: str


def sqlite_copies(tmp: Path) -> SampleCopies:
    """Give the full sample (with a view) and region 1's copy as two SQLite files in `tmp`."""
    full, oracle = tmp / "full.db", tmp / "oracle.db"
    for path in (full, oracle):
        shutil.copyfile(SAMPLE_DB_PATH, path)
    with sqlite3.connect(full) as connection:
        connection.execute(VIEW)
    with sqlite3.connect(oracle) as connection:
        for statement in [*REGION_ONE, *SQLITE_DROP_COST]:
            connection.execute(statement)
    return SampleCopies("sqlite", f"sqlite:///{full}", f"sqlite:///{oracle}")


@contextmanager
def postgres_copies(server: str) -> Iterator[SampleCopies]:
    """Give the full sample and region 1's copy as two databases on `server`, then drop them."""
    full, oracle = create_test_database(server), create_test_database(server)
    try:
        for url in (full, oracle):
            load_into_postgres(url)
        with psycopg.connect(full, autocommit=True) as connection:
            connection.execute(VIEW)
        with psycopg.connect(oracle, autocommit=True) as connection:
            # Orders of region 1's stores keep other regions' customer ids: no FK checks.
            connection.execute("SET session_replication_role = replica")
            for statement in REGION_ONE:
                connection.execute(statement)
            connection.execute("ALTER TABLE products DROP COLUMN unit_cost")
        yield SampleCopies("postgres", full, oracle)
    finally:
        drop_test_database(full)
        drop_test_database(oracle)


@pytest.fixture(scope="module", params=["sqlite", "postgres", "mysql", "duckdb", "clickhouse"])
def sample_copies(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SampleCopies]:
    """Give the full sample and region 1's copy on each engine that runs here.

    ClickHouse is the embedded chdb engine (tests/support/clickhouse.py).
    """
    # Imported here: engine_copies builds on this module's REGION_ONE and SampleCopies.
    from tests.react_agent.access.engine_copies import (
        clickhouse_copies,
        duckdb_copies,
        mysql_copies,
    )

    if request.param == "sqlite":
        yield sqlite_copies(tmp_path_factory.mktemp("access"))
    elif request.param == "duckdb":
        yield duckdb_copies(tmp_path_factory.mktemp("access"))
    elif request.param == "clickhouse":
        with clickhouse_copies() as copies:
            yield copies
    elif request.param == "postgres":
        with postgres_copies(request.getfixturevalue("postgres_url")) as copies:
            yield copies
    else:
        server, reason = mysql_server()
        skip_or_fail(reason if server is None else None, REQUIRE_ENV)
        assert server is not None
        with mysql_copies(server) as copies:
            yield copies
