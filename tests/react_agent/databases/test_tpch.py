"""The 22 TPC-H queries through the agent on every engine here, native and generic.

DuckDB's tpch extension (the `duckdb-extension-tpch` package's file) makes the data at
scale 0.01 and the queries; the data is copied into SQLite, PostgreSQL and MariaDB, and
each query, transpiled to the engine's dialect, is asked through the agent (a scripted
model calls run_sql with it) and compared with what the engine answers to the same SQL
through its own driver, row by row, in order.
"""

from __future__ import annotations

import importlib.util
import math
import sqlite3
from typing import Any

import duckdb
import psycopg
import pymysql
import pytest

from config import Settings
from react_agent.databases.mysql.connection import connect_options
from react_agent.databases.records import to_json_value
from react_agent.databases.urls import sqlite_path_from_url
from react_agent.service import open_agent_service
from tests.support import tpch
from tests.support.scripted_model import ScriptedChatModel, answer, call_tool

pytestmark = [
    pytest.mark.slow,  # 22 questions per engine, and a copy of the data into each
    pytest.mark.skipif(tpch.extension_file() is None, reason="duckdb-extension-tpch missing"),
]
DIALECTS = {"sqlite": "sqlite", "postgres": "postgres", "mariadb": "mysql", "duckdb": "duckdb"}


@pytest.fixture(scope="module")
def tpch_data(tmp_path_factory: pytest.TempPathFactory) -> tpch.TPCH:
    return tpch.generate(tmp_path_factory.mktemp("tpch"))


@pytest.fixture(params=[f"{kind}{suffix}" for kind in DIALECTS for suffix in ("", "-generic")])
def tpch_on_engine(request: pytest.FixtureRequest, tpch_data, tmp_path) -> tuple[str, str, str]:
    """Give (URL, DATA_ENGINE, kind) of the TPC-H data on the param's engine."""
    kind, _, engine = request.param.partition("-")
    if engine == "generic" and kind == "duckdb" and not importlib.util.find_spec("duckdb_engine"):
        pytest.skip("duckdb_engine is not installed (pip install '.[dev]')")
    if kind == "sqlite":
        url = tpch.load_sqlite(tpch_data, tmp_path / "tpch.db")
    elif kind == "postgres":
        url = tpch.load_postgres(tpch_data, request.getfixturevalue("postgres_database"))
    elif kind == "mariadb":
        url = tpch.load_mysql(tpch_data, request.getfixturevalue("mysql_database"))
    else:
        url = f"duckdb:///{tpch_data.path}"
    return url, engine or "native", kind


def own_answer(url: str, kind: str, sql: str) -> list[list[Any]]:
    """Return what the engine answers to `sql` through its own driver, as JSON values."""
    if kind == "sqlite":
        with sqlite3.connect(sqlite_path_from_url(url)) as connection:
            rows = connection.execute(sql).fetchall()
    elif kind == "postgres":
        with psycopg.connect(url) as connection:
            rows = connection.execute(sql).fetchall()
    elif kind == "mariadb":
        options = connect_options(url, connect_timeout=5)
        connection = pymysql.connect(
            host=options["host"],
            port=options["port"],
            user=options["user"],
            password=options["password"],
            database=options["db"],
        )
        with connection, connection.cursor() as cursor:
            cursor.execute(sql)
            rows = list(cursor.fetchall())
    else:
        with duckdb.connect(url.removeprefix("duckdb:///"), read_only=True) as connection:
            rows = connection.execute(sql).fetchall()
    return [[to_json_value(value) for value in row] for row in rows]


def same(got: list[Any], expected: list[Any]) -> bool:
    return len(got) == len(expected) and all(
        math.isclose(a, b, rel_tol=1e-9)
        if isinstance(a, float) and isinstance(b, float)
        else a == b
        for a, b in zip(got, expected, strict=True)
    )


async def test_the_22_tpch_queries_answer_through_the_agent_as_the_engine_does(
    tpch_on_engine, tpch_data, settings: Settings
):
    url, engine, kind = tpch_on_engine
    queries = [
        (number, tpch.in_dialect(query, DIALECTS[kind])) for number, query in tpch_data.queries
    ]
    replies = []
    for number, sql in queries:
        replies += [call_tool("run_sql", sql=sql), answer(f"Q{number}")]
    on_engine = settings.model_copy(
        update={
            "data_database_url": url,
            "data_engine": engine,
            "sql_row_limit": 1000,
            "sql_timeout": 60.0,
        }
    )
    expected_rows = {number: own_answer(url, kind, sql) for number, sql in queries}
    mismatches = []
    async with open_agent_service(on_engine, model=ScriptedChatModel(replies=replies)) as service:
        assert service.problems == {}
        assert service.database.dialect == DIALECTS[kind]
        for number, sql in queries:
            result = await service.runner.ask(f"TPC-H Q{number}", f"tpch:q{number}")
            got = [list(row.values()) for row in (result.records or {}).get("rows", [])]
            expected = expected_rows[number]
            if result.sql != sql or not expected or len(got) != len(expected):
                mismatches.append((number, result.answer, len(got), len(expected)))
            elif not all(same(a, b) for a, b in zip(got, expected, strict=True)):
                mismatches.append((number, "values differ", got[:2], expected[:2]))
    assert mismatches == []
