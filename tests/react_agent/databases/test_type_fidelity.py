"""Every value type comes back as valid JSON with its value intact, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from react_agent.databases.postgres.engine import PostgresDatabase
from react_agent.databases.sqlite.engine import SQLiteDatabase

BIG = 9007199254740993  # 2**53 + 1: a float would round it


def as_json(records: dict) -> dict:
    """Round-trip through strict JSON (NaN and Infinity are not JSON)."""
    return json.loads(json.dumps(records, allow_nan=False, ensure_ascii=False))


@pytest.fixture
def sqlite_types(tmp_path: Path) -> SQLiteDatabase:
    path = tmp_path / "types.db"
    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE TABLE t (big INTEGER, real REAL, inf REAL, ninf REAL, missing TEXT, "
            "blob BLOB, text TEXT, flag INTEGER, day TEXT, moment TEXT)"
        )
        connection.execute(
            "INSERT INTO t VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)",
            (
                BIG,
                0.1,
                float("inf"),
                float("-inf"),
                b"\x00\xff\x10",
                '销售额 🙂 "q" \\ \n',
                True,
                "2024-02-29",
                "2024-02-29T23:59:59.123+08:00",
            ),
        )
    return SQLiteDatabase(path)


async def test_sqlite_values_come_back_intact(sqlite_types):
    result = await sqlite_types.run_query("SELECT * FROM t", row_limit=10, timeout=5)
    row = as_json(result.as_records())["rows"][0]
    assert row["big"] == BIG
    assert row["real"] == 0.1
    assert (row["inf"], row["ninf"]) == ("Infinity", "-Infinity")
    assert row["missing"] is None
    assert row["blob"] == "AP8Q"  # base64 of 00 ff 10
    assert row["text"] == '销售额 🙂 "q" \\ \n'
    assert row["flag"] == 1  # SQLite keeps booleans as integers
    assert row["day"] == "2024-02-29" and row["moment"] == "2024-02-29T23:59:59.123+08:00"


POSTGRES_TYPES_SQL = """
SELECT
  DATE '2024-02-29' AS day,
  TIMESTAMPTZ '2024-02-29 23:59:59.123456+08' AS moment,
  TIMESTAMP '2024-02-29 23:59:59' AS naive,
  TIME '12:34:56' AS clock,
  INTERVAL '1 day 02:03:04' AS span,
  12345678901234567890.123456789::numeric AS huge_decimal,
  19.99::numeric(10,2) AS price,
  'NaN'::numeric AS nan_decimal,
  NULL::text AS missing,
  9007199254740993::bigint AS big,
  true AS yes, false AS no,
  '\\x00ff10'::bytea AS blob,
  'NaN'::float8 AS nan, 'Infinity'::float8 AS inf, '-Infinity'::float8 AS ninf,
  '销售额 🙂 "q" \\'::text AS text,
  '{"a": [1, 2.5, null]}'::jsonb AS doc,
  ARRAY[1, 2, 3] AS numbers,
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS id
"""


async def test_postgres_values_come_back_intact(postgres_database):
    database = await PostgresDatabase.open(postgres_database, connect_timeout=5)
    try:
        result = await database.run_query(
            POSTGRES_TYPES_SQL,
            row_limit=10,
            timeout=5,
        )
    finally:
        await database.aclose()
    row = as_json(result.as_records())["rows"][0]
    assert row["day"] == "2024-02-29"
    # The same instant, with the offset of the session's time zone.
    assert datetime.fromisoformat(row["moment"]) == datetime(
        2024, 2, 29, 15, 59, 59, 123456, tzinfo=UTC
    )
    assert row["naive"] == "2024-02-29T23:59:59"
    assert row["clock"] == "12:34:56"
    assert row["span"] == "1 day, 2:03:04"
    assert row["huge_decimal"] == "12345678901234567890.123456789"  # beyond a float: a string
    assert row["price"] == 19.99
    assert row["nan_decimal"] == "NaN"
    assert row["missing"] is None
    assert row["big"] == BIG
    assert (row["yes"], row["no"]) == (True, False)
    assert row["blob"] == "AP8Q"
    assert (row["nan"], row["inf"], row["ninf"]) == ("NaN", "Infinity", "-Infinity")
    assert row["text"] == '销售额 🙂 "q" \\'
    assert row["doc"] == {"a": [1, 2.5, None]}
    assert row["numbers"] == [1, 2, 3]
    assert row["id"] == "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
