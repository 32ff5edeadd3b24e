"""The sample data on each engine here, opened by the native engine and by the generic one.

`sample_database`: SQLite and PostgreSQL, native and generic (the suites that used it
before the generic engine). `engine_database`: also MariaDB and a DuckDB file; the generic
engine on DuckDB needs duckdb_engine (`pip install ".[dev]"`) and is skipped without it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator
from pathlib import Path

import duckdb
import pytest

from react_agent.databases.base import SQLDatabase
from react_agent.databases.open import open_database
from react_agent.sample_data import SAMPLE_DATABASE_URL
from react_agent.sample_data.export_files import write_sample_folder
from react_agent.sample_data.load_postgres import load_into_postgres

ENGINES = ("native", "generic")


def duckdb_sample_url(folder: Path) -> str:
    """Write the sample into a DuckDB database file in `folder`; return its duckdb:/// URL."""
    csvs = write_sample_folder(folder / "csv")
    path = folder / "sample.duckdb"
    with duckdb.connect(str(path)) as connection:
        for csv in sorted(csvs.glob("*.csv")):
            source = str(csv).replace("'", "''")
            connection.execute(f"CREATE TABLE {csv.stem} AS SELECT * FROM read_csv('{source}')")
    return f"duckdb:///{path}"


def sample_url(request: pytest.FixtureRequest, kind: str) -> str:
    """Return a URL holding the sample on `kind`'s server (a fresh database for servers)."""
    if kind == "sqlite":
        return SAMPLE_DATABASE_URL
    if kind == "postgres":
        url = request.getfixturevalue("postgres_database")
        load_into_postgres(url)
        return url
    if kind == "mariadb":
        return request.getfixturevalue("mysql_sample_url")
    return duckdb_sample_url(request.getfixturevalue("tmp_path"))


def sample_on(request: pytest.FixtureRequest) -> tuple[str, str | None]:
    """Return the URL and engine of the fixture's param, `kind` or `kind-generic`.

    Synchronous, so the MariaDB fixtures it asks for run outside the event loop.
    """
    kind, _, engine = request.param.partition("-")
    if engine == "generic" and kind == "duckdb" and not importlib.util.find_spec("duckdb_engine"):
        pytest.skip("duckdb_engine is not installed (pip install '.[dev]')")
    return sample_url(request, kind), engine or None


async def opened(url: str, engine: str | None) -> SQLDatabase:
    """Open the sample with a pool of four (where the engine pools)."""
    return await open_database(url, engine=engine, max_size=4, connect_timeout=5)


@pytest.fixture(params=["sqlite", "postgres", "sqlite-generic", "postgres-generic"])
def sample_on_engine(request: pytest.FixtureRequest) -> tuple[str, str | None]:
    """Give the sample's URL on SQLite and PostgreSQL, with the native or generic engine."""
    return sample_on(request)


@pytest.fixture
async def sample_database(sample_on_engine: tuple[str, str | None]) -> AsyncIterator[SQLDatabase]:
    """Yield the sample data opened read-only on SQLite and PostgreSQL, native and generic."""
    database = await opened(*sample_on_engine)
    try:
        yield database
    finally:
        await database.aclose()


@pytest.fixture(
    params=[
        f"{kind}{suffix}"
        for kind in ("sqlite", "postgres", "mariadb", "duckdb")
        for suffix in ("", "-generic")
    ]
)
def every_engine_sample(request: pytest.FixtureRequest) -> tuple[str, str | None]:
    """Give the sample's URL on every engine that runs here, native and generic."""
    return sample_on(request)


@pytest.fixture
async def engine_database(
    every_engine_sample: tuple[str, str | None],
) -> AsyncIterator[SQLDatabase]:
    """Yield the sample data on every engine that runs here, native and generic."""
    database = await opened(*every_engine_sample)
    try:
        yield database
    finally:
        await database.aclose()
