"""JSON text for PostgreSQL: orjson where it writes what the standard library does."""

from __future__ import annotations

import datetime as dt
import enum
import json
import math
import uuid
from collections import OrderedDict
from dataclasses import dataclass

import psycopg
import pytest
from psycopg.types.json import Jsonb

from react_agent.databases.postgres.pool import postgres_conninfo
from react_agent.storage.postgres_json import dumps, jsonb


class Word(str):
    pass


class Count(int):
    pass


class Level(enum.IntEnum):
    HIGH = 3


@dataclass
class Point:
    x: int


NAN = float("nan")
INF = float("inf")

CORPUS = [
    None,
    True,
    0,
    -0.0,
    1e308,
    5e-324,
    2**63 - 1,
    -(2**63),
    2**64,  # wider than orjson's integers
    -(2**70),
    "",
    "帮我查询销售数据 AI思考中",
    "emoji 😀 and \u2028 line separator",
    'quote " backslash \\ control \x01 \x1f nul \x00',
    "lone surrogate \ud800",
    [],
    {},
    (1, 2),
    [None, [None, [None]]],
    {"k": None, "nested": {"deep": [1, {"x": None}]}},
    {1: "int key"},
    {None: "null key", True: "bool key", 1.5: "float key"},
    OrderedDict([("b", 1), ("a", 2)]),
    {"z": 1, "a": 2, "m": 3},  # order kept
    Word("a str subclass"),
    Count(7),
    Level.HIGH,
    {"nan": NAN},
    [1, [2, [INF]]],
    {"deep": {"deeper": [{"x": -INF}, None]}},
    (NAN,),
    {"ok": 1.0, "gone": None},
    [0.1, 0.2, 1 / 3, 123456789.123456789],
]
"""Values the standard library writes: each must read back the same from our text."""

REFUSED = [
    dt.datetime(2026, 11, 28, 10, 0, tzinfo=dt.UTC),
    dt.date(2026, 11, 28),
    Point(1),
    {"when": dt.time(10, 0)},
    {1, 2},
    b"bytes",
    object(),
]
"""Values the standard library refuses: refused here too."""


def _same(left: object, right: object) -> bool:
    """Equal, NaN included (json.loads reads NaN back as a float NaN)."""
    if isinstance(left, float) and isinstance(right, float):
        return left == right or (math.isnan(left) and math.isnan(right))
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return list(left) == list(right) and all(_same(left[k], right[k]) for k in left)
    return type(left) is type(right) and left == right


@pytest.mark.parametrize("value", CORPUS, ids=repr)
def test_the_text_reads_back_as_the_standard_librarys(value):
    ours, theirs = dumps(value), json.dumps(value)
    assert _same(json.loads(ours), json.loads(theirs))
    # NaN and infinities stay what PostgreSQL refuses, as before: never a quiet null.
    assert ("NaN" in theirs or "Infinity" in theirs) == ("NaN" in ours or "Infinity" in ours)


def _refused_id(value: object) -> str:
    # An object()'s repr holds its address: the same id in every process (pytest-xdist).
    return type(value).__name__ if type(value) is object else repr(value)


@pytest.mark.parametrize("value", REFUSED, ids=_refused_id)
def test_what_the_standard_library_refuses_is_refused(value):
    with pytest.raises(TypeError):
        json.dumps(value)
    with pytest.raises(TypeError):
        dumps(value)


def test_enums_and_uuids_are_written_where_the_standard_library_refused():
    # orjson writes these natively and has no option to refuse them; the standard
    # library's TypeError made such a write fail before.
    plain = enum.Enum("Plain", {"A": "a"})
    with pytest.raises(TypeError):
        json.dumps(plain.A)
    assert json.loads(dumps({"e": plain.A})) == {"e": "a"}
    some = uuid.UUID(int=1)
    assert json.loads(dumps([some])) == [str(some)]


def _accepted_by_jsonb(value: object) -> bool:
    text = json.dumps(value)
    return not any(bad in text for bad in ("NaN", "Infinity", "\\u0000", "\\ud800"))


async def test_postgres_stores_the_same_values_as_from_the_standard_librarys_text(
    postgres_database,
):
    values = [value for value in CORPUS if _accepted_by_jsonb(value)]
    query = "SELECT v::text FROM unnest(%b::jsonb[]) WITH ORDINALITY AS t(v, n) ORDER BY n"
    async with await psycopg.AsyncConnection.connect(
        postgres_conninfo(postgres_database), autocommit=True
    ) as connection:
        ours = await connection.execute(query, [[jsonb(value) for value in values]])
        stored = await ours.fetchall()
        theirs = await connection.execute(query, [[Jsonb(value) for value in values]])
        expected = await theirs.fetchall()
        with pytest.raises(psycopg.DataError):  # NaN: refused, as the standard library's
            await connection.execute("SELECT %b::jsonb", [jsonb({"n": NAN})])
    assert len(values) > 20 and stored == expected
