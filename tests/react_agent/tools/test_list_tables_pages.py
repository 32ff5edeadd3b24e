"""list_tables pages a database of many tables instead of listing thousands at once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from react_agent.databases.sqlite.engine import SQLiteDatabase
from react_agent.tools.sql_tools import LIST_TABLES_PAGE, SqlTools


def tools_over(path: Path, count: int) -> SqlTools:
    with sqlite3.connect(path) as connection:
        for n in range(count):
            connection.execute(f"CREATE TABLE t{n:03d} (id INTEGER PRIMARY KEY, name TEXT)")
    return SqlTools(SQLiteDatabase(path), row_limit=10, preview_rows=5, timeout=3.0)


async def test_a_large_database_is_listed_a_page_at_a_time(tmp_path):
    tools = tools_over(tmp_path / "many.db", 250)

    first = (await tools.list_tables()).splitlines()
    last = (await tools.list_tables(page=3)).splitlines()

    assert len(first) == LIST_TABLES_PAGE + 1
    assert first[0] == "t000 (0 rows): id, name"
    assert first[-1] == "(tables 1-100 of 250, page 1 of 3: call list_tables with page=2 for more)"
    assert last[0].startswith("t200 ") and len(last) == 51
    assert last[-1] == "(tables 201-250 of 250, page 3 of 3: call list_tables with page=1 for more)"


async def test_a_small_database_is_listed_as_before(tmp_path):
    tools = tools_over(tmp_path / "few.db", 3)

    assert await tools.list_tables(page=7) == (
        "t000 (0 rows): id, name\nt001 (0 rows): id, name\nt002 (0 rows): id, name"
    )
