"""The sample and region 1's oracle copy on MariaDB, DuckDB and ClickHouse (chdb).

SQLite's and PostgreSQL's are in conftest.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from react_agent.sample_data.export_files import write_sample_folder
from react_agent.sample_data.load_mysql import load_into_mysql
from tests.react_agent.access.conftest import REGION_ONE, SampleCopies
from tests.support.clickhouse import load_sample, run_admin
from tests.support.mysql import run_statements, with_database


@contextmanager
def mysql_copies(server: str) -> Iterator[SampleCopies]:
    """Give the full sample and region 1's copy as two databases on `server`, then drop them."""
    names = [f"t_{uuid.uuid4().hex[:16]}" for _ in range(2)]
    full, oracle = (with_database(server, name) for name in names)
    try:
        for name, url in zip(names, (full, oracle), strict=True):
            asyncio.run(run_statements(server, f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4"))
            asyncio.run(load_into_mysql(url))
        # Orders of region 1's stores keep other regions' customer ids: no FK checks.
        asyncio.run(
            run_statements(
                oracle,
                "SET FOREIGN_KEY_CHECKS = 0",
                *REGION_ONE,
                "ALTER TABLE products DROP COLUMN unit_cost",
            )
        )
        yield SampleCopies("mysql", full, oracle)
    finally:
        for name in names:
            asyncio.run(run_statements(server, f"DROP DATABASE IF EXISTS `{name}`"))


def duckdb_copies(tmp: Path) -> SampleCopies:
    """Give the full sample and region 1's copy as two DuckDB database files in `tmp`."""
    folder = write_sample_folder(tmp / "csv")
    paths = tmp / "full.duckdb", tmp / "oracle.duckdb"
    for path in paths:
        with duckdb.connect(str(path)) as connection:
            for csv in sorted(folder.glob("*.csv")):
                source = str(csv).replace("'", "''")
                connection.execute(f"CREATE TABLE {csv.stem} AS SELECT * FROM read_csv('{source}')")
    with duckdb.connect(str(paths[1])) as connection:
        for statement in REGION_ONE:
            connection.execute(statement)
        connection.execute("ALTER TABLE products DROP COLUMN unit_cost")
    return SampleCopies("duckdb", f"duckdb:///{paths[0]}", f"duckdb:///{paths[1]}")


@contextmanager
def clickhouse_copies() -> Iterator[SampleCopies]:
    """Give the full sample (with a view) and region 1's copy as two chdb databases."""
    full, oracle = (f"t_{uuid.uuid4().hex[:12]}" for _ in range(2))
    try:
        full_url, oracle_url = load_sample(full), load_sample(oracle)
        run_admin(
            f"CREATE VIEW `{full}`.region_sales AS SELECT store_id, sum(total_amount) AS total "
            f"FROM `{full}`.orders GROUP BY store_id",
        )
        run_admin(
            *(statement.replace(" FROM ", f" FROM `{oracle}`.") for statement in REGION_ONE),
            f"CREATE TABLE `{oracle}`.kept ENGINE = MergeTree ORDER BY tuple() AS SELECT "
            f"product_id, product_name, category, unit_price FROM `{oracle}`.products",
            f"DROP TABLE `{oracle}`.products",
            f"RENAME TABLE `{oracle}`.kept TO `{oracle}`.products",
        )
        yield SampleCopies("clickhouse", full_url, oracle_url)
    finally:
        run_admin(f"DROP DATABASE IF EXISTS `{full}`", f"DROP DATABASE IF EXISTS `{oracle}`")
