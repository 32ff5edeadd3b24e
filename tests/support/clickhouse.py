"""ClickHouse for the tests: the embedded chdb engine, one folder per test process.

chdb runs one engine per process, over one folder: every test database lives in that
folder as a ClickHouse database of its own (a unique name each), reached through a
`chdb:///folder?database=name` URL — the same engine class a `clickhouse://` server gets.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import clickhouse_connect

from react_agent.sample_data import SAMPLE_DB_PATH
from react_agent.sample_data.dataset import TABLES


@cache
def chdb_folder() -> Path:
    """Return this process's chdb folder (removed when the process ends)."""
    folder = Path(tempfile.mkdtemp(prefix="chdb-tests-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def run_admin(*statements: str) -> list[list[tuple]]:
    """Run statements as chdb's default user (no read-only settings); return their rows."""
    client = clickhouse_connect.get_client(dsn=f"chdb://{chdb_folder()}")
    try:
        return [list(map(tuple, client.query(sql).result_rows)) for sql in statements]
    finally:
        client.close()


def chdb_url(database: str) -> str:
    """Return the data URL of one database of this process's chdb engine."""
    return f"chdb://{chdb_folder()}?database={database}"


def load_sample(database: str) -> str:
    """Create `database` holding the SQLite sample's tables (MergeTree); return its URL."""
    statements = [f"CREATE DATABASE `{database}`"]
    for table in TABLES:
        statements.append(
            f"CREATE TABLE `{database}`.`{table.name}` ENGINE = MergeTree ORDER BY tuple() "
            f"AS SELECT * FROM sqlite('{SAMPLE_DB_PATH}', '{table.name}')"
        )
    run_admin(*statements)
    return chdb_url(database)


@contextmanager
def sample_database() -> Iterator[str]:
    """Give a fresh database holding the sample, dropped afterwards."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    try:
        yield load_sample(name)
    finally:
        run_admin(f"DROP DATABASE IF EXISTS `{name}`")
