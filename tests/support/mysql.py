"""MySQL/MariaDB for tests: find the server and hand out throwaway databases."""

from __future__ import annotations

import asyncio
import functools
import os
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import asyncmy
import pytest

from react_agent.databases.mysql.connection import connect_options
from react_agent.sample_data.load_mysql import load_into_mysql
from tests.support.requirements import skip_or_fail

DEFAULT_SERVER_URL = "mysql://root@127.0.0.1:3306/test"
SERVER_URL_ENV = "TEST_MYSQL_URL"
# "1" turns "no MySQL server" from a skip into a failure, e.g. in CI.
REQUIRE_ENV = "REQUIRE_MYSQL"


async def run_statements(url: str, *statements: str) -> list[list[tuple[object, ...]]]:
    """Run statements on their own autocommit connection; return each one's rows."""
    connection = await asyncmy.connect(**connect_options(url, connect_timeout=3))
    results = []
    try:
        async with connection.cursor() as cursor:
            for statement in statements:
                await cursor.execute(statement)
                results.append(list(await cursor.fetchall()))
    finally:
        await connection.ensure_closed()
    return results


@functools.cache
def mysql_server() -> tuple[str | None, str]:
    """Return (server URL, "") when a server answers, else (None, why not)."""
    url = os.environ.get(SERVER_URL_ENV, "").strip() or DEFAULT_SERVER_URL
    try:
        asyncio.run(run_statements(url, "SELECT 1"))
    except Exception as exc:
        return None, f"no MySQL/MariaDB server at {url}: {exc}"
    return url, ""


def with_database(url: str, database: str) -> str:
    """Return `url` naming another database on the same server."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{database}"))


@pytest.fixture
def mysql_server_url() -> str:
    """Give the server's URL; skip (or fail with REQUIRE_MYSQL=1) when there is none."""
    url, reason = mysql_server()
    skip_or_fail(reason if url is None else None, REQUIRE_ENV)
    assert url is not None
    return url


@pytest.fixture
def mysql_database(mysql_server_url: str) -> Iterator[str]:
    """Give the URL of an empty utf8mb4 database of this test's own, dropped afterwards."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    asyncio.run(run_statements(mysql_server_url, f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4"))
    try:
        yield with_database(mysql_server_url, name)
    finally:
        asyncio.run(run_statements(mysql_server_url, f"DROP DATABASE IF EXISTS `{name}`"))


@pytest.fixture
def mysql_sample_url(mysql_database: str) -> str:
    """Give a throwaway database holding the sample sales data."""
    asyncio.run(load_into_mysql(mysql_database))
    return mysql_database
